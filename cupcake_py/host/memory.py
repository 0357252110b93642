"""Bounds-checked access to a module's linear memory (C strings, raw bytes, growth up to
the cap). Addresses are re-resolved on every access: memory may move when it grows."""

from __future__ import annotations

import ctypes

import wasmtime

from cupcake_py.host.engine import WASM_PAGE
from cupcake_py.host.errors import ABIError, MemoryLimitExceeded

Storelike = wasmtime.Store | wasmtime.Caller


class LinearMemory:
    def __init__(self, memory: wasmtime.Memory, max_pages: int) -> None:
        self.memory = memory
        self.max_pages = max_pages

    def _base(self, store: Storelike) -> int:
        return ctypes.addressof(self.memory.data_ptr(store).contents)

    def read_cstr(self, store: Storelike, addr: int) -> bytes:
        """The NUL-terminated byte string at `addr` (without the NUL)."""
        size = self.memory.data_len(store)
        if not 0 < addr < size:
            raise ABIError(f"string address {addr:#x} is outside linear memory ({size} bytes)")
        base = self._base(store)
        n = 512
        while True:
            end = min(addr + n, size)
            chunk = ctypes.string_at(base + addr, end - addr)
            i = chunk.find(b"\0")
            if i >= 0:
                return chunk[:i]
            if end == size:
                raise ABIError(f"string at {addr:#x} is not NUL-terminated")
            n *= 4

    def read(self, store: Storelike, addr: int, length: int) -> bytes:
        size = self.memory.data_len(store)
        if addr < 0 or length < 0 or addr + length > size:
            raise ABIError(f"read of {length} bytes at {addr:#x} is outside linear memory")
        return ctypes.string_at(self._base(store) + addr, length)

    def ensure(self, store: Storelike, end: int) -> None:
        """Grow so that bytes [0, end) exist; MemoryLimitExceeded past the cap."""
        size = self.memory.data_len(store)
        if end <= size:
            return
        pages = -(-(end - size) // WASM_PAGE)
        if self.memory.size(store) + pages > self.max_pages:
            raise MemoryLimitExceeded(
                f"{end} bytes of linear memory needed; the limit is {self.max_pages * WASM_PAGE} bytes")
        try:
            self.memory.grow(store, pages)
        except wasmtime.WasmtimeError as e:
            raise MemoryLimitExceeded(f"linear memory cannot grow to {end} bytes: {e}") from None

    def write(self, store: Storelike, addr: int, data: bytes) -> None:
        self.ensure(store, addr + len(data))
        if data:
            ctypes.memmove(self._base(store) + addr, data, len(data))
