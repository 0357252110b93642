"""The generated data segment: interned string values, booleans, integers, C strings and blobs,
laid out from a fixed base address in first-request order (deterministic)."""

from __future__ import annotations

import struct

from cupcake_py.wasm.abi import NUMBER_REPR_INT, TAG_BOOLEAN, TAG_NUMBER, TAG_STRING


def align(n: int, to: int) -> int:
    return (n + to - 1) // to * to


class DataBuilder:
    def __init__(self, base: int) -> None:
        self.base = base
        self.buf = bytearray()
        self._cstrs: dict[str, int] = {}
        self._strings: dict[str, int] = {}
        self._text: dict[str, tuple[int, int]] = {}
        self._bools: dict[bool, int] = {}
        self._ints: dict[int, int] = {}
        self._blobs: dict[tuple[bytes, int], int] = {}

    @property
    def end(self) -> int:
        return self.base + len(self.buf)

    def _put(self, raw: bytes, alignment: int = 1) -> int:
        self.buf += bytes(align(len(self.buf), alignment) - len(self.buf))
        addr = self.end
        self.buf += raw
        return addr

    def cstr(self, s: str) -> int:
        """Address of a NUL-terminated UTF-8 copy of ``s``."""
        if s not in self._cstrs:
            self._cstrs[s] = self._put(s.encode() + b"\0")
        return self._cstrs[s]

    def text(self, s: str) -> tuple[int, int]:
        """(address, byte length) of the UTF-8 bytes of ``s`` (NUL-terminated in memory)."""
        if s not in self._text:
            raw = s.encode()
            self._text[s] = (self.cstr(s), len(raw))
        return self._text[s]

    def string(self, s: str) -> int:
        """Address of a constant string value ``{u8 type=4, u8 free=0, pad, u32 len @4, u32 ptr @8}``."""
        if s not in self._strings:
            ptr, n = self.text(s)
            self._strings[s] = self._put(struct.pack("<BBxxII", TAG_STRING, 0, n, ptr), 4)
        return self._strings[s]

    def boolean(self, b: bool) -> int:
        """Address of a constant boolean value ``{u8 type=2, u8 v}``."""
        if b not in self._bools:
            self._bools[b] = self._put(bytes((TAG_BOOLEAN, int(b))), 2)
        return self._bools[b]

    def integer(self, i: int) -> int:
        """Address of a constant int64 number value ``{u8 type=3, u8 repr=INT, pad, i64 @8}``
        (static: the runtime never frees it; it must never be the target of an in-place number
        assignment, see wasm/static_numbers.py)."""
        if i not in self._ints:
            self._ints[i] = self._put(struct.pack("<BBxxxxxxq", TAG_NUMBER, NUMBER_REPR_INT, i), 8)
        return self._ints[i]

    def blob(self, raw: bytes, alignment: int = 1) -> int:
        return self._put(raw, alignment)

    def shared_blob(self, raw: bytes, alignment: int = 1) -> int:
        """Address of read-only bytes, stored once however often they are asked for."""
        key = (raw, alignment)
        if key not in self._blobs:
            self._blobs[key] = self._put(raw, alignment)
        return self._blobs[key]
