"""Bounds-checked access to a module's linear memory (C strings, raw bytes, a memoryview,
growth up to the cap). The memory's address is re-read on every access: it may move when
the memory grows, i.e. after any call into wasm."""

from __future__ import annotations

import ctypes

from cupcake_py.host import capi
from cupcake_py.host.engine import WASM_PAGE
from cupcake_py.host.errors import ABIError, MemoryLimitExceeded
from cupcake_py.host.fastcall import Ctx, memory_span

_memmove = ctypes.memmove
_memchr = ctypes.PyDLL(None).memchr  # (the GIL stays held: it returns at once)
_memchr.restype = ctypes.c_void_p
_memchr.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]

# A writable memoryview over foreign memory with no ctypes array type (one per memory size, freed
# only by the cyclic GC, piled up in a long-running server: issue 29).
_memory_view = ctypes.pythonapi.PyMemoryView_FromMemory
_memory_view.restype = ctypes.py_object
_memory_view.argtypes = [ctypes.c_void_p, ctypes.c_ssize_t, ctypes.c_int]
_PYBUF_WRITE = 0x200


class LinearMemory:
    def __init__(self, memory: capi.Memory, max_pages: int, store_ctx: Ctx) -> None:
        self.memory = memory
        self._ref = memory.ref
        self.max_pages = max_pages
        self._store_ctx = store_ctx  # for growing (only outside host calls)
        self._view: memoryview | None = None
        self._view_span = (0, 0)

    def view(self, ctx: Ctx) -> memoryview:
        """A writable byte view of the whole memory, valid until the next call into wasm."""
        span = memory_span(ctx, self._ref)
        if span != self._view_span or self._view is None:
            base, size = span
            self._view = _memory_view(base, size, _PYBUF_WRITE) if size else memoryview(bytearray())
            self._view_span = span
        return self._view

    def read_cstr(self, ctx: Ctx, addr: int) -> bytes:
        """The NUL-terminated byte string at `addr` (without the NUL)."""
        base, size = memory_span(ctx, self._ref)
        if not 0 < addr < size:
            raise ABIError(f"string address {addr:#x} is outside linear memory ({size} bytes)")
        end = _memchr(base + addr, 0, size - addr)
        if not end:
            raise ABIError(f"string at {addr:#x} is not NUL-terminated")
        return ctypes.string_at(base + addr, end - base - addr)

    def read(self, ctx: Ctx, addr: int, length: int) -> bytes:
        base, size = memory_span(ctx, self._ref)
        if addr < 0 or length < 0 or addr + length > size:
            raise ABIError(f"read of {length} bytes at {addr:#x} is outside linear memory")
        return ctypes.string_at(base + addr, length)

    def ensure(self, ctx: Ctx, end: int) -> None:
        """Grow so that bytes [0, end) exist; MemoryLimitExceeded past the cap."""
        size = memory_span(ctx, self._ref)[1]
        if end <= size:
            return
        pages = -(-(end - size) // WASM_PAGE)
        if self.memory.size(self._store_ctx) + pages > self.max_pages:
            raise MemoryLimitExceeded(
                f"{end} bytes of linear memory needed; the limit is {self.max_pages * WASM_PAGE} bytes")
        try:
            self.memory.grow(self._store_ctx, pages)
        except capi.WasmError as e:
            raise MemoryLimitExceeded(f"linear memory cannot grow to {end} bytes: {e}") from None

    def write(self, ctx: Ctx, addr: int, data: bytes) -> None:
        if addr < 0:
            raise ABIError(f"write at negative address {addr}")
        n = len(data)
        base, size = memory_span(ctx, self._ref)
        if addr + n > size:  # (one span query when the memory is large enough: every evaluation writes its input)
            self.ensure(ctx, addr + n)
            base = memory_span(ctx, self._ref)[0]
        if n:
            _memmove(base + addr, data, n)
