"""LEB128 and the byte-level reader used by the WebAssembly decoder."""

from __future__ import annotations

from cupcake_py.wasm.errors import WasmFormatError


def u32(n: int) -> bytes:
    """Unsigned LEB128 (also used for u64 values)."""
    if 0 <= n < 0x80:
        return _ONE_BYTE[n]
    if 0x80 <= n < 0x4000:
        return bytes((n & 0x7F | 0x80, n >> 7))
    if n < 0:
        raise ValueError(f"unsigned LEB128 of a negative number {n}")
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


_ONE_BYTE: list[bytes] = [bytes((n,)) for n in range(0x80)]  # (a table of all two-byte ones cost 2 ms per process)


def s64(n: int) -> bytes:
    """Signed LEB128 (i32, i64 and s33 immediates)."""
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if (n == 0 and not b & 0x40) or (n == -1 and b & 0x40):
            out.append(b)
            return bytes(out)
        out.append(b | 0x80)


def name(s: str) -> bytes:
    raw = s.encode()
    return u32(len(raw)) + raw


def vec(items: list[bytes]) -> bytes:
    return u32(len(items)) + b"".join(items)


class Reader:
    """Sequential reader over ``data[pos:end]``; every read checks bounds."""

    __slots__ = ("data", "pos", "end")

    def __init__(self, data: bytes, pos: int = 0, end: int | None = None) -> None:
        self.data = data
        self.pos = pos
        self.end = len(data) if end is None else end

    def fail(self, msg: str) -> WasmFormatError:
        return WasmFormatError(f"offset {self.pos:#x}: {msg}")

    def at_end(self) -> bool:
        return self.pos >= self.end

    def byte(self) -> int:
        if self.pos >= self.end:
            raise self.fail("unexpected end of data")
        b = self.data[self.pos]
        self.pos += 1
        return b

    def bytes(self, n: int) -> bytes:
        if n < 0 or self.pos + n > self.end:
            raise self.fail(f"{n} bytes past the end")
        out = self.data[self.pos : self.pos + n]
        self.pos += n
        return bytes(out)

    def u32(self) -> int:
        result = shift = 0
        data, pos, end = self.data, self.pos, self.end
        while True:
            if pos >= end:
                self.pos = pos
                raise self.fail("truncated LEB128")
            b = data[pos]
            pos += 1
            result |= (b & 0x7F) << shift
            if not b & 0x80:
                self.pos = pos
                return result
            shift += 7
            if shift > 63:
                self.pos = pos
                raise self.fail("LEB128 too long")

    def s64(self) -> int:
        result = shift = 0
        while True:
            b = self.byte()
            result |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                if b & 0x40:
                    result -= 1 << shift
                return result
            if shift > 70:
                raise self.fail("LEB128 too long")

    def name(self) -> str:
        raw = self.bytes(self.u32())
        try:
            return raw.decode()
        except UnicodeDecodeError as e:
            raise self.fail("name is not UTF-8") from e

    def sub(self, size: int) -> Reader:
        """A reader over the next ``size`` bytes; advances past them."""
        if self.pos + size > self.end:
            raise self.fail(f"section/body of {size} bytes runs past the end")
        r = Reader(self.data, self.pos, self.pos + size)
        self.pos += size
        return r
