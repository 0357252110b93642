"""Planning rule groups as IR functions: complete rules (+ else, default), functions,
partial sets, and object documents (partial objects and ref heads).

A group with more than SPLIT_AT rules is split so that every IR function (and so every WASM
function) stays small enough for wasmtime (which rejects a function with more than 50,000
locals, or a body over ~7.6 MB) and cheap for its register allocator: the rules go into chunk
functions `<name>#<i>` of at most CHUNK_RULES rules or CHUNK_LOCALS locals each. A set or
object chunk adds to the document it is passed as its last argument; a complete-rule chunk
returns its value, which the group function assigns once (so conflicts between chunks are
detected as between rules). Chunk functions have no path: they are never a data document.
Groups up to SPLIT_AT rules are planned exactly as before (one function)."""

from __future__ import annotations

from cupcake_py import ir
from cupcake_py.plan.exprs import ExprPlanner
from cupcake_py.plan.state import FuncCtx, K
from cupcake_py.rego.compile.nodes import CRule, Group

SPLIT_AT = 256
CHUNK_RULES = 128
CHUNK_LOCALS = 8192


class RulePlanner(ExprPlanner):
    def func_name(self, g: Group) -> str:
        return f"g{self.gen}.{g.name}"

    def call_group(self, g: Group, args: list[ir.Operand], gen: int | None = None) -> int:
        """Call the function of group `g` planned in generation `gen` (default: the current)."""
        cur = self.gen
        if gen is not None and gen != cur:
            self.gen = gen
        try:
            name = self.func_name(g)
            if name not in self.funcs:
                self.plan_group(g, name)
            slots = self.fx.slots[:self.cur_gen.slots]
        finally:
            self.gen = cur
        r = self.new()
        ops = (ir.Local(0), ir.Local(1), *args, *(ir.Local(s) for s in slots))
        self.emit(ir.CallStmt(func=name, args=ops, result=r))
        return r

    # ------------------------------------------------------------------ functions
    def plan_group(self, g: Group, name: str) -> None:
        self.funcs[name] = None  # reserve (recursion is rejected by the compiler)
        saved_fx, saved_loc = self.fx, self.loc
        nargs = g.arity
        nslots = self.cur_gen.slots
        self.fx = FuncCtx(nlocal=2 + nargs + nslots)
        self.fx.slots = tuple(range(2 + nargs, 2 + nargs + nslots))
        params = tuple(range(2 + nargs + nslots))
        ret = self.new()
        try:
            blocks: list[ir.Block] = []
            plain = [r for r in g.rules if not r.default]
            defaults = [r for r in g.rules if r.default]
            if g.kind == "object":  # deeper rules first: a shallower rule whose value overlaps them then conflicts
                plain.sort(key=lambda r: -len(r.rel))
            if g.kind in ("set", "object"):
                make = ir.MakeSetStmt(target=ret) if g.kind == "set" else ir.MakeObjectStmt(target=ret)
                blocks.append(self.block(lambda: self.emit(make)))
            if len(plain) > SPLIT_AT:
                blocks.extend(self._chunks(g, name, plain, ret, nargs, params))
            else:
                for r in plain:
                    blocks.extend(self._rule_blocks(g, r, ret, nargs))
            for r in defaults if g.kind != "set" else ():
                blocks.append(self._object_rule(r, ret, default=True) if g.kind == "object" else self._default(r, ret))
            blocks.append(ir.Block((ir.ReturnLocalStmt(source=ret),)))
            self.funcs[name] = ir.Func(name=name, params=params, return_=ret, blocks=tuple(blocks),
                                       path=(f"g{self.gen}", *g.path))
        finally:
            self.fx, self.loc = saved_fx, saved_loc

    def _rule_blocks(self, g: Group, r: CRule, ret: int, nargs: int) -> list[ir.Block]:
        """The blocks of one non-default rule of `g`, adding to / assigning local `ret`."""
        if g.kind == "set":
            return [self._body_block(r, lambda: self.plan_term(
                r.key_term(), lambda op: self.emit(ir.SetAddStmt(value=op, set=ret))))]
        if g.kind == "object":
            return [self._object_rule(r, ret)]
        return self._complete_rule(r, ret, nargs)

    def _chunks(self, g: Group, name: str, plain: list[CRule], ret: int, nargs: int,
                params: tuple[int, ...]) -> list[ir.Block]:
        """Plan `plain` into chunk functions; the group function's blocks that call them."""
        outer_fx, outer_loc = self.fx, self.loc
        slots = outer_fx.slots
        partial = g.kind in ("set", "object")
        calls: list[ir.Block] = []
        i = 0
        while i < len(plain):
            chunk = f"{name}#{len(calls)}"
            nparams = len(params) + (1 if partial else 0)
            self.fx = FuncCtx(nlocal=nparams)
            self.fx.slots = slots
            acc = nparams - 1 if partial else self.new()
            body: list[ir.Block] = []
            start = i
            while i < len(plain) and i - start < CHUNK_RULES and self.fx.nlocal < CHUNK_LOCALS:
                body.extend(self._rule_blocks(g, plain[i], acc, nargs))
                i += 1
            body.append(ir.Block((ir.ReturnLocalStmt(source=acc),)))
            self.funcs[chunk] = ir.Func(name=chunk, params=tuple(range(nparams)), return_=acc, blocks=tuple(body),
                                        path=())
            self.fx, self.loc = outer_fx, outer_loc
            result = self.new()
            args = tuple(ir.Local(p) for p in params) + ((ir.Local(ret),) if partial else ())
            call = ir.CallStmt(func=chunk, args=args, result=result)
            if partial:
                calls.append(ir.Block((call,)))
            else:
                calls.append(ir.Block((call, ir.AssignVarOnceStmt(source=ir.Local(result), target=ret))))
        return calls

    def _body_block(self, r: CRule, k: K, prelude: K | None = None) -> ir.Block:
        def run() -> None:
            self.at(r.location)
            if prelude is not None:
                prelude()
            self._args(r, lambda: self.plan_body(r.body, done))

        def done() -> None:
            self.at(r.location)
            k()

        return self.scoped(run)

    def _args(self, r: CRule, k: K, i: int = 0) -> None:
        # a method, not a self-naming closure (see ExprPlanner.plan_body)
        args = r.args or []
        if i == len(args):
            k()
        else:
            self.unify_value(args[i], ir.Local(2 + i), lambda: self._args(r, k, i + 1))

    def _complete_rule(self, r: CRule, ret: int, nargs: int) -> list[ir.Block]:
        t = self.new()

        def assign(c: CRule) -> K:
            return lambda: self.plan_term(c.value_term(), lambda op: self.emit(
                ir.AssignVarOnceStmt(source=op, target=t)))

        if r.else_ is None:
            first = self._body_block(r, assign(r), lambda: self.emit(ir.ResetLocalStmt(target=t)))
        else:
            chain: list[ir.Block] = []
            c: CRule | None = r
            while c is not None:
                pre: K = (lambda: self.emit(ir.ResetLocalStmt(target=t))) if c is r else (
                    lambda: self.emit(ir.IsUndefinedStmt(source=t)))
                chain.append(self._body_block(c, assign(c), pre))
                c = c.else_
            first = ir.Block((ir.BlockStmt(blocks=tuple(chain)),))
        self.at(r.location)
        second = self.block(lambda: self.emit_all(ir.IsDefinedStmt(source=t),
                                                  ir.AssignVarOnceStmt(source=ir.Local(t), target=ret)))
        return [first, second]

    def _default(self, r: CRule, ret: int) -> ir.Block:
        def run() -> None:
            self.at(r.location)
            self.emit(ir.IsUndefinedStmt(source=ret))
            if r.args:  # default function: arguments are wildcards
                pass
            self.plan_term(r.value_term(), lambda op: self.emit(
                ir.AssignVarOnceStmt(source=op, target=ret)))

        return self.scoped(run)

    # ------------------------------------------------------------------ object documents
    def _object_rule(self, r: CRule, ret: int, default: bool = False) -> ir.Block:
        if r.else_ is not None:
            t = self.new()
            chain: list[ir.Block] = []
            c: CRule | None = r
            while c is not None:
                pre: K = (lambda: self.emit(ir.ResetLocalStmt(target=t))) if c is r else (
                    lambda: self.emit(ir.IsUndefinedStmt(source=t)))

                def assign(c: CRule = c) -> None:
                    self.plan_term(c.value_term(), lambda op: self.emit(ir.AssignVarOnceStmt(source=op, target=t)))

                chain.append(self._body_block(c, assign, pre))
                c = c.else_
            chain_stmt = ir.BlockStmt(blocks=tuple(chain))

            def run() -> None:
                self.emit(chain_stmt)
                self.emit(ir.IsDefinedStmt(source=t))
                self.plan_terms(r.rel, lambda ops: self._insert(ret, ops, ir.Local(t), r.leaf, default))

            return self.scoped(run)

        def leaf() -> None:
            self.plan_terms(r.rel, lambda ops: self.plan_term(
                r.value_term(), lambda v: self._insert(ret, ops, v, r.leaf, default)))

        return self._body_block(r, leaf)

    def _get_or_make(self, obj: int, key: ir.Operand, make: ir.Stmt, target: int) -> None:
        found = ir.Block((ir.DotStmt(source=ir.Local(obj), key=key, target=target), ir.BreakStmt(index=1)))
        self.emit(ir.BlockStmt(blocks=(ir.Block((ir.BlockStmt(blocks=(found,)), make)),)))

    def _insert(self, ret: int, keys: list[ir.Operand], value: ir.Operand, leaf: str, default: bool) -> None:
        chain: list[tuple[int, ir.Operand, int]] = []
        cur = ret
        for key in keys[:-1]:
            nxt = self.new()
            self._get_or_make(cur, key, ir.MakeObjectStmt(target=nxt), nxt)
            chain.append((cur, key, nxt))
            cur = nxt
        last = keys[-1]
        if leaf == "set":
            s = self.new()
            self._get_or_make(cur, last, ir.MakeSetStmt(target=s), s)
            self.emit(ir.SetAddStmt(value=value, set=s))
            self.emit(ir.ObjectInsertStmt(key=last, value=ir.Local(s), object=cur))
        elif default:
            probe = self.new()
            found = ir.Block((ir.DotStmt(source=ir.Local(cur), key=last, target=probe), ir.BreakStmt(index=1)))
            self.emit(ir.BlockStmt(blocks=(ir.Block((
                ir.BlockStmt(blocks=(found,)), ir.ObjectInsertStmt(key=last, value=value, object=cur))),)))
        else:
            self.emit(ir.ObjectInsertOnceStmt(key=last, value=value, object=cur))
        for parent, key, child in reversed(chain):
            self.emit(ir.ObjectInsertStmt(key=key, value=ir.Local(child), object=parent))

