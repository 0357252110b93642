"""Instruction decoding: walk a function body (or constant expression) instruction by
instruction and report where function indices appear, so the linker can rewrite them.

Covers MVP, sign-extension, non-trapping float-to-int, bulk memory, reference types
(table/ref instructions, typed select), multi-value block types and tail calls. Any other
opcode (SIMD, threads, exceptions, GC) raises ``WasmFormatError``.
"""

from __future__ import annotations

from cupcake_py.wasm.errors import WasmFormatError
from cupcake_py.wasm.leb import Reader

# immediate kinds
NONE, U32, U32X2, S32, S64, F32, F64, MEMARG, BLOCKTYPE, BRTABLE, FUNC, SELECT_T, REFTYPE = range(13)

_SINGLE: dict[int, int] = {
    0x00: NONE, 0x01: NONE, 0x02: BLOCKTYPE, 0x03: BLOCKTYPE, 0x04: BLOCKTYPE, 0x05: NONE,
    0x0B: NONE, 0x0C: U32, 0x0D: U32, 0x0E: BRTABLE, 0x0F: NONE, 0x10: FUNC, 0x11: U32X2,
    0x12: FUNC, 0x13: U32X2, 0x1A: NONE, 0x1B: NONE, 0x1C: SELECT_T,
    0x20: U32, 0x21: U32, 0x22: U32, 0x23: U32, 0x24: U32, 0x25: U32, 0x26: U32,
    0x3F: U32, 0x40: U32, 0x41: S32, 0x42: S64, 0x43: F32, 0x44: F64,
    0xD0: REFTYPE, 0xD1: NONE, 0xD2: FUNC,
}  # fmt: skip
_SINGLE.update({op: MEMARG for op in range(0x28, 0x3F)})  # loads and stores
_SINGLE.update({op: NONE for op in range(0x45, 0xC5)})  # numeric, conversions, sign-extension

# 0xFC prefix: saturating truncation (0-7), bulk memory and table operations (8-17)
_PREFIX_FC: dict[int, int] = {
    **{op: NONE for op in range(8)},
    8: U32X2, 9: U32, 10: U32X2, 11: U32, 12: U32X2, 13: U32, 14: U32X2, 15: U32, 16: U32, 17: U32,
}  # fmt: skip

OP_END = 0x0B


def _skip(r: Reader, kind: int) -> None:
    if kind == NONE:
        return
    if kind == U32:
        r.u32()
    elif kind == U32X2:
        r.u32()
        r.u32()
    elif kind in (S32, S64):
        r.s64()
    elif kind == F32:
        r.bytes(4)
    elif kind == F64:
        r.bytes(8)
    elif kind == MEMARG:
        if r.u32() & 0x40:  # multi-memory: explicit memory index
            r.u32()
        r.u32()
    elif kind == BLOCKTYPE:
        b = r.data[r.pos] if r.pos < r.end else -1
        if b == 0x40 or b in (0x7F, 0x7E, 0x7D, 0x7C, 0x7B, 0x70, 0x6F):
            r.pos += 1
        else:
            r.s64()  # type index (s33)
    elif kind == BRTABLE:
        for _ in range(r.u32() + 1):
            r.u32()
    elif kind == SELECT_T:
        r.bytes(r.u32())
    elif kind == REFTYPE:
        r.s64()
    else:  # pragma: no cover - table is closed
        raise AssertionError(kind)


def func_refs(data: bytes, pos: int, end: int) -> list[tuple[int, int, int]]:
    """Walk instructions in ``data[pos:end]`` and return ``(start, stop, funcidx)`` for the
    LEB128 immediate of every ``call``, ``return_call`` and ``ref.func``."""
    r = Reader(data, pos, end)
    refs: list[tuple[int, int, int]] = []
    single = _SINGLE
    while r.pos < r.end:
        at = r.pos
        op = data[at]
        r.pos = at + 1
        kind = single.get(op)
        if kind is None:
            if op == 0xFC:
                sub = r.u32()
                kind = _PREFIX_FC.get(sub)
                if kind is None:
                    raise WasmFormatError(f"offset {at:#x}: unknown instruction 0xfc {sub}")
            else:
                raise WasmFormatError(f"offset {at:#x}: unknown or unsupported opcode {op:#04x}")
        if kind == FUNC:
            start = r.pos
            idx = r.u32()
            refs.append((start, r.pos, idx))
        elif kind != NONE:
            _skip(r, kind)
    return refs


def expr_end(data: bytes, pos: int, end: int) -> int:
    """Offset just past the ``end`` opcode that closes the expression starting at ``pos``."""
    r = Reader(data, pos, end)
    depth = 0
    while True:
        at = r.pos
        op = r.byte()
        kind = _SINGLE.get(op)
        if kind is None:
            if op != 0xFC:
                raise WasmFormatError(f"offset {at:#x}: unknown or unsupported opcode {op:#04x}")
            kind = _PREFIX_FC.get(r.u32())
            if kind is None:
                raise WasmFormatError(f"offset {at:#x}: unknown 0xfc instruction")
        if op in (0x02, 0x03, 0x04):
            depth += 1
        elif op == OP_END:
            if depth == 0:
                return r.pos
            depth -= 1
        _skip(r, kind) if kind != FUNC else r.u32()
