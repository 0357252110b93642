"""The planner: compiled AST -> IR Policy. Queries become plans whose result set holds one
binding object per solution (one key per non-generated query variable); entrypoints are the
query `result = data.<path>`."""

from __future__ import annotations

import _thread
import sys
from collections.abc import Callable, Sequence

from cupcake_py import ir
from cupcake_py.plan.rules import RulePlanner
from cupcake_py.plan.state import FuncCtx
from cupcake_py.rego import ast as A
from cupcake_py.rego.compile.compiler import compile_query as compile_query_body
from cupcake_py.rego.compile.nodes import Compiled
from cupcake_py.rego.compile.walk import is_generated, vars_shallow
from cupcake_py.rego.errors import COMPILE, RegoError, RegoErrors

_STACK_BYTES = 256 << 20  # address space reserved for the planning thread; pages are used as touched
_RECURSION = 400_000
TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays off a first `cupcake test` run's start-up)
    from typing import TypeVar

    T = TypeVar("T")


def _on_deep_stack(fn: Callable[[], T]) -> T:
    """Run `fn` (planning) on a thread with a large stack and recursion limit.

    The planner plans terms and expressions in continuation-passing style, so its depth grows
    with the number of terms of one expression or collection (a 6000-element array of refs,
    a large schema literal written as one term). Plain literals are planned in a loop
    (`TermPlanner.plan_terms`); everything else gets this stack. Errors propagate unchanged."""
    box: list[T] = []
    err: list[BaseException] = []
    done = _thread.allocate_lock()  # (the low-level module: threading stays off a first run's imports)
    done.acquire()

    def run() -> None:
        try:
            box.append(fn())
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            err.append(e)
        finally:
            done.release()

    old_limit, old_size = sys.getrecursionlimit(), _thread.stack_size()
    sys.setrecursionlimit(max(old_limit, _RECURSION))
    try:
        try:
            _thread.stack_size(_STACK_BYTES)
            # a thread the interpreter never waits for at exit: a signal that ends the caller (a
            # deadline) must not wait for planning
            _thread.start_new_thread(run, ())
        except (RuntimeError, ValueError, MemoryError):  # no room for the stack: plan here
            sys.setrecursionlimit(max(old_limit, 20_000))
            run()
        done.acquire()
    finally:
        _thread.stack_size(old_size)
        sys.setrecursionlimit(old_limit)
    if err:
        raise err[0]
    return box[0]


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
    plan = _on_deep_stack(lambda: p.plan_query(entrypoint, cbody, names))
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
    plans = _on_deep_stack(lambda: [p.plan_query(name, cbody, ["result"]) for name, cbody in queries])
    return p.policy(plans)
