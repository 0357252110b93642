"""Planning bodies and expressions: calls (builtins, functions, mocks), negation, `every`,
bare terms and `with` (input/data replacement, rule/function/builtin mocking)."""

from __future__ import annotations

from cupcake_py import ir
from cupcake_py.plan import shared_calls
from cupcake_py.plan.state import FuncCtx, Gen, K, plan_error
from cupcake_py.plan.terms import TermPlanner
from cupcake_py.rego import ast as A
from cupcake_py.rego.ast import NotBody
from cupcake_py.rego.compile import builtins as B
from cupcake_py.rego.compile.nodes import Group

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays off a first `cupcake test` run's start-up)
    from typing import cast
else:
    def cast(_type: object, value: object) -> object:  # typing.cast: the value unchanged
        return value



class ExprPlanner(TermPlanner):
    def plan_body(self, body: list[A.Expr], k: K, i: int = 0) -> None:
        # recursion through a method, not a nested function that names itself: such a closure is a
        # reference cycle holding the planner, freed only by the cyclic collector, which a bundle
        # build pauses (the whole AST and IR then stayed alive until the end of the build)
        if i == len(body):
            k()
        else:
            self.plan_expr(body[i], lambda: self.plan_body(body, k, i + 1))

    def plan_expr(self, e: A.Expr, k: K) -> None:
        self.at(e.location)
        if e.with_:
            self.plan_with(e, k)
        else:
            self.plan_plain(e, k)

    def plan_plain(self, e: A.Expr, k: K) -> None:
        t = e.terms
        if isinstance(t, NotBody):
            found = self.succeeds(t.body)
            self.at(e.location)
            self.emit(ir.IsUndefinedStmt(source=found))
            k()
        elif isinstance(t, A.Every):
            self.plan_every(t, k)
        elif isinstance(t, list):
            name = A.operator_name(t[0])
            if name == "eq":
                self.unify(t[1], t[2], k)
            else:
                self.plan_call(A.call_operator(t), t[1:], k)
        elif isinstance(t, A.Term):
            v = t.value
            if isinstance(v, A.Boolean):
                if not v.value:
                    self.emit(ir.BreakStmt(index=0))
                    return
                k()
                return
            self.plan_term(t, lambda op: self.emit_then(ir.NotEqualStmt(a=op, b=ir.Bool(False)), k))
        else:
            k()

    # ------------------------------------------------------------------ every
    def succeeds(self, body: list[A.Expr]) -> int:
        """A local that is defined (true) iff `body` has at least one solution. (NotStmt alone
        cannot express this: a scan whose bodies all fail still reaches its block's end.)"""
        found = self.new()
        self.emit(ir.ResetLocalStmt(target=found))
        blk = self.scoped(lambda: self.plan_body(
            body, lambda: self.emit(ir.AssignVarStmt(source=ir.Bool(True), target=found))))
        self.emit(ir.BlockStmt(blocks=(blk,)))
        return found

    def plan_every(self, ev: A.Every, k: K) -> None:
        def run(dom: ir.Operand) -> None:
            src = self.local_of(dom)
            # the domain must be a collection: every over a scalar is undefined
            ok = self.new()
            self.emit(ir.ResetLocalStmt(target=ok))
            self.emit(ir.BlockStmt(blocks=tuple(
                ir.Block((check(source=ir.Local(src)), ir.AssignVarStmt(source=ir.Bool(True), target=ok)))
                for check in (ir.IsArrayStmt, ir.IsObjectStmt, ir.IsSetStmt))))
            self.emit(ir.IsDefinedStmt(source=ok))
            fail = self.new()
            kl, vl = self.new(), self.new()
            self.emit(ir.ResetLocalStmt(target=fail))

            def each() -> None:
                def inner() -> None:
                    found = self.succeeds(ev.body)
                    self.emit(ir.IsUndefinedStmt(source=found))
                    self.emit(ir.AssignVarStmt(source=ir.Bool(True), target=fail))

                if ev.key is not None:
                    self.unify_value(ev.key, ir.Local(kl), lambda: self.unify_value(ev.value, ir.Local(vl), inner))
                else:
                    self.unify_value(ev.value, ir.Local(vl), inner)

            self.emit(ir.ScanStmt(source=src, key=kl, value=vl, block=self.scoped(each)))
            self.emit(ir.IsUndefinedStmt(source=fail))
            k()

        self.plan_term(ev.domain, run)

    # ------------------------------------------------------------------ calls
    def resolve_call(self, name: str) -> tuple[str, object]:
        """("builtin", name) | ("func", group) | ("slot", local) after applying mocks. A
        replacement function or builtin runs with no function mocks at all (OPA pushes an
        empty mock frame), so a mock is never applied inside another mock's replacement."""
        m = self.cur_gen.mock(name)
        if m is not None:
            kind, what = m
            if kind == "slot":
                return "slot", self.fx.slots[cast(int, what)]
            fname, bare = cast(tuple[str, int | None], what)
            if fname.startswith("data."):
                g = self.compiled.groups.get(tuple(fname.split(".")[1:]))
                if g is not None:
                    return "func", (g, bare)
            return "builtin", fname
        if name.startswith("data."):
            g = self.compiled.groups.get(tuple(name.split(".")[1:]))
            if g is not None:
                return "func", (g, None)
        return "builtin", name

    def plan_call(self, op: A.Ref, args: list[A.Term], k: K) -> None:
        name = op.dotted() or ""
        kind, what = self.resolve_call(name)
        if kind == "slot":  # a value mock: the arguments must still be defined
            arity = self._arity_of(name)
            ins, out = (args[:arity], args[arity]) if arity is not None and len(args) > arity else (args, None)
            self.plan_terms(ins, lambda _ops: self._result(ir.Local(cast(int, what)), out, k))
            return
        if kind == "func":
            g, gen = cast(tuple[Group, int | None], what)
            n = g.arity
            ins, out = (args[:n], args[n]) if len(args) > n else (args, None)
            self.plan_terms(ins, lambda ops: self._result(ir.Local(self.call_group(g, ops, gen)), out, k))
            return
        name = str(what)
        b = self.use_builtin(name)
        ins, out = (args[:b.arity], args[b.arity]) if len(args) > b.arity else (args, None)

        def call(ops: list[ir.Operand]) -> None:
            r = self.new()
            self.emit(ir.CallStmt(func=name, args=tuple(ops), result=r))
            done(r)

        def done(r: int) -> None:
            if b.void:
                k()
            elif name in B.RELATIONS and out is not None:
                kl, vl = self.new(), self.new()
                self.emit(ir.ScanStmt(source=r, key=kl, value=vl,
                                      block=self.block(lambda: self.unify_value(out, ir.Local(vl), k))))
            else:
                self._result(ir.Local(r), out, k)

        shared = self.shared_call(name, ins) if not b.void and name not in B.RELATIONS else None
        if shared is not None:
            done(shared)
            return
        self.plan_terms(ins, call)

    def shared_call(self, name: str, ins: list[A.Term]) -> int | None:
        """Call the shared function of `name(ins...)` when that pure call appears in two or
        more places of the bundle (shared_calls.py); its result local, or None (plan it
        directly)."""
        if "input" in self.fx.vars:
            return None
        key = shared_calls.call_key(name, ins)
        if key is None:
            return None
        if self.shared_counts is None:
            arity = {n: b.arity for n in shared_calls.PURE_BUILTINS if (b := B.lookup(n)) is not None}
            self.shared_counts = shared_calls.count_calls(self.compiled, arity)
        if self.shared_counts[key] < 2:
            return None
        fname = self.shared_names.get(key)
        if fname is None:
            fname = self.shared_names[key] = f"shared.{len(self.shared_names)}.{name}"
            self._plan_shared(fname, name, ins)
        r = self.new()
        self.emit(ir.CallStmt(func=fname, args=(ir.Local(0), ir.Local(1)), result=r))
        return r

    def _plan_shared(self, fname: str, name: str, ins: list[A.Term]) -> None:
        """The zero-argument (input, data) function `fname` returning `name(ins...)`."""
        saved_fx, saved_loc = self.fx, self.loc
        self.fx = FuncCtx(nlocal=2, file=saved_fx.file)
        ret = self.new()
        try:
            def call(ops: list[ir.Operand]) -> None:
                r = self.new()
                self.emit(ir.CallStmt(func=name, args=tuple(ops), result=r))
                self.emit(ir.AssignVarStmt(source=ir.Local(r), target=ret))

            body = self.block(lambda: self.plan_terms(ins, call))
            self.funcs[fname] = ir.Func(name=fname, params=(0, 1), return_=ret,
                                        blocks=(body, ir.Block((ir.ReturnLocalStmt(source=ret),))), path=())
        finally:
            self.fx, self.loc = saved_fx, saved_loc

    def _arity_of(self, name: str) -> int | None:
        if name.startswith("data."):
            g = self.compiled.groups.get(tuple(name.split(".")[1:]))
            return g.arity if g is not None else None
        b = B.lookup(name)
        return b.arity if b is not None else None

    def _result(self, r: ir.Operand, out: A.Term | None, k: K) -> None:
        if out is None:
            self.emit(ir.NotEqualStmt(a=r, b=ir.Bool(False)))
            k()
        else:
            self.unify_value(out, r, k)

    # ------------------------------------------------------------------ with
    def plan_with(self, e: A.Expr, k: K) -> None:
        """Replace input/data (WithStmt) and mock rules/functions (new generation) for `e`;
        the continuation runs with the originals restored."""
        withs = e.with_
        plain = A.Expr(e.terms, e.negated, [], e.index, e.generated, e.location)
        targets: list[tuple[int, list[str], A.Term]] = []  # (local, path, value)
        mocks: list[tuple[str, A.Term]] = []
        disabled: set[tuple[str, ...]] = set()
        for w in withs:
            ref = w.target.value
            name = ref.dotted() if isinstance(ref, A.Ref) else (ref.name if isinstance(ref, A.Var) else None)
            if name is None:
                raise plan_error("invalid with target: must be input, data, a function or a builtin", w.location)
            parts = name.split(".")
            if parts[0] == "input":
                targets.append((0, parts[1:], w.value))
            elif parts[0] == "data":
                path = tuple(parts[1:])
                g = self.compiled.groups.get(path)
                if g is not None and g.kind == "function":
                    mocks.append((name, w.value))
                else:
                    targets.append((1, parts[1:], w.value))
                    disabled.add(path)
            else:
                mocks.append((name, w.value))

        # (position, name, replacement): a later `with` on the same function wins, as in OPA
        # (its mock frame is a map filled in order); every value is still evaluated
        fmocks: list[tuple[int, str, tuple[str, object]]] = []
        vmocks: list[tuple[int, str, A.Term]] = []
        bare: int | None = None  # the generation replacement functions run in: no mocks at all
        for i, (name, val) in enumerate(mocks):
            fname = self._function_name(val)
            if fname is not None:
                if bare is None:
                    bare = self.gen_id(Gen(self.cur_gen.disabled | frozenset(disabled)))
                fmocks.append((i, name, ("func", (fname, bare))))
            else:
                vmocks.append((i, name, val))

        def with_values(ops: list[ir.Operand]) -> None:
            saved_gen = self.gen
            saved_slots = self.fx.slots
            gen = self.cur_gen
            replaced = list(fmocks)
            slots = list(self.fx.slots)
            for (i, name, _val), op in zip(vmocks, ops[len(targets):], strict=True):
                slots.append(self.local_of(op))
                replaced.append((i, name, ("slot", len(slots) - 1)))
            last = {name: r for _, name, r in sorted(replaced, key=lambda m: m[0])}
            new_mocks = [m for m in gen.mocks if m[0] not in last] + list(last.items())
            if mocks or disabled:
                ng = Gen(gen.disabled | frozenset(disabled), tuple(sorted(new_mocks, key=lambda m: m[0])),
                         len(slots))
                self.gen = self.gen_id(ng)
                self.fx.slots = tuple(slots)
            saved = [(loc, self.copy_local(loc)) for loc in sorted({t[0] for t in targets})]

            def restore() -> None:
                self.gen = saved_gen
                self.fx.slots = saved_slots
                self._nest_with([(loc, [], ir.Local(orig)) for loc, orig in saved], k)

            self._nest_with([(loc, path, op) for (loc, path, _), op in zip(targets, ops, strict=False)],
                            lambda: self.plan_plain(plain, restore))

        self.plan_terms([t[2] for t in targets] + [v for _, _, v in vmocks], with_values)

    def copy_local(self, loc: int) -> int:
        r = self.new()
        self.emit(ir.AssignVarStmt(source=ir.Local(loc), target=r))
        return r

    def _function_name(self, val: A.Term) -> str | None:
        """The function a `with` value names (user function or builtin), else None (a value)."""
        vv = val.value
        name = vv.dotted() if isinstance(vv, A.Ref) else (vv.name if isinstance(vv, A.Var) else None)
        if name is None or name in self.fx.vars:
            return None
        if name.startswith("data."):
            g = self.compiled.groups.get(tuple(name.split(".")[1:]))
            return name if g is not None and g.kind == "function" else None
        return name if B.lookup(name) is not None else None

    def _nest_with(self, items: list[tuple[int, list[str], ir.Operand]], k: K) -> None:
        if not items:
            k()
            return
        loc, path, op = items[0]
        blk = self.block(lambda: self._nest_with(items[1:], k))
        self.emit(ir.WithStmt(local=loc, path=tuple(self.string(p) for p in path), value=op, block=blk))
