"""The WebAssembly encoder/decoder and the instruction walker."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
import wasmtime
from hypothesis import given
from hypothesis import strategies as st

from cupcake_py.wasm import leb
from cupcake_py.wasm.errors import WasmFormatError
from cupcake_py.wasm.module import (
    I32,
    I64,
    KIND_FUNC,
    Code,
    Export,
    FuncType,
    Module,
    decode,
    encode,
)
from cupcake_py.wasm.opcodes import expr_end, func_refs
from tests.wasm import fake_runtime

ENGINE = wasmtime.Engine()


@given(st.integers(min_value=0, max_value=2**64 - 1))
def test_unsigned_leb128_roundtrip(n: int) -> None:
    raw = leb.u32(n)
    r = leb.Reader(raw)
    assert r.u32() == n and r.at_end()


@given(st.integers(min_value=-(2**63), max_value=2**63 - 1))
def test_signed_leb128_roundtrip(n: int) -> None:
    raw = leb.s64(n)
    r = leb.Reader(raw)
    assert r.s64() == n and r.at_end()


def test_leb128_known_encodings() -> None:
    assert leb.u32(624485) == bytes([0xE5, 0x8E, 0x26])
    assert leb.s64(-123456) == bytes([0xC0, 0xBB, 0x78])
    assert leb.s64(63) == b"\x3f" and leb.s64(64) == b"\xc0\x00" and leb.s64(-64) == b"\x40"
    assert leb.Reader(b"\x80\x80\x80\x80\x00").u32() == 0  # padded (relocatable) form


def test_truncated_input_fails_loudly() -> None:
    with pytest.raises(WasmFormatError, match="truncated"):
        leb.Reader(b"\x80\x80").u32()
    with pytest.raises(WasmFormatError, match="magic"):
        decode(b"\x00asm\x02\x00\x00\x00")
    raw = fake_runtime.build()
    with pytest.raises(WasmFormatError):
        decode(raw[:-3])


def test_roundtrip_fake_runtime() -> None:
    raw = fake_runtime.build()
    m = decode(raw)
    assert encode(m) == raw
    assert decode(encode(m)) == m
    wasmtime.Module.validate(ENGINE, raw)


def _all_kinds_body() -> bytes:
    """One instance of every immediate kind the walker knows, calls to 7 and 300."""
    return b"".join([
        b"\x02\x40", b"\x03\x7f", b"\x04\x05",  # block (empty), loop (i32), if (type index 5)
        b"\x0c\x00", b"\x0d\x01", b"\x0e\x02\x00\x01\x02",  # br, br_if, br_table
        b"\x10\x07",  # call 7
        b"\x11\x80\x80\x80\x80\x00\x00",  # call_indirect type 0 (padded) table 0
        b"\x12" + leb.u32(300),  # return_call 300
        b"\x1c\x01\x7f", b"\x20\x03", b"\x23\x00",  # select t, local.get, global.get
        b"\x28\x02\x10", b"\x36\x42\x00\x08",  # i32.load, i32.store (multi-memory memarg)
        b"\x41\x7f", b"\x42\x80\x01", b"\x43" + bytes(4), b"\x44" + bytes(8),
        b"\x3f\x00", b"\x40\x00", b"\xc0", b"\xc4",  # memory.size/grow, sign-extension
        b"\xfc\x00", b"\xfc\x07", b"\xfc\x08\x00\x00", b"\xfc\x0a\x00\x00", b"\xfc\x0b\x00",  # trunc_sat, bulk
        b"\xd0\x70", b"\xd1", b"\xd2\x07",  # ref.null, ref.is_null, ref.func 7
        b"\x0b", b"\x0b", b"\x0b", b"\x0b",
    ])  # fmt: skip


def test_func_refs_walks_every_immediate_kind() -> None:
    body = _all_kinds_body()
    refs = func_refs(body, 0, len(body))
    assert [t for _, _, t in refs] == [7, 300, 7]
    for start, stop, target in refs:
        assert leb.Reader(body, start, stop).u32() == target
    assert expr_end(body, 0, len(body)) == len(body)  # three nested blocks + the body's own end
    assert expr_end(b"\x41\x05\x0b\x00", 0, 4) == 3


@pytest.mark.parametrize("opcode", [b"\xfd\x00", b"\xfe\x00", b"\x06", b"\xfc\x20"])
def test_unknown_opcodes_fail_loudly(opcode: bytes) -> None:
    body = b"\x41\x00" + opcode + b"\x0b"
    with pytest.raises(WasmFormatError, match="unknown"):
        func_refs(body, 0, len(body))


def test_encoded_module_validates() -> None:
    m = Module(
        types=[FuncType((I32, I64), (I32,))],
        funcs=[0],
        exports=[Export("f", KIND_FUNC, 0)],
        codes=[Code(((1, I32),), b"\x20\x00\x20\x01\xa7\x6a\x22\x02\x0b")],
    )
    raw = encode(m)
    wasmtime.Module.validate(ENGINE, raw)
    assert decode(raw) == m


C_SOURCE = r"""
typedef int (*cmp)(int, int);
static int lt(int a, int b) { return a < b; }
static int gt(int a, int b) { return a > b; }
static cmp table[2] = {lt, gt};
extern int gen_eval(int);
int pick(int i, int a, int b) { return table[i & 1](a, b); }
void copy(char *d, const char *s, unsigned n) { __builtin_memcpy(d, s, n); }
long long conv(double x) { return (long long)x; }
int sx(int x) { return (signed char)x; }
int call(int x) { return gen_eval(x) + pick(x, 1, 2); }
"""


@pytest.mark.parametrize("cpu", ["mvp", "generic"])
def test_roundtrip_and_walk_clang_output(tmp_path: Path, cpu: str) -> None:
    """A module as the pinned zig/clang emits it (padded LEBs, tables, bulk memory on
    `generic`) decodes, re-encodes byte-identically and its calls are all found."""
    src, out = tmp_path / "t.c", tmp_path / "t.wasm"
    src.write_text(C_SOURCE)
    cmd = [sys.executable, "-m", "ziglang", "cc", "--target=wasm32-freestanding", f"-mcpu={cpu}", "-O2", "-g0",
           "-nostdlib", "-Wl,--no-entry", "-Wl,--import-memory", "-Wl,--import-symbols", "-Wl,--export=pick",
           "-Wl,--export=copy", "-Wl,--export=conv", "-Wl,--export=sx", "-Wl,--export=call",
           "-Wl,--export=__heap_base", "-o", str(out), str(src)]  # fmt: skip
    subprocess.run(cmd, check=True, capture_output=True)
    raw = out.read_bytes()
    m = decode(raw)
    assert encode(m) == raw
    assert m.elements and m.elements[0].funcs  # lt/gt in the table
    calls = [t for c in m.codes for _, _, t in func_refs(c.body, 0, len(c.body))]
    gen_eval = next(i for i, imp in enumerate(m.imported(KIND_FUNC)) if imp.name == "gen_eval")
    assert gen_eval in calls
