"""IR the code generator must reject, with a located message (fake runtime: no wasm runs)."""

from __future__ import annotations

import pytest

from cupcake_py import ir
from cupcake_py.wasm.errors import CodegenError
from cupcake_py.wasm.linker import compile_with_runtime
from tests.wasm import fake_runtime

L, S = ir.Local, ir.StringIndex
RT = fake_runtime.build()


def _compile(*stmts: ir.Stmt, funcs: tuple[ir.Func, ...] = ()) -> bytes:
    static = ir.Static(("result", "x"), (), ("a.rego",))
    return compile_with_runtime(ir.Policy(static, (ir.Plan("p", (ir.Block(stmts),)),), funcs), RT)


def _func(name: str, path: tuple[str, ...], *stmts: ir.Stmt) -> ir.Func:
    return ir.Func(name, (0, 1), 2, (ir.Block(stmts), ir.Block((ir.ReturnLocalStmt(2),))), path)


@pytest.mark.parametrize(
    ("stmts", "message"),
    [
        ((ir.BreakStmt(1, file=0, row=4, col=2),), r"^a.rego:4:2: break 1 leaves more blocks than are open \(1\)"),
        ((ir.WithStmt(0, (), ir.Bool(True), ir.Block((ir.BreakStmt(1, row=2, col=1),))),),
         r"^a.rego:2:1: break 1 leaves a with body without restoring it"),
        ((ir.ReturnLocalStmt(2, row=9, col=9),), r"^a.rego:9:9: ReturnLocalStmt inside a plan"),
        ((ir.AssignVarStmt(S(7), 2, row=1, col=1),), r"^a.rego:1:1: string index 7 out of range"),
        ((ir.MakeNumberRefStmt(5, 2),), r"number string index 5 out of range"),
        ((ir.CallDynamicStmt((0, 1), 2, (S(0),), row=3, col=3),),
         r"^a.rego:3:3: break 3 leaves more blocks than are open"),
        ((ir.CallDynamicStmt((0,), 2, (S(0),)),), r"CallDynamicStmt with 1 arguments"),
    ],
)  # fmt: skip
def test_rejected_statements(stmts: tuple[ir.Stmt, ...], message: str) -> None:
    with pytest.raises(CodegenError, match=message):
        _compile(*stmts)


def test_result_set_add_outside_a_plan() -> None:
    f = _func("g0.data.x.f", ("g0", "x", "f"), ir.ResultSetAddStmt(2, file=0, row=5, col=1))
    with pytest.raises(CodegenError, match=r"^a.rego:5:1: ResultSetAddStmt outside a plan"):
        _compile(funcs=(f,))


def test_wrong_arity_call_of_a_func() -> None:
    f = _func("g0.data.x.f", ("g0", "x", "f"))
    with pytest.raises(CodegenError, match=r"g0.data.x.f takes 2 arguments, called with 1"):
        _compile(ir.CallStmt("g0.data.x.f", (L(0),), 3), funcs=(f,))


def test_conflicting_dynamic_paths() -> None:
    dyn = ir.BlockStmt((ir.Block((ir.BlockStmt((ir.Block((ir.BlockStmt((
        ir.Block((ir.CallDynamicStmt((0, 1), 3, (S(0), L(4))), ir.BreakStmt(1))),
    )),)),)),)),))  # fmt: skip
    ok = (_func("g0.data.x.f", ("g0", "x", "f")), _func("g0.data.x.g", ("g0", "x", "g")))
    _compile(ir.BlockStmt((ir.Block((dyn,)),)), funcs=ok)  # the planner's block shape compiles
    clash = (_func("g0.data.x", ("g0", "x")), _func("g0.data.x.g", ("g0", "x", "g")))
    with pytest.raises(CodegenError, match="function path g0.x.g conflicts with another rule"):
        _compile(ir.BlockStmt((ir.Block((dyn,)),)), funcs=clash)


def test_duplicate_function_names() -> None:
    f = _func("g0.data.x.f", ("g0", "x", "f"))
    with pytest.raises(CodegenError, match="duplicate function 'g0.data.x.f'"):
        _compile(funcs=(f, f))


def test_native_builtin_with_wrong_runtime_signature() -> None:
    decl = {"type": "function", "args": [{"type": "any"}] * 3, "result": {"type": "any"}}
    static = ir.Static(("result",), (ir.BuiltinFunc("count", decl),), ("a.rego",))
    plan = ir.Plan("p", (ir.Block((ir.CallStmt("count", (L(0), L(0), L(0)), 2),)),))
    with pytest.raises(CodegenError, match="runtime export opa_bi_count has type"):
        compile_with_runtime(ir.Policy(static, (plan,)), RT)


def test_runtime_missing_a_required_export() -> None:
    from cupcake_py.wasm.module import decode, encode

    m = decode(RT)
    m.exports = [e for e in m.exports if e.name != "opa_value_iter"]
    with pytest.raises(CodegenError, match="missing export opa_value_iter"):
        compile_with_runtime(ir.Policy(ir.Static(), ()), encode(m))
