"""Minimal end-to-end runner for backend tests: instantiate a compiled module under
wasmtime with Python imports and evaluate through OPA's fast path (`opa_eval`).
Host builtins answer 0 (undefined); the real host lives in cupcake_py/host/."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import wasmtime

from cupcake_py.wasm.module import KIND_MEMORY, decode

ENGINE = wasmtime.Engine()


class Aborted(Exception):
    pass


class Instance:
    def __init__(self, module_bytes: bytes, host: dict[str, Callable[..., Any]] | None = None) -> None:
        m = decode(module_bytes)
        mem_min = next(i.desc.min for i in m.imports if i.kind == KIND_MEMORY)  # type: ignore[union-attr]
        self.store = wasmtime.Store(ENGINE)
        self.memory = wasmtime.Memory(self.store, wasmtime.MemoryType(wasmtime.Limits(mem_min, None)))
        self.abort_message: str | None = None
        i32 = wasmtime.ValType.i32()
        linker = wasmtime.Linker(ENGINE)
        linker.define(self.store, "env", "memory", self.memory)

        def abort(caller: wasmtime.Caller, addr: int) -> None:
            self.abort_message = self._cstr(addr, caller)
            raise Aborted(self.abort_message)

        linker.define_func("env", "opa_abort", wasmtime.FuncType([i32], []), abort, access_caller=True)
        linker.define_func("env", "opa_println", wasmtime.FuncType([i32], []), lambda a: None)
        self.host = host or {}
        self.host_calls: list[tuple[str, list[Any]]] = []
        for n in range(5):
            linker.define_func("env", f"opa_builtin{n}", wasmtime.FuncType([i32] * (n + 2), [i32]),
                               self._builtin, access_caller=True)  # fmt: skip
        self.instance = linker.instantiate(self.store, wasmtime.Module(ENGINE, module_bytes))
        self.exports = self.instance.exports(self.store)
        self.builtin_names = {v: k for k, v in self.dump(self.call("builtins")).items()}

    def _builtin(self, caller: wasmtime.Caller, builtin_id: int, ctx: int, *args: int) -> int:
        """Host builtin: JSON in, JSON out; a Python ``None`` result is undefined (0)."""
        name = self.builtin_names[builtin_id]
        values = [self.dump(a, caller) for a in args]
        self.host_calls.append((name, values))
        fn = self.host.get(name)
        result = None if fn is None else fn(*values)
        if result is None:
            return 0
        raw = json.dumps(result).encode()
        addr = self.exports["opa_malloc"](caller, len(raw))
        self.memory.write(caller, raw, addr)
        return int(self.exports["opa_json_parse"](caller, addr, len(raw)))

    def call(self, name: str, *args: int) -> Any:
        return self.exports[name](self.store, *args)

    def _cstr(self, addr: int, store: Any = None) -> str:
        store = store or self.store
        data = self.memory.read(store, addr, self.memory.data_len(store))
        return data[: data.index(b"\0")].decode()

    def _write(self, addr: int, raw: bytes) -> None:
        need = addr + len(raw) - self.memory.data_len(self.store)
        if need > 0:
            self.memory.grow(self.store, -(-need // 65536))
        self.memory.write(self.store, raw, addr)

    def dump(self, value_addr: int, store: Any = None) -> Any:
        store = store or self.store
        return json.loads(self._cstr(self.exports["opa_json_dump"](store, value_addr), store))

    def load_data(self, data: Any) -> int:
        raw = json.dumps(data).encode()
        addr = self.call("opa_malloc", len(raw))
        self._write(addr, raw)
        value = self.call("opa_json_parse", addr, len(raw))
        assert value, "data did not parse"
        return int(value)

    def eval(self, data_addr: int, input_text: str | None = None, entrypoint: int = 0) -> Any:
        """One evaluation via opa_eval; `input_text` is JSON or a Rego term; None = undefined."""
        base = self.call("opa_heap_ptr_get")
        raw = (input_text or "").encode()
        self._write(base, raw)
        out = self.call("opa_eval", 0, entrypoint, data_addr, base, len(raw), base + len(raw), 0)
        return json.loads(self._cstr(out))
