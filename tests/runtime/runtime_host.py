"""A minimal host around runtime.wasm for the runtime tests.

The runtime is instantiated alone: ``env.memory`` comes from the test,
``env.opa_abort`` raises :class:`Abort`, and ``env.gen_eval`` is a Python
function that tests can replace (it receives the context address).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import wasmtime

from cupcake_py.wasm.runtime import load_runtime_bytes

PAGE = 65536


class Abort(Exception):
    """opa_abort was called."""


_COMPILED: list[tuple[wasmtime.Engine, wasmtime.Module]] = []


def _compiled() -> tuple[wasmtime.Engine, wasmtime.Module]:
    """The engine and runtime module, made on first use, never at import: this module is
    imported by tests/runtime/conftest.py, an initial conftest when pytest is given
    tests/runtime, and that is loaded before pytest's faulthandler plugin installs its
    handlers. An engine made then lets faulthandler's SIGILL handler sit in front of
    wasmtime's, and a later wasm trap (`unreachable` in tests/host/test_capi.py) killed the
    process with "Fatal Python error: Illegal instruction"."""
    if not _COMPILED:
        engine = wasmtime.Engine()
        _COMPILED.append((engine, wasmtime.Module(engine, load_runtime_bytes())))
    return _COMPILED[0]


class Runtime:
    def __init__(self, max_pages: int | None = None) -> None:
        engine, module = _compiled()
        self.store = wasmtime.Store(engine)
        mem_import = next(i for i in module.imports if i.name == "memory")
        mem_type = mem_import.type
        assert isinstance(mem_type, wasmtime.MemoryType), mem_type
        min_pages = mem_type.limits.min
        self.memory = wasmtime.Memory(self.store, wasmtime.MemoryType(wasmtime.Limits(min_pages, max_pages)))
        self.gen_eval: Callable[[Runtime, int], int] = lambda rt, ctx: 0
        i32 = wasmtime.ValType.i32()
        abort = wasmtime.Func(self.store, wasmtime.FuncType([i32], []), self._abort)
        gen = wasmtime.Func(self.store, wasmtime.FuncType([i32], [i32]), lambda ctx: self.gen_eval(self, ctx))
        linker = wasmtime.Linker(engine)
        linker.define(self.store, "env", "memory", self.memory)
        linker.define(self.store, "env", "opa_abort", abort)
        linker.define(self.store, "env", "gen_eval", gen)
        self.instance = linker.instantiate(self.store, module)
        self.exports = self.instance.exports(self.store)

    def _abort(self, addr: int) -> None:
        raise Abort(self.cstr(addr))

    # ---- raw access ----
    def __call__(self, name: str, *args: Any) -> Any:
        fn = self.exports[name]
        assert isinstance(fn, wasmtime.Func), name
        return fn(self.store, *args)

    def addr(self, name: str, *args: Any) -> int:
        """Call an export that answers an address (a value, a buffer)."""
        return int(self(name, *args))

    def read(self, addr: int, n: int) -> bytes:
        return bytes(self.memory.read(self.store, addr, addr + n))

    def write(self, addr: int, data: bytes) -> None:
        """Write, growing the memory first like the host does (host/memory.py)."""
        need = addr + len(data) - self.memory.data_len(self.store)
        if need > 0:
            self.memory.grow(self.store, -(-need // 65536))
        self.memory.write(self.store, data, addr)

    def cstr(self, addr: int) -> str:
        data = self.memory.read(self.store, addr, self.memory.data_len(self.store))
        return bytes(data[: data.index(0)]).decode("utf-8")

    def u8(self, addr: int) -> int:
        return self.read(addr, 1)[0]

    def u32(self, addr: int) -> int:
        return int.from_bytes(self.read(addr, 4), "little")

    # ---- values ----
    def bytes_in(self, data: bytes) -> int:
        addr = self.addr("opa_malloc", len(data))
        self.write(addr, data)
        return addr

    def parse(self, text: str, rego: bool = False) -> int:
        data = text.encode("utf-8")
        return self.addr("opa_value_parse" if rego else "opa_json_parse", self.bytes_in(data), len(data))

    def dump(self, value: int, rego: bool = False) -> str:
        return self.cstr(self("opa_value_dump" if rego else "opa_json_dump", value))

    def val(self, text: str) -> int:
        """A value from Rego literal text; fails the test on a parse error."""
        v = self.parse(text, rego=True)
        assert v != 0, f"runtime could not parse {text!r}"
        return v

    def string(self, s: str) -> int:
        data = s.encode("utf-8")
        return self.addr("opa_string", self.bytes_in(data), len(data))

