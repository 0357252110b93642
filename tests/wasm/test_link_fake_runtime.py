"""Codegen + linker against the fake runtime: every suite plan links into a module that
wasmtime validates, with exactly OPA's ABI imports/exports, tree-shaken and deterministic."""

from __future__ import annotations

import wasmtime

from cupcake_py import ir
from cupcake_py.wasm import abi, codegen
from cupcake_py.wasm.asm import FuncRef
from cupcake_py.wasm.linker import analyse_runtime, compile_with_runtime
from cupcake_py.wasm.module import KIND_FUNC, KIND_GLOBAL, decode
from tests.ir.suite import plans
from tests.wasm import fake_runtime

ENGINE = wasmtime.Engine()
EXPECTED_EXPORTS = ["memory", "eval", "builtins", "entrypoints", *abi.ABI_EXPORTS,
                    "opa_wasm_abi_version", "opa_wasm_abi_minor_version"]  # fmt: skip


def small_policy() -> ir.Policy:
    """Calls a native builtin (count), two host builtins (sprintf, units.parse) and a rule Func."""
    decl1 = {"type": "function", "args": [{"type": "any"}], "result": {"type": "number"}}
    decl2 = {"type": "function", "args": [{"type": "string"}, {"type": "any"}], "result": {"type": "string"}}
    L = ir.Local
    rule = ir.Func("g0.data.p.r", (0, 1), 2, (
        ir.Block((ir.CallStmt("count", (L(0),), 3), ir.AssignVarOnceStmt(L(3), 2))),
        ir.Block((ir.ReturnLocalStmt(2),)),
    ), ("g0", "p", "r"))
    plan = ir.Plan("p/r", (ir.Block((
        ir.CallStmt("g0.data.p.r", (L(0), L(1)), 2),
        ir.CallStmt("units.parse", (L(2),), 3),
        ir.CallStmt("sprintf", (ir.StringIndex(0), L(3)), 4),
        ir.MakeObjectStmt(5),
        ir.ObjectInsertStmt(ir.StringIndex(1), L(4), 5),
        ir.ResultSetAddStmt(5),
    )),))
    static = ir.Static(("%v", "result"), (ir.BuiltinFunc("count", decl1), ir.BuiltinFunc("sprintf", decl2),
                                        ir.BuiltinFunc("units.parse", decl1)), ("policy.rego",))
    return ir.Policy(static, (plan,), (rule,))  # fmt: skip


def test_suite_plans_link_and_validate() -> None:
    rt = fake_runtime.build()
    for note, plan in plans()[::5]:
        raw = compile_with_runtime(ir.load(plan), rt)
        wasmtime.Module.validate(ENGINE, raw)  # raises on an invalid module
        m = decode(raw)
        assert [e.name for e in m.exports] == EXPECTED_EXPORTS, note


def test_imports_exports_globals_and_tree_shaking() -> None:
    rt_bytes = fake_runtime.build()
    policy = small_policy()
    m = decode(compile_with_runtime(policy, rt_bytes))
    assert [(i.module, i.name) for i in m.imports] == [
        ("env", f"opa_builtin{n}") for n in range(5)
    ] + [("env", "opa_abort"), ("env", "memory")]  # opa_println only reachable from dead code
    mem = m.imports[-1].desc
    assert mem.min == 2  # the data segment lies after __heap_base = 70000
    wasm = wasmtime.Module(ENGINE, encode_check := compile_with_runtime(policy, rt_bytes))
    assert {e.name for e in wasm.exports} == set(EXPECTED_EXPORTS)
    # ABI version globals
    store = wasmtime.Store(ENGINE)
    linker = wasmtime.Linker(ENGINE)
    linker.allow_shadowing = True
    linker.define(store, "env", "memory", wasmtime.Memory(store, wasmtime.MemoryType(wasmtime.Limits(2, None))))
    i32 = wasmtime.ValType.i32()
    for n in range(5):
        linker.define_func("env", f"opa_builtin{n}", wasmtime.FuncType([i32] * (n + 2), [i32]), lambda *a: 0)
    linker.define_func("env", "opa_abort", wasmtime.FuncType([i32], []), lambda a: None)
    inst = linker.instantiate(store, wasm)  # runs the start function (fake opa_rt_init)
    ex = inst.exports(store)
    assert ex["opa_wasm_abi_version"].value(store) == 1
    assert ex["opa_wasm_abi_minor_version"].value(store) == 3
    # dead runtime functions are gone: the fake runtime has 3 + len(RUNTIME_CALLS) + len(ABI_EXPORTS) + 2
    # defined functions; dead_internal, dead_exported and the unused native are dropped
    rt = analyse_runtime(rt_bytes)
    gen = codegen.generate(policy, rt.info)
    used = {p.symbol for f in gen.funcs for p in f.body if isinstance(p, FuncRef) and p.symbol.startswith("rt:")}
    assert "rt:opa_bi_count" in used and "rt:opa_bi_plus" not in used
    kept_rt = len(m.funcs) - len(gen.funcs)
    assert kept_rt == len(set(abi.ABI_EXPORTS) | {s[3:] for s in used}) + 1  # + helper_used
    assert gen.host_builtins == {"sprintf": 1, "units.parse": 2}  # ids: index in the sorted list
    assert "dead_exported" not in {e.name for e in m.exports if e.kind == KIND_FUNC}
    assert encode_check == compile_with_runtime(policy, rt_bytes)


def test_println_kept_only_when_reachable() -> None:
    # a runtime whose opa_free calls opa_println: then it must be imported
    from cupcake_py.wasm import leb
    from cupcake_py.wasm.module import Code, encode

    m = decode(fake_runtime.build())
    free_idx = next(e.index for e in m.exports if e.name == "opa_free") - 3
    m.codes[free_idx] = Code((), b"\x20\x00\x10" + leb.u32(1) + b"\x0b")  # call opa_println
    policy = ir.load(plans()[0][1])
    out = decode(compile_with_runtime(policy, encode(m)))
    assert ("env", "opa_println") in [(i.module, i.name) for i in out.imports]
    wasmtime.Module.validate(ENGINE, encode(out))


def test_abi_global_kinds() -> None:
    m = decode(compile_with_runtime(ir.load(plans()[0][1]), fake_runtime.build()))
    kinds = {e.name: e.kind for e in m.exports}
    assert kinds["opa_wasm_abi_version"] == kinds["opa_wasm_abi_minor_version"] == KIND_GLOBAL
