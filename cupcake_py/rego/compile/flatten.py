"""Pass 2: lower a resolved body into the flat compiled form (see `nodes`).

* nested calls (also in refs, composites, `with` values) become temporaries computed by a
  preceding call expression: `x = count(y) + 1` -> `count(y, t1)`, `plus(t1, 1, t2)`, `x = t2`;
* `some v in xs` -> `v = xs[$w]`, `some k, v in xs` -> `v = xs[k]`; plain `some x` disappears;
* `not e` -> the nested calls of e, then NotBody([e']), as OPA's compiler does (its expression
  expansion and dynamic-term rewriting make no exception for `not`; OPA issues 1877, 4743,
  5793, 7558): nested calls, refs and comprehensions used as call arguments (or inside
  composite arguments), and refs used as keys of a ref, are computed ahead of the negation,
  so `not f(input.x)` with `input.x` undefined makes the body fail; the operands of `=` and
  `==` (which OPA's RewriteEquals turns into `=` first) stay inside, only their ref keys move:
  `not input.x == false` holds when `input.x` is undefined;
* a ref on a composite holding refs (`[input.x, 1][i]`) first binds the composite to a
  temporary, as OPA's expandExprRef does (under `not`, an undefined item fails the body);
* `print(a, b)` -> `internal.print([{v | v = a}, {v | v = b}])`;
* `$"..{e}.."` -> `internal.template_string(["..", {v | v = e}, ".."])`;
* `rego.metadata.rule()` / `rego.metadata.chain()` are inlined as constants.
"""

from __future__ import annotations

from collections.abc import Callable

from cupcake_py.rego import ast as A
from cupcake_py.rego.ast import NotBody
from cupcake_py.rego.compile.walk import LEAVES, Names, map_items, term_children


def _op(name: str, loc: A.Location) -> A.Term:
    return A.Term(A.ref_of(name, loc), loc)


class Flattener:
    def __init__(self, names: Names, metadata: Callable[[str, A.Location], A.Term] | None = None) -> None:
        self.names = names
        self.metadata = metadata

    def temp(self, loc: A.Location) -> A.Term:
        return A.Term(A.Var(self.names.temp()), loc)

    # ------------------------------------------------------------------ bodies
    def body(self, body: list[A.Expr]) -> list[A.Expr]:
        out: list[A.Expr] = []
        for e in body:
            out.extend(self.expr(e))
        return out

    def expr(self, e: A.Expr) -> list[A.Expr]:
        wpre: list[A.Expr] = []
        withs = [A.With(w.target, self.term(w.value, wpre), w.location) for w in e.with_]
        pre: list[A.Expr] = []
        if e.negated:
            inner = A.Expr(e.terms, False, [], e.index, e.generated, e.location)
            body = [self._hoist_dynamics(x, pre) for x in self._positive(inner, pre)]
            main = [A.Expr(NotBody(body, e.location), location=e.location)]
        else:
            main = self._positive(e, pre)
        out = pre + main
        if withs:
            for x in out:
                x.with_ = list(withs)
        return wpre + out

    def _positive(self, e: A.Expr, pre: list[A.Expr]) -> list[A.Expr]:
        t = e.terms
        loc = e.location
        if isinstance(t, A.SomeDecl):
            out: list[A.Expr] = []
            for s in t.symbols:
                if isinstance(s.value, A.Call):
                    out.extend(self._some_in(s.value, s.location, pre))
            return out
        if isinstance(t, A.Every):
            dom = self.term(t.domain, pre)
            return [A.Expr(A.Every(t.key, t.value, dom, self.body(t.body), t.location), location=loc)]
        if isinstance(t, list):
            name = A.operator_name(t[0])
            if name == "print":
                arr = A.Term(A.Array([self._capture(a) for a in t[1:]]), loc)
                return [A.Expr([_op("internal.print", loc), arr], location=loc)]
            args = [self.term(x, pre) for x in t[1:]]
            op = t[0]
            if isinstance(op.value, A.Ref) and not isinstance(op.value.terms[0].value, A.Var):
                op = A.Term(A.Ref([self.term(op.value.terms[0], pre)] + op.value.terms[1:]), op.location)
            return [A.Expr([op, *args], location=loc)]
        assert not isinstance(t, NotBody), "flattening runs once: its input has no NotBody yet"
        return [A.Expr(self.term(t, pre), location=loc)]

    # ------------------------------------------------------------------ OPA's rewriteDynamics
    def _hoist_dynamics(self, e: A.Expr, pre: list[A.Expr]) -> A.Expr:
        """`e` (a flattened expression under `not`) with the terms OPA binds ahead of it moved
        to `pre`: for a call, every argument (`_dynamic`); for `=`, `a == b` and a lone term, the
        keys of a ref and the items of a composite (a comprehension there stays)."""
        t = e.terms
        if isinstance(t, list):
            if A.operator_name(t[0]) == "eq" or (A.operator_name(t[0]) == "equal" and len(t) == 3):
                # OPA's RewriteEquals makes `a == b` a unification before dynamic terms are bound,
                # so its operands keep their place inside the negation as `=`'s do:
                # `not input.x.y == false` holds when input.x.y is undefined
                terms = [t[0], *(self._dynamic_in(x, pre) for x in t[1:])]
            else:
                terms = [t[0], *(self._dynamic(x, pre) for x in t[1:])]
            return A.Expr(terms, e.negated, e.with_, e.index, e.generated, e.location)
        if isinstance(t, A.Term):
            return A.Expr(self._dynamic_in(t, pre), e.negated, e.with_, e.index, e.generated, e.location)
        return e

    def _dynamic_in(self, t: A.Term, pre: list[A.Expr]) -> A.Term:
        v = t.value
        if isinstance(v, A.Ref):
            return A.Term(A.Ref(v.terms[:1] + [self._dynamic(x, pre) for x in v.terms[1:]]), t.location)
        if isinstance(v, A.ArrayComprehension | A.SetComprehension | A.ObjectComprehension):
            return t
        return self._dynamic(t, pre)

    def _dynamic(self, t: A.Term, pre: list[A.Expr]) -> A.Term:
        """A ref or comprehension becomes a temporary bound by `pre`; composites are walked."""
        v = t.value
        if isinstance(v, A.Ref | A.ArrayComprehension | A.SetComprehension | A.ObjectComprehension):
            if isinstance(v, A.Ref):
                t = A.Term(A.Ref(v.terms[:1] + [self._dynamic(x, pre) for x in v.terms[1:]]), t.location)
            tmp = self.temp(t.location)
            pre.append(A.Expr([_op("eq", t.location), tmp, t], generated=True, location=t.location))
            return tmp
        items = map_items(v, lambda x: self._dynamic(x, pre))
        return A.Term(items, t.location) if items is not None else t

    def _some_in(self, call: A.Call, loc: A.Location, pre: list[A.Expr]) -> list[A.Expr]:
        dom = self.term(call.args[-1], pre)
        if len(call.args) == 3:
            key = call.args[0]
            value = call.args[1]
        else:
            key = A.Term(A.Var(self.names.wildcard()), loc)
            value = call.args[0]
        extra: list[A.Expr] = []
        if not isinstance(key.value, A.Var | A.String | A.Number | A.Boolean | A.Null):
            k2 = self.temp(loc)
            extra.append(A.Expr([_op("eq", loc), k2, self.term(key, pre)], location=loc))
            key = k2
        head = dom.value.terms if isinstance(dom.value, A.Ref) else [dom]
        ref = A.Term(A.Ref(list(head) + [key]), loc)
        return [A.Expr([_op("eq", loc), self.term(value, pre), ref], location=loc)] + extra

    def _capture(self, t: A.Term, withs: list[A.With] | None = None) -> A.Term:
        """`{v | v = t}`: the set of t's values (empty when t is undefined)."""
        v = self.temp(t.location)
        body = self.body([A.Expr([_op("eq", t.location), v, t], with_=list(withs or []), location=t.location)])
        return A.Term(A.SetComprehension(v, body), t.location)

    # ------------------------------------------------------------------ terms
    def term(self, t: A.Term, pre: list[A.Expr]) -> A.Term:
        v = t.value
        if type(v) in LEAVES:
            return t
        loc = t.location
        if isinstance(v, A.Call):
            name = v.name
            if name in ("rego.metadata.rule", "rego.metadata.chain") and self.metadata is not None:
                return self.metadata(name, loc)
            args = [self.term(a, pre) for a in v.args]
            out = self.temp(loc)
            op = A.Term(v.operator, loc)
            if not isinstance(v.operator.terms[0].value, A.Var):
                op = A.Term(A.Ref([self.term(v.operator.terms[0], pre)] + v.operator.terms[1:]), loc)
            pre.append(A.Expr([op, *args, out], generated=True, location=loc))
            return out
        if isinstance(v, A.TemplateString):
            parts: list[A.Term] = []
            for p in v.parts:
                if isinstance(p, A.Expr):
                    pt = p.terms
                    if isinstance(pt, list):
                        pt = A.Term(A.Call(A.call_operator(pt), pt[1:]), p.location)
                    assert isinstance(pt, A.Term)
                    parts.append(self._capture(pt, p.with_))
                else:
                    parts.append(p)
            out = self.temp(loc)
            pre.append(A.Expr([_op("internal.template_string", loc), A.Term(A.Array(parts), loc), out],
                              generated=True, location=loc))
            return out
        if isinstance(v, A.Ref):
            head = v.terms[0]
            if not isinstance(head.value, A.Var):
                head = self.term(head, pre)
                if isinstance(head.value, A.Ref):
                    return A.Term(A.Ref(head.value.terms + [self.term(x, pre) for x in v.terms[1:]]), loc)
                if _holds_ref(head):  # OPA binds a composite subject to a local first (expandExprRef):
                    tmp = self.temp(head.location)  # `not [input.x][0]` fails when input.x is undefined
                    pre.append(A.Expr([_op("eq", head.location), tmp, head], generated=True, location=head.location))
                    head = tmp
            return A.Term(A.Ref([head] + [self.term(x, pre) for x in v.terms[1:]]), loc)
        items = map_items(v, lambda x: self.term(x, pre))
        if items is not None:
            return A.Term(items, loc)
        if isinstance(v, A.ArrayComprehension | A.SetComprehension):
            body = self.body(v.body)
            head_pre: list[A.Expr] = []
            head = self.term(v.term, head_pre)
            return A.Term(type(v)(head, body + head_pre), loc)
        if isinstance(v, A.ObjectComprehension):
            body = self.body(v.body)
            head_pre = []
            k = self.term(v.key, head_pre)
            x = self.term(v.value, head_pre)
            return A.Term(A.ObjectComprehension(k, x, body + head_pre), loc)
        return t


def _holds_ref(t: A.Term) -> bool:
    """A ref in the composite `t` (outside comprehensions): it may be undefined."""
    v = t.value
    if isinstance(v, A.Ref):
        return True
    if isinstance(v, A.Array | A.Set | A.Object):
        return any(_holds_ref(x) for x in term_children(v))
    return False
