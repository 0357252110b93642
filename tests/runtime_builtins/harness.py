"""Direct access to runtime.wasm's native builtins for the tests in this folder.

The module is instantiated on its own (no generated code): env.memory is a wasmtime
Memory, env.opa_abort raises, env.gen_eval is a stub never called. Arguments are Rego
literal texts parsed by the runtime's own `opa_value_parse`; results come back through
`opa_json_dump` (sets as sorted arrays, numbers exactly as printed) and are parsed with
`cupcake_py.core.values.parse_json`, or as None for undefined (a NULL result).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import wasmtime

from cupcake_py.core.values import parse_json

RUNTIME_WASM = Path(__file__).resolve().parents[2] / "cupcake_py" / "wasm" / "runtime" / "runtime.wasm"


class RuntimeAbort(Exception):
    """The runtime called opa_abort."""


class Runtime:
    """One instance of runtime.wasm; call builtins with Rego-literal argument texts."""

    def __init__(self, wasm: Path = RUNTIME_WASM) -> None:
        self.engine = wasmtime.Engine()
        self.store = wasmtime.Store(self.engine)
        module = wasmtime.Module.from_file(self.engine, str(wasm))
        self.memory: wasmtime.Memory | None = None
        imports: list[Any] = []
        for imp in module.imports:
            if imp.name == "memory":
                assert isinstance(imp.type, wasmtime.MemoryType)
                self.memory = wasmtime.Memory(self.store, imp.type)
                imports.append(self.memory)
            elif imp.name == "opa_abort":
                imports.append(wasmtime.Func(self.store, imp.type, self._abort))
            elif imp.name == "opa_println":
                imports.append(wasmtime.Func(self.store, imp.type, lambda addr: None))
            elif imp.name == "gen_eval":
                imports.append(wasmtime.Func(self.store, imp.type, lambda ctx: 0))
            else:
                raise AssertionError(f"unexpected import {imp.module}.{imp.name}")
        self.instance = wasmtime.Instance(self.store, module, imports)
        self.exports = self.instance.exports(self.store)
        self.export_names = {e.name for e in module.exports}
        if "opa_rt_init" in self.export_names:
            heap_base = self.exports["__heap_base"].value(self.store)  # type: ignore[union-attr]
            self._fn("opa_rt_init")(heap_base, 0, 0)
        self.heap_reset = self._fn("opa_heap_ptr_get")()

    def _abort(self, addr: int) -> None:
        raise RuntimeAbort(self.read_cstr(addr))

    def _fn(self, name: str) -> Any:
        fn = self.exports[name]
        return lambda *args: fn(self.store, *args)  # type: ignore[operator]

    def read_cstr(self, addr: int) -> str:
        assert self.memory is not None
        size = self.memory.data_len(self.store)
        out = bytearray()
        while addr < size:
            chunk = self.memory.read(self.store, addr, min(addr + 4096, size))
            end = chunk.find(b"\0")
            if end >= 0:
                out += chunk[:end]
                break
            out += chunk
            addr += len(chunk)
        return out.decode("utf-8", errors="replace")

    def write(self, data: bytes) -> int:
        assert self.memory is not None
        addr = self._fn("opa_malloc")(max(len(data), 1))
        self.memory.write(self.store, data, addr)
        return addr

    def parse(self, rego_text: str) -> int:
        """A value from Rego literal text (sets, non-string keys allowed)."""
        data = rego_text.encode()
        addr = self._fn("opa_value_parse")(self.write(data), len(data))
        if not addr:
            raise ValueError(f"runtime cannot parse {rego_text!r}")
        return addr

    def string(self, raw: bytes) -> int:
        """A string value holding arbitrary bytes (e.g. invalid UTF-8)."""
        return self._fn("opa_string")(self.write(raw), len(raw))

    def reset(self) -> None:
        """Discard every value allocated since instantiation."""
        self._fn("opa_heap_ptr_set")(self.heap_reset)

    def json_text(self, addr: int) -> str:
        return self.read_cstr(self._fn("opa_json_dump")(addr))

    def rego_text(self, addr: int) -> str:
        return self.read_cstr(self._fn("opa_value_dump")(addr))

    def dump(self, addr: int) -> Any:
        return parse_json(self.json_text(addr))

    def raw_string(self, addr: int) -> bytes:
        """Bytes of a string value (layout {type, free, len @4, ptr @8})."""
        assert self.memory is not None
        hdr = bytes(self.memory.read(self.store, addr, addr + 12))
        assert hdr[0] == 4, f"not a string value (type {hdr[0]})"
        n = int.from_bytes(hdr[4:8], "little")
        ptr = int.from_bytes(hdr[8:12], "little")
        return bytes(self.memory.read(self.store, ptr, ptr + n))

    def array_items(self, addr: int) -> list[int]:
        """Element addresses of an array value (layout {type, len @4, cap @8, elems @12})."""
        assert self.memory is not None
        hdr = bytes(self.memory.read(self.store, addr, addr + 16))
        assert hdr[0] == 5, f"not an array value (type {hdr[0]})"
        n, elems = int.from_bytes(hdr[4:8], "little"), int.from_bytes(hdr[12:16], "little")
        raw = bytes(self.memory.read(self.store, elems, elems + 4 * n))
        return [int.from_bytes(raw[4 * i:4 * i + 4], "little") for i in range(n)]

    def call_addr(self, builtin: str, *args: int) -> int:
        return self._fn("opa_bi_" + builtin.replace(".", "_"))(*args)

    def call(self, builtin: str, *args: str) -> Any:
        """builtin applied to Rego-literal argument texts; None when undefined."""
        self.reset()
        res = self.call_addr(builtin, *(self.parse(a) for a in args))
        return None if res == 0 else self.dump(res)

    def has(self, builtin: str) -> bool:
        return "opa_bi_" + builtin.replace(".", "_") in self.export_names
