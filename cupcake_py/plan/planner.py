"""The planner: compiled AST -> IR Policy. Queries become plans whose result set holds one
binding object per solution (one key per non-generated query variable); entrypoints are the
query `result = data.<path>`."""

from __future__ import annotations

from collections.abc import Sequence

from cupcake_py import ir
from cupcake_py.core.deep_stack import on_deep_stack
from cupcake_py.plan.rules import RulePlanner
from cupcake_py.plan.state import FuncCtx
from cupcake_py.rego import ast as A
from cupcake_py.rego.compile.compiler import compile_query as compile_query_body
from cupcake_py.rego.compile.nodes import Compiled
from cupcake_py.rego.compile.walk import is_generated, vars_shallow
from cupcake_py.rego.errors import COMPILE, RegoError, RegoErrors


def query_vars(body: list[A.Expr]) -> list[str]:
    """Non-generated vars of a query in order of first appearance."""
    out: list[str] = []
    for e in body:
        t = e.terms
        terms = t[1:] if isinstance(t, list) else [t] if isinstance(t, A.Term) else []
        for x in terms:
            for name in _ordered_vars(x):
                if name not in out and not is_generated(name):
                    out.append(name)
    return out


def _ordered_vars(t: A.Term) -> list[str]:
    v = t.value
    if isinstance(v, A.Var):
        return [v.name] if v.name not in ("data", "input") else []
    names = vars_shallow(t, set())
    return sorted(names)


class Planner(RulePlanner):
    def plan_query(self, name: str, body: list[A.Expr], names: list[str]) -> ir.Plan:
        self.fx = FuncCtx()
        self.gen = 0

        def result() -> None:
            obj = self.new()
            self.emit(ir.MakeObjectStmt(target=obj))
            for n in names:
                if n in self.fx.vars:
                    self.emit(ir.ObjectInsertStmt(key=ir.StringIndex(self.string(n)),
                                                  value=ir.Local(self.fx.vars[n]), object=obj))
            self.emit(ir.ResultSetAddStmt(value=obj))

        blk = self.block(lambda: self.plan_body(body, result))
        return ir.Plan(name=name, blocks=(blk,))

    def policy(self, plans: list[ir.Plan]) -> ir.Policy:
        strings = tuple(sorted(self.strings, key=self.strings.__getitem__))
        files = tuple(sorted(self.files, key=self.files.__getitem__))
        builtins = tuple(ir.BuiltinFunc(n, self.use_builtin(n).decl) for n in sorted(self.builtins))
        funcs = tuple(f for f in self.funcs.values() if f is not None)
        return ir.Policy(ir.Static(strings, builtins, files), tuple(plans), funcs)


def _parse(modules: Sequence[str | A.Module]) -> list[A.Module]:
    from cupcake_py.rego import parse_module

    out: list[A.Module] = []
    for i, m in enumerate(modules):
        out.append(m if isinstance(m, A.Module) else parse_module(m, f"module-{i}.rego"))
    return out


def _compile(modules: Sequence[str | A.Module]) -> Compiled:
    from cupcake_py.rego.compile import compile_modules

    return compile_modules(_parse(modules))


def compile_query(modules: Sequence[str | A.Module], query: str | list[A.Expr], entrypoint: str = "eval") -> ir.Policy:
    """Plan `query` (text, or an already parsed body) over `modules` as the single plan
    `entrypoint` (OPA's compliance setup; `cupcake query`)."""
    from cupcake_py.rego import parse_query

    compiled = _compile(modules)
    body = parse_query(query) if isinstance(query, str) else query
    names = query_vars(body)
    cbody = compile_query_body(body, compiled)
    p = Planner(compiled)
    p.file("<query>")
    plan = on_deep_stack(lambda: p.plan_query(entrypoint, cbody, names))
    return p.policy([plan])


def compile_entrypoints(modules: Sequence[str | A.Module], entrypoints: Sequence[str] = (),
                        compiled: Compiled | None = None) -> ir.Policy:
    """One plan per entrypoint `pkg/rule` (query `result = data.pkg.rule`), plus every rule
    annotated `entrypoint: true` when `entrypoints` is empty."""
    compiled = compiled or _compile(modules)
    eps = [e.strip("/") for e in entrypoints] or ["/".join(p) for p in compiled.entrypoints]
    if not eps:
        raise RegoErrors([RegoError(COMPILE, "no entrypoints: pass -e pkg/rule or annotate a rule with "
                                             "`entrypoint: true`", None)])
    p = Planner(compiled)
    queries: list[tuple[str, list[A.Expr]]] = []
    for ep in eps:
        parts = [x for x in ep.replace(".", "/").split("/") if x]
        if parts and parts[0] == "data":
            parts = parts[1:]
        ref = A.Ref([A.var_term("data")] + [A.string_term(x) for x in parts])
        body = [A.Expr([A.Term(A.ref_of("eq")), A.var_term("result"), A.Term(ref)])]
        queries.append(("/".join(parts), compile_query_body(body, compiled)))
    plans = on_deep_stack(lambda: [p.plan_query(name, cbody, ["result"]) for name, cbody in queries])
    return p.policy(plans)
