"""A tiny stand-in for runtime.wasm, built with our own encoder: it has the imports and
exports the linker expects (function bodies are trivial), plus functions that exist to
check tree shaking and index renumbering."""

from __future__ import annotations

from cupcake_py.wasm import abi, leb
from cupcake_py.wasm.module import (
    I32,
    I64,
    KIND_FUNC,
    KIND_GLOBAL,
    KIND_MEMORY,
    VALTYPE_CODES,
    Code,
    Data,
    Export,
    FuncType,
    Global,
    GlobalType,
    Import,
    Limits,
    Module,
    encode,
)

HEAP_BASE = 70_000  # > 1 page, so the generated data forces a 2-page memory minimum

# defined functions: name -> (type, body without the final `end`, exported)
_CALL = 0x10


def _ret_zero(t: FuncType) -> bytes:
    return b"\x41\x00" if t.results else b""


def build(natives: tuple[str, ...] = ("opa_bi_count", "opa_bi_plus")) -> bytes:
    imports = [
        Import("env", "memory", KIND_MEMORY, Limits(1)),
        Import("env", "opa_abort", KIND_FUNC, 0),
        Import("env", "opa_println", KIND_FUNC, 0),
        Import("env", "gen_eval", KIND_FUNC, 1),
    ]
    types = [FuncType((I32,), ()), FuncType((I32,), (I32,))]
    abort, println, gen_eval = 0, 1, 2
    defs: list[tuple[str, FuncType, bytes, bool]] = []

    def add(name: str, t: FuncType, body: bytes | None = None, export: bool = True) -> int:
        defs.append((name, t, _ret_zero(t) if body is None else body, export))
        return 3 + len(defs) - 1  # three imported functions come first

    helper = add("helper_used", FuncType((I32,), (I32,)), b"\x20\x00", export=False)
    add("dead_internal", FuncType((), ()), b"\x41\x00" + bytes([_CALL]) + leb.u32(println), export=False)
    add("dead_exported", FuncType((), ()), b"\x41\x00" + bytes([_CALL]) + leb.u32(abort), export=True)
    for name, (params, result) in abi.RUNTIME_CALLS.items():
        add(name, FuncType(tuple(VALTYPE_CODES[p] for p in params), (I32,) if result else ()))
    for name in abi.ABI_EXPORTS:
        if name == "opa_eval":  # calls the generated eval through the gen_eval import
            add(name, FuncType((I32,) * 7, (I32,)), b"\x41\x00" + bytes([_CALL]) + leb.u32(gen_eval))
        elif name == "opa_free":  # aborts through a helper chain
            add(name, FuncType((I32,), ()), b"\x20\x00" + bytes([_CALL]) + leb.u32(helper) + b"\x1a")
        else:
            add(name, FuncType((I32,), (I32,)))
    for name in natives:
        nargs = 2 if name == "opa_bi_plus" else 1
        add(name, FuncType((I32,) * nargs, (I32,)), b"\x20\x00" + bytes([_CALL]) + leb.u32(helper))
    type_index: dict[FuncType, int] = {}
    for t in types:
        type_index.setdefault(t, types.index(t))
    funcs = []
    for _, t, _, _ in defs:
        if t not in type_index:
            type_index[t] = len(types)
            types.append(t)
        funcs.append(type_index[t])
    n_imp = 3
    m = Module(
        types=types,
        imports=imports,
        funcs=funcs,
        globals=[
            Global(GlobalType(I32, True), b"\x41" + leb.s64(65536) + b"\x0b"),  # stack pointer
            Global(GlobalType(I32, False), b"\x41" + leb.s64(HEAP_BASE) + b"\x0b"),
        ],
        exports=[Export(name, KIND_FUNC, n_imp + i) for i, (name, _, _, exp) in enumerate(defs) if exp]
        + [Export(abi.HEAP_BASE_EXPORT, KIND_GLOBAL, 1)],
        codes=[Code((), body + b"\x0b") for _, _, body, _ in defs],
        datas=[Data(0, b"runtime data", b"\x41\x80\x08\x0b")],
    )
    assert I64  # i64 params appear through RUNTIME_CALLS
    return encode(m)
