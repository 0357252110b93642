"""End to end: IR → module (real runtime.wasm) → wasmtime, through OPA's fast path.

Suite cases are picked deterministically: for every statement type the first cases that
use it, every CallDynamic case, and a share of the with/conflict cases; only cases whose
builtins are all native (host builtins answer undefined in this minimal helper)."""

from __future__ import annotations

import json
from decimal import Decimal
from functools import cache
from typing import Any

import pytest

from cupcake_py import ir
from cupcake_py.wasm import CodegenError, abi, compile_policy
from cupcake_py.wasm.linker import analyse_runtime
from cupcake_py.wasm.module import KIND_FUNC, KIND_MEMORY, decode
from cupcake_py.wasm.runtime import load_runtime_bytes
from tests.ir.suite import SUITE
from tests.wasm.e2e import Aborted, Instance

L, S = ir.Local, ir.StringIndex


@cache
def _native_cases() -> tuple[dict[str, Any], ...]:
    rt = analyse_runtime(load_runtime_bytes())
    out = []
    for path in sorted(SUITE.rglob("*.json")):
        for case in json.loads(path.read_text())["cases"]:
            names = [b["name"] for b in case["plan"]["static"].get("builtin_funcs") or ()]
            if case.get("strict_error") or any(abi.native_symbol(n) not in rt.exports for n in names):
                continue
            if case.get("want_error_code") not in (None, "eval_conflict_error"):
                continue
            if case["note"] in ("data/toplevel integer", "data/nested integer"):  # skipped by OPA too
                continue
            out.append(case)
    return tuple(out)


def _selected() -> list[dict[str, Any]]:
    cases = _native_cases()
    texts = [json.dumps(c["plan"]) for c in cases]
    picked: dict[int, dict[str, Any]] = {}
    markers = [(f'"{stmt.__name__}"', 2) for stmt in ir.STATEMENTS] + [('"CallDynamicStmt"', 99), ('"WithStmt"', 12)]
    for marker, limit in markers:
        for c in [c for c, t in zip(cases, texts, strict=True) if marker in t][:limit]:
            picked[id(c)] = c
    for c in [c for c in cases if c.get("want_error_code")][:10]:
        picked[id(c)] = c
    return sorted(picked.values(), key=lambda c: c["note"])


def _norm(v: Any) -> Any:
    """JSON values compared as Rego values: numbers by value."""
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return v
    if isinstance(v, int | float):
        return Decimal(str(v)).normalize()
    if isinstance(v, list):
        return tuple(_norm(x) for x in v)
    return tuple(sorted((k, _norm(x)) for k, x in v.items()))


def _bindings(case: dict[str, Any], rows: list[dict[str, Any]]) -> set[Any]:
    out = set()
    for row in rows:
        if case.get("ignore_generated_vars"):
            row = {k: v for k, v in row.items() if not k.startswith("__")}
        if case.get("sort_bindings"):
            row = {k: sorted(v, key=json.dumps) if isinstance(v, list) else v for k, v in row.items()}
        out.add(_norm(row))
    return out


@pytest.mark.parametrize("case", _selected(), ids=lambda c: c["note"])
def test_suite_case_end_to_end(case: dict[str, Any]) -> None:
    inst = Instance(compile_policy(ir.load(case["plan"])))
    assert inst.dump(inst.call("entrypoints")) == {"eval": 0}
    data = inst.load_data(case.get("data", {}))
    input_text = json.dumps(case["input"]) if "input" in case else case.get("input_term")
    if case.get("want_error_code"):
        with pytest.raises(Aborted) as err:
            inst.eval(data, input_text)
        assert "conflict" in str(err.value)
        assert str(err.value).startswith("module-") or str(err.value).startswith("<query>")
        return
    got = inst.eval(data, input_text)
    if "want_result" in case:
        assert _bindings(case, got) == _bindings(case, case["want_result"])
    else:
        assert bool(got) == case["want_defined"]


def test_selection_covers_every_statement_but_nop() -> None:
    text = "".join(json.dumps(c["plan"]) for c in _selected())
    missing = [s.__name__ for s in ir.STATEMENTS if f'"{s.__name__}"' not in text]
    assert missing == ["NopStmt"]


# ------------------------------------------------------------------- handmade policies

DECL1 = {"type": "function", "args": [{"type": "any"}], "result": {"type": "any"}}
VOID1 = {"type": "function", "args": [{"type": "any"}]}
DECL4 = {"type": "function", "args": [{"type": "any"}] * 4, "result": {"type": "any"}}


def _policy(plans: list[ir.Plan], funcs: tuple[ir.Func, ...] = (), builtins: tuple[ir.BuiltinFunc, ...] = (),
            strings: tuple[str, ...] = ("result", "x", "y")) -> ir.Policy:  # fmt: skip
    return ir.Policy(ir.Static(strings, builtins, ("policy.rego",)), tuple(plans), funcs)


def _result_plan(name: str, *stmts: ir.Stmt, value: int = 2) -> ir.Plan:
    """stmts compute L<value>; the plan adds {"result": L<value>}."""
    tail = (ir.MakeObjectStmt(99), ir.ObjectInsertStmt(S(0), L(value), 99), ir.ResultSetAddStmt(99))
    return ir.Plan(name, (ir.Block((*stmts, *tail)),))


def test_host_builtins_sparse_ids_void_and_four_args() -> None:
    builtins = (
        ir.BuiltinFunc("count", DECL1),  # native: id 0 is not exported
        ir.BuiltinFunc("custom.quad", DECL4),
        ir.BuiltinFunc("custom.twice", DECL1),
        ir.BuiltinFunc("internal.print", VOID1),
    )
    plan = _result_plan(
        "p",
        ir.DotStmt(L(0), S(1), 3),
        ir.CallStmt("internal.print", (L(3),), 4),  # void: result dropped, never undefined
        ir.CallStmt("custom.twice", (L(3),), 5),
        ir.CallStmt("custom.quad", (L(5), L(5), ir.Bool(True), S(2)), 2),
    )
    host = {"custom.twice": lambda v: v * 2 if isinstance(v, int) else None, "custom.quad": lambda a, b, c, d: [a + b, c, d]}
    inst = Instance(compile_policy(_policy([plan], builtins=builtins)), host)
    assert inst.dump(inst.call("builtins")) == {"custom.quad": 1, "custom.twice": 2, "internal.print": 3}
    data = inst.load_data({})
    assert inst.eval(data, '{"x": 5}') == [{"result": [20, True, "y"]}]
    assert [name for name, _ in inst.host_calls] == ["internal.print", "custom.twice", "custom.quad"]
    assert inst.host_calls[0][1] == [5]
    assert inst.eval(data, '{"x": "a"}') == []  # twice answers undefined (0): the expression is undefined
    assert inst.host_calls[-1] == ("custom.twice", ["a"])
    calls = len(inst.host_calls)
    assert inst.eval(data, "{}") == [] and len(inst.host_calls) == calls  # input.x undefined: no calls


def test_too_many_builtin_args_is_a_compile_error() -> None:
    decl5 = {"type": "function", "args": [{"type": "any"}] * 5, "result": {"type": "any"}}
    stmt = ir.CallStmt("custom.five", tuple(ir.Bool(True) for _ in range(5)), 2, file=0, row=3, col=7)
    policy = _policy([_result_plan("p", stmt)], builtins=(ir.BuiltinFunc("custom.five", decl5),))
    with pytest.raises(CodegenError, match=r"policy.rego:3:7: too many built-in call arguments"):
        compile_policy(policy)


def test_unknown_function_is_a_compile_error() -> None:
    policy = _policy([_result_plan("p", ir.CallStmt("nope", (), 2, file=0, row=1, col=2))])
    with pytest.raises(CodegenError, match=r"policy.rego:1:2: call of unknown function or builtin 'nope'"):
        compile_policy(policy)


def test_conflict_abort_carries_location_and_traps() -> None:
    plan = _result_plan(
        "p",
        ir.AssignVarOnceStmt(ir.Bool(True), 2),
        ir.AssignVarOnceStmt(ir.Bool(True), 2),  # same value: fine
        ir.AssignVarOnceStmt(S(1), 2, file=0, row=6, col=3),
    )
    inst = Instance(compile_policy(_policy([plan])))
    with pytest.raises(Aborted, match=r"^policy.rego:6:3: var assignment conflict$"):
        inst.eval(inst.load_data({}))


def test_object_insert_once_conflict() -> None:
    plan = _result_plan(
        "p",
        ir.MakeObjectStmt(2),
        ir.ObjectInsertOnceStmt(S(1), ir.Bool(True), 2),
        ir.ObjectInsertOnceStmt(S(1), ir.Bool(True), 2),
        ir.ObjectInsertOnceStmt(S(1), ir.Bool(False), 2, file=0, row=2, col=1),
    )
    inst = Instance(compile_policy(_policy([plan])))
    with pytest.raises(Aborted, match=r"^policy.rego:2:1: object insert conflict$"):
        inst.eval(inst.load_data({}))


def test_entrypoints_and_illegal_entrypoint() -> None:
    plans = [_result_plan("a/b", ir.AssignVarStmt(S(1), 2)), _result_plan("c", ir.AssignVarStmt(S(2), 2))]
    inst = Instance(compile_policy(_policy(plans)))
    assert inst.dump(inst.call("entrypoints")) == {"a/b": 0, "c": 1}
    data = inst.load_data({})
    assert inst.eval(data, entrypoint=0) == [{"result": "x"}]
    assert inst.eval(data, entrypoint=1) == [{"result": "y"}]
    with pytest.raises(Aborted, match="internal: illegal entrypoint id"):
        inst.eval(data, entrypoint=2)


def test_with_replaces_nested_path_on_a_copy_and_restores() -> None:
    """with input.x.y as true: the original input is untouched and restored afterwards;
    a memoized rule sees the replaced input inside the with and the original outside."""
    rule = ir.Func("g0.data.p.r", (0, 1), 2, (
        ir.Block((ir.DotStmt(L(0), S(1), 3), ir.AssignVarOnceStmt(L(3), 2))),
        ir.Block((ir.ReturnLocalStmt(2),)),
    ), ("g0", "p", "r"))  # fmt: skip
    plan = _result_plan(
        "p",
        ir.CallStmt("g0.data.p.r", (L(0), L(1)), 5),  # memoized: input.x before the with
        ir.WithStmt(0, (1, 2), ir.Bool(True), ir.Block((
            ir.CallStmt("g0.data.p.r", (L(0), L(1)), 6),
            ir.AssignVarStmt(L(0), 7),
        ))),
        ir.CallStmt("g0.data.p.r", (L(0), L(1)), 8),  # memoized again after the with
        ir.MakeArrayStmt(4, 2),
        ir.ArrayAppendStmt(2, L(5)), ir.ArrayAppendStmt(2, L(6)), ir.ArrayAppendStmt(2, L(7)),
        ir.ArrayAppendStmt(2, L(0)), ir.ArrayAppendStmt(2, L(8)),
    )  # fmt: skip
    inst = Instance(compile_policy(_policy([plan], (rule,))))
    got = inst.eval(inst.load_data({}), '{"x": {"z": 1}}')
    assert got == [{"result": [{"z": 1}, {"z": 1, "y": True}, {"x": {"z": 1, "y": True}}, {"x": {"z": 1}},
                               {"z": 1}]}]  # fmt: skip


def test_not_scan_break_semantics() -> None:
    """Scan over [1,2,3]: a Not inside skips 2; Break 0 inside a nested block continues the loop."""
    body = ir.Block((
        ir.NotStmt(ir.Block((ir.EqualStmt(L(6), L(11)),))),
        ir.BlockStmt((ir.Block((ir.EqualStmt(L(6), L(12)), ir.BreakStmt(1))),)),  # 3 → continue loop
        ir.ArrayAppendStmt(2, L(6)),
    ))  # fmt: skip
    plan = _result_plan(
        "p",
        ir.MakeArrayStmt(3, 4),
        *(s for i in (3, 4, 5) for s in (ir.MakeNumberRefStmt(i, 7 + i), ir.ArrayAppendStmt(4, L(7 + i)))),
        ir.MakeArrayStmt(0, 2),
        ir.ScanStmt(4, 5, 6, body),
    )
    inst = Instance(compile_policy(_policy([plan], strings=("result", "x", "y", "1", "2", "3"))))
    assert inst.eval(inst.load_data({})) == [{"result": [1]}]


def test_real_runtime_module_shape_and_determinism() -> None:
    case = next(c for c in _native_cases() if '"CallDynamicStmt"' in json.dumps(c["plan"]))
    a = compile_policy(ir.load(case["plan"]))
    b = compile_policy(ir.load(json.loads(json.dumps(case["plan"]))))
    assert a == b
    m = decode(a)
    assert [i.name for i in m.imports] == [*abi.HOST_BUILTIN_IMPORTS, "opa_abort", "memory"]
    assert m.imports[-1].kind == KIND_MEMORY
    exports = [e.name for e in m.exports]
    assert exports == ["memory", "eval", "builtins", "entrypoints", *abi.ABI_EXPORTS, *abi.EXTENSION_EXPORTS,
                       "opa_wasm_abi_version", "opa_wasm_abi_minor_version"]  # fmt: skip
    rt = analyse_runtime(load_runtime_bytes())
    assert len(m.funcs) < len(rt.module.funcs)  # unreachable runtime code was dropped
    assert m.tables and m.elements  # CallDynamic targets live in the table
    assert all(e.kind != KIND_FUNC or e.index >= 6 for e in m.exports)  # only generated/runtime code
