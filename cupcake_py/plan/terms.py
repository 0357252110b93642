"""Planning terms (scalars, composites, comprehensions), refs (input, locals, the data tree
merged with base data) and unification."""

from __future__ import annotations

from cupcake_py import ir
from cupcake_py.plan.state import KV, K, KOps, State, plan_error
from cupcake_py.rego import ast as A
from cupcake_py.rego.compile.nodes import Group, Node
from cupcake_py.rego.compile.walk import vars_shallow

SCALARS = (A.Null, A.Boolean, A.Number, A.String)


class TermPlanner(State):
    # ------------------------------------------------------------------ hooks (other mixins)
    def plan_body(self, body: list[A.Expr], k: K) -> None:  # pragma: no cover - ExprPlanner
        raise NotImplementedError

    def call_group(self, group: Group, args: list[ir.Operand], gen: int | None = None) -> int:
        raise NotImplementedError  # pragma: no cover - RulePlanner

    # ------------------------------------------------------------------ terms
    def bound(self, name: str) -> bool:
        return name in self.fx.vars

    def unbound_vars(self, t: A.Term) -> set[str]:
        return {n for n in vars_shallow(t, set()) if n not in self.fx.vars}

    def plan_term(self, t: A.Term, k: KV) -> None:
        v = t.value
        if isinstance(v, A.String):
            k(ir.StringIndex(self.string(v.value)))
        elif isinstance(v, A.Boolean):
            k(ir.Bool(v.value))
        elif isinstance(v, A.Number):
            r = self.new()
            self.emit(ir.MakeNumberRefStmt(index=self.string(v.text), target=r))
            k(ir.Local(r))
        elif isinstance(v, A.Null):
            r = self.new()
            self.emit(ir.MakeNullStmt(target=r))
            k(ir.Local(r))
        elif isinstance(v, A.Var):
            self.plan_var(v.name, k)
        elif isinstance(v, A.Ref):
            self.plan_ref(v, k)
        elif isinstance(v, A.Array):
            self.plan_terms(v.items, lambda ops: k(self._collection(ir.MakeArrayStmt, ops)))
        elif isinstance(v, A.Set):
            self.plan_terms(v.items, lambda ops: k(self._collection(ir.MakeSetStmt, ops)))
        elif isinstance(v, A.Object):
            flat = [x for kv in v.items for x in kv]
            self.plan_terms(flat, lambda ops: k(self._object(ops)))
        elif isinstance(v, A.ArrayComprehension | A.SetComprehension | A.ObjectComprehension):
            self.plan_comprehension(v, k)
        else:
            raise plan_error(f"unsupported term {type(v).__name__}", t.location)

    def plan_var(self, name: str, k: KV) -> None:
        if name in self.fx.vars:
            k(ir.Local(self.fx.vars[name]))
        elif name == "input":
            self.emit(ir.IsDefinedStmt(source=0))
            k(ir.Local(0))
        elif name == "data":
            self.plan_data(self.tree, [], k)
        else:
            raise plan_error(f"var {name} is unsafe", self.loc)

    def plan_terms(self, terms: list[A.Term], k: KOps) -> None:
        """Plan `terms`, calling k with their operands in order. Refs that bind unbound vars
        (`x == input.xs[x]`: the ref iterates and binds x) are evaluated first."""
        self._plan_terms_from(terms, self.eval_order(terms), [None] * len(terms), k, 0)

    def _plan_terms_from(self, terms: list[A.Term], order: list[int], ops: list[ir.Operand | None], k: KOps,
                         j: int) -> None:
        """plan_terms from `order[j]` on (a method, not a self-naming closure: see
        ExprPlanner.plan_body)."""
        while j < len(order):  # plain terms in a loop: a wide literal adds no stack depth
            i = order[j]
            if not self.is_plain(terms[i]):
                break
            self.plan_term(terms[i], _setter(ops, i))
            j += 1
        if j == len(order):
            k([op for op in ops if op is not None])
            return
        i = order[j]

        def got(op: ir.Operand) -> None:
            ops[i] = op
            self._plan_terms_from(terms, order, ops, k, j + 1)

        self.plan_term(terms[i], got)

    def is_plain(self, t: A.Term) -> bool:
        """A term whose planning calls its continuation exactly once, right away, in the
        current block: a scalar, a bound var, or an array/set/object of such terms."""
        v = t.value
        if isinstance(v, SCALARS):
            return True
        if isinstance(v, A.Var):
            return v.name in self.fx.vars
        if isinstance(v, A.Array | A.Set):
            return all(self.is_plain(x) for x in v.items)
        if isinstance(v, A.Object):
            return all(self.is_plain(a) and self.is_plain(b) for a, b in v.items)
        return False

    def eval_order(self, terms: list[A.Term]) -> list[int]:
        binding = [i for i, t in enumerate(terms) if isinstance(t.value, A.Ref) and self.unbound_vars(t)]
        return binding + [i for i in range(len(terms)) if i not in binding] if binding else list(range(len(terms)))

    def _collection(self, make: type[ir.MakeArrayStmt | ir.MakeSetStmt], ops: list[ir.Operand]) -> ir.Operand:
        r = self.new()
        if make is ir.MakeArrayStmt:
            self.emit(ir.MakeArrayStmt(capacity=len(ops), target=r))
            for op in ops:
                self.emit(ir.ArrayAppendStmt(array=r, value=op))
        else:
            self.emit(ir.MakeSetStmt(target=r))
            for op in ops:
                self.emit(ir.SetAddStmt(value=op, set=r))
        return ir.Local(r)

    def _object(self, ops: list[ir.Operand]) -> ir.Operand:
        r = self.new()
        self.emit(ir.MakeObjectStmt(target=r))
        for i in range(0, len(ops), 2):
            self.emit(ir.ObjectInsertStmt(key=ops[i], value=ops[i + 1], object=r))
        return ir.Local(r)

    def plan_comprehension(self, v: A.ArrayComprehension | A.SetComprehension | A.ObjectComprehension,
                           k: KV) -> None:
        r = self.new()
        if isinstance(v, A.ArrayComprehension):
            self.emit(ir.MakeArrayStmt(capacity=0, target=r))
        elif isinstance(v, A.SetComprehension):
            self.emit(ir.MakeSetStmt(target=r))
        else:
            self.emit(ir.MakeObjectStmt(target=r))

        def head() -> None:
            if isinstance(v, A.ArrayComprehension):
                self.plan_term(v.term, lambda op: self.emit(ir.ArrayAppendStmt(array=r, value=op)))
            elif isinstance(v, A.SetComprehension):
                self.plan_term(v.term, lambda op: self.emit(ir.SetAddStmt(value=op, set=r)))
            else:
                self.plan_terms([v.key, v.value], lambda ops: self.emit(
                    ir.ObjectInsertOnceStmt(key=ops[0], value=ops[1], object=r)))

        body = self.scoped(lambda: self.plan_body(v.body, head))
        self.emit(ir.BlockStmt(blocks=(body,)))
        k(ir.Local(r))

    # ------------------------------------------------------------------ refs
    def plan_ref(self, ref: A.Ref, k: KV) -> None:
        head = ref.terms[0]
        rest = ref.terms[1:]
        hv = head.value
        if isinstance(hv, A.Var) and hv.name == "data" and hv.name not in self.fx.vars:
            self.plan_data(self.tree, rest, k)
        elif isinstance(hv, A.Var) and hv.name == "input" and hv.name not in self.fx.vars:
            self.emit(ir.IsDefinedStmt(source=0))
            self.plan_path(ir.Local(0), rest, k)
        else:
            self.plan_term(head, lambda op: self.plan_path(op, rest, k))

    def plan_path(self, src: ir.Operand, keys: list[A.Term], k: KV) -> None:
        if not keys:
            k(src)
            return
        key, rest = keys[0], keys[1:]
        if self.unbound_vars(key):
            s = self.local_of(src)
            kl, vl = self.new(), self.new()

            def body() -> None:
                self.unify_value(key, ir.Local(kl), lambda: self.plan_path(ir.Local(vl), rest, k))

            self.emit(ir.ScanStmt(source=s, key=kl, value=vl, block=self.block(body)))
            return

        def dot(kop: ir.Operand) -> None:
            r = self.new()
            self.emit(ir.DotStmt(source=src, key=kop, target=r))
            self.plan_path(ir.Local(r), rest, k)

        self.plan_term(key, dot)

    def base(self, path: tuple[str, ...]) -> int:
        """Dot down base data along a static path (undefined when missing)."""
        src = 1
        for p in path:
            r = self.new()
            self.emit(ir.DotStmt(source=ir.Local(src), key=ir.StringIndex(self.string(p)), target=r))
            src = r
        return src

    def plan_data(self, node: Node, keys: list[A.Term], k: KV) -> None:
        g = self.group_at(node)
        if g is not None:
            if g.kind == "function":
                raise plan_error(f"function {g.name} used as a value (call it with arguments)", self.loc)
            r = self.call_group(g, [])
            self.plan_path(ir.Local(r), keys, k)
            return
        if not self.has_virtual(node):
            self.plan_path(ir.Local(self.base(node.path)), keys, k)
            return
        if not keys:
            k(ir.Local(self.materialize(node)))
            return
        key = keys[0]
        kv = key.value
        if isinstance(kv, A.String) and kv.value in node.children:
            self.plan_data(node.children[kv.value], keys[1:], k)
        elif isinstance(kv, SCALARS):
            self.plan_path(ir.Local(self.base(node.path)), keys, k)
        elif not self.unbound_vars(key):
            self.plan_term(key, lambda kop: self.plan_path(ir.Local(self.lookup(node, kop)), keys[1:], k))
        else:
            self.plan_path(ir.Local(self.materialize(node)), keys, k)

    def lookup(self, node: Node, key: ir.Operand) -> int:
        """`node[key]` for a key known only at run time: only the matching child is evaluated
        (a virtual child, else base data)."""
        r = self.new()
        self.emit(ir.ResetLocalStmt(target=r))
        alts: list[ir.Block] = []
        for name, child, g in self.value_children(node):

            def alt(child: Node = child, name: str = name, g: Group | None = g) -> None:
                self.emit(ir.EqualStmt(a=key, b=ir.StringIndex(self.string(name))))
                v = self.call_group(g, []) if g is not None else self.materialize(child)
                self.emit(ir.AssignVarStmt(source=ir.Local(v), target=r))
                self.emit(ir.BreakStmt(index=1))

            alts.append(self.block(alt))

        def base() -> None:
            b = self.base(node.path)
            t = self.new()
            self.emit(ir.DotStmt(source=ir.Local(b), key=key, target=t))
            self.emit(ir.AssignVarStmt(source=ir.Local(t), target=r))

        alts.append(self.block(base))
        # wrapped so that `break 1` in an alternative skips the remaining ones
        self.emit(ir.BlockStmt(blocks=(ir.Block((ir.BlockStmt(blocks=tuple(alts)),)),)))
        self.emit(ir.IsDefinedStmt(source=r))
        return r

    def virtual(self, node: Node) -> int:
        """An object of the virtual documents (rule values) under `node`."""
        obj = self.new()
        self.emit(ir.MakeObjectStmt(target=obj))
        for key, child, g in self.value_children(node):

            def ins(child: Node = child, key: str = key, g: Group | None = g) -> None:
                v = self.call_group(g, []) if g is not None else self.virtual(child)
                self.emit(ir.ObjectInsertStmt(key=ir.StringIndex(self.string(key)), value=ir.Local(v), object=obj))

            self.emit(ir.BlockStmt(blocks=(self.block(ins),)))
        return obj

    def materialize(self, node: Node) -> int:
        """Virtual documents under `node` merged with the base data at its path."""
        virt = self.virtual(node)
        r = self.new()

        def merged() -> None:
            b = self.base(node.path)
            self.emit(ir.ObjectMergeStmt(a=b, b=virt, target=r))
            self.emit(ir.BreakStmt(index=1))

        inner = self.block(merged)
        self.emit(ir.BlockStmt(blocks=(self.block(lambda: self.emit_all(
            ir.BlockStmt(blocks=(inner,)),
            ir.AssignVarStmt(source=ir.Local(virt), target=r))),)))
        return r

    # ------------------------------------------------------------------ unification
    def bind(self, name: str, op: ir.Operand) -> None:
        r = self.new()
        self.emit(ir.AssignVarStmt(source=op, target=r))
        self.fx.vars[name] = r

    def unify_value(self, pat: A.Term, op: ir.Operand, k: K) -> None:
        """Unify a pattern term with a value at run time."""
        v = pat.value
        if isinstance(v, A.Var) and v.name not in self.fx.vars and v.name not in ("data", "input"):
            self.bind(v.name, op)
            k()
            return
        if isinstance(v, A.Array) and self.unbound_vars(pat):
            self.emit(ir.IsArrayStmt(source=op))
            self._len_check(op, len(v.items))
            self._unify_items(op, [(ir.Local(self._int(i)), x) for i, x in enumerate(v.items)], k)
            return
        if isinstance(v, A.Object) and self.unbound_vars(pat):
            self.emit(ir.IsObjectStmt(source=op))
            self._len_check(op, len(v.items))
            keys = [kk for kk, _ in v.items]

            def with_keys(kops: list[ir.Operand]) -> None:
                self._unify_items(op, list(zip(kops, [x for _, x in v.items], strict=True)), k)

            self.plan_terms(keys, with_keys)
            return
        self.plan_term(pat, lambda p: self.emit_then(ir.EqualStmt(a=p, b=op), k))

    def _int(self, i: int) -> int:
        r = self.new()
        self.emit(ir.MakeNumberIntStmt(value=i, target=r))
        return r

    def _len_check(self, op: ir.Operand, n: int) -> None:
        ln = self.new()
        self.emit(ir.LenStmt(source=op, target=ln))
        self.emit(ir.EqualStmt(a=ir.Local(ln), b=ir.Local(self._int(n))))

    def _unify_items(self, src: ir.Operand, items: list[tuple[ir.Operand, A.Term]], k: K) -> None:
        if not items:
            k()
            return
        (kop, pat), rest = items[0], items[1:]
        r = self.new()
        self.emit(ir.DotStmt(source=src, key=kop, target=r))
        self.unify_value(pat, ir.Local(r), lambda: self._unify_items(src, rest, k))

    def unify(self, a: A.Term, b: A.Term, k: K) -> None:
        av, bv = a.value, b.value
        if isinstance(av, A.Array) and isinstance(bv, A.Array):
            if len(av.items) != len(bv.items):
                self.emit(ir.BreakStmt(index=0))
                return
            self._unify_pairs(list(zip(av.items, bv.items, strict=True)), k)
            return
        if isinstance(av, A.Object) and isinstance(bv, A.Object) and (self.unbound_vars(a) or self.unbound_vars(b)):
            bk = {repr(x.value): y for x, y in bv.items}
            if len(av.items) != len(bv.items) or any(repr(x.value) not in bk for x, _ in av.items):
                self.emit(ir.BreakStmt(index=0))
                return
            self._unify_pairs([(y, bk[repr(x.value)]) for x, y in av.items], k)
            return
        if self.unbound_vars(a) and not self._needs_unbound(b):
            self.plan_term(b, lambda op: self.unify_value(a, op, k))
        elif self.unbound_vars(b):
            self.plan_term(a, lambda op: self.unify_value(b, op, k))
        else:
            self.plan_term(a, lambda x: self.plan_term(b, lambda y: self.emit_then(ir.EqualStmt(a=x, b=y), k)))

    def _needs_unbound(self, t: A.Term) -> bool:
        """True when evaluating `t` needs a var that is unbound (other than ref iteration keys)."""
        v = t.value
        if isinstance(v, A.Var):
            return v.name not in self.fx.vars and v.name not in ("data", "input")
        if isinstance(v, A.Ref):
            return self._needs_unbound(v.terms[0]) if not isinstance(v.terms[0].value, A.Var) else (
                v.terms[0].value.name not in self.fx.vars and v.terms[0].value.name not in ("data", "input"))
        if isinstance(v, A.Array | A.Set):
            return any(self._needs_unbound(x) for x in v.items)
        if isinstance(v, A.Object):
            return any(self._needs_unbound(x) or self._needs_unbound(y) for x, y in v.items)
        return False

    def _unify_pairs(self, pairs: list[tuple[A.Term, A.Term]], k: K) -> None:
        if not pairs:
            k()
            return
        # bind what can be bound first (a later pair may provide a var an earlier one needs)
        i = next((i for i, (x, y) in enumerate(pairs)
                  if not (self._needs_unbound(x) and self._needs_unbound(y))), 0)
        rest = pairs[:i] + pairs[i + 1:]
        self.unify(pairs[i][0], pairs[i][1], lambda: self._unify_pairs(rest, k))


def _setter(ops: list[ir.Operand | None], i: int) -> KV:
    def put(op: ir.Operand) -> None:
        ops[i] = op
    return put
