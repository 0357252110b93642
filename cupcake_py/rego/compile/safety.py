"""Pass 3: safety. One analysis both reorders a body so that every variable is bound before
it is used and reports the variables that can never be bound (`var x is unsafe`).

What binds a variable: unification (`=`) with an evaluable other side (including array/object
destructuring), the output argument of a call (`count(xs, n)`), and an unbound var used as a
ref key (`xs[i]` iterates). Negations, `every`, comprehensions and `with` values bind nothing
and need their free variables that also occur outside them to be bound first."""

from __future__ import annotations

from collections.abc import Callable

from cupcake_py.rego import ast as A
from cupcake_py.rego.ast import NotBody
from cupcake_py.rego.compile.diagnostics import ErrorSink
from cupcake_py.rego.compile.walk import (
    LEAVES,
    SCALARS,
    TEMP_PREFIX,
    Names,
    is_generated,
    level_terms,
    vars_deep_body,
    vars_deep_term,
    vars_shallow,
)
from cupcake_py.rego.errors import UNSAFE_VAR, RegoError

ROOTS = frozenset({"data", "input"})
Arity = Callable[[A.Ref], int | None]


class Safety:
    def __init__(self, arity: Arity, names: Names) -> None:
        self.arity = arity
        self.names = names
        self.unsafe: dict[str, A.Location] = {}  # user-facing var name -> first location
        self.generated: list[tuple[A.Location, str]] = []  # unsafe compiler temporaries

    # ------------------------------------------------------------------ term analysis
    def needs(self, t: A.Term, bound: set[str], universe: set[str], missing: set[str], outs: set[str]) -> None:
        """Evaluating `t`: record unbound vars it needs in `missing`, ref-iteration vars in `outs`."""
        v = t.value
        if type(v) in SCALARS:
            return
        if isinstance(v, A.Var):
            if v.name not in bound and v.name not in outs and v.name not in ROOTS:
                missing.add(v.name)
        elif isinstance(v, A.Ref):
            h = v.terms[0]
            if isinstance(h.value, A.Var):
                if h.value.name not in ROOTS and h.value.name not in bound:
                    missing.add(h.value.name)
            else:
                self.needs(h, bound, universe, missing, outs)
            for k in v.terms[1:]:
                if isinstance(k.value, A.Var | A.Array | A.Object):
                    for name in vars_shallow(k, set()):
                        if name not in bound:
                            outs.add(name)
                else:
                    self.needs(k, bound, universe, missing, outs)
        elif isinstance(v, A.ArrayComprehension | A.SetComprehension | A.ObjectComprehension):
            for name in vars_deep_term(t, set()) & universe:
                if name not in bound and name not in outs:
                    missing.add(name)
        elif isinstance(v, A.Array | A.Set):
            for x in v.items:
                self.needs(x, bound, universe, missing, outs)
        elif isinstance(v, A.Object):
            for k, x in v.items:
                self.needs(k, bound, universe, missing, outs)
                self.needs(x, bound, universe, missing, outs)

    def needs_all(self, terms: list[A.Term], bound: set[str], universe: set[str], missing: set[str],
                  outs: set[str]) -> None:
        """`needs` over several terms evaluated together: a var that a ref in any of them
        iterates (`x == input.xs[x]`) is an output there, not missing (OPA's ref output vars)."""
        for t in terms:
            self.needs(t, bound, universe, set(), outs)
        for t in terms:
            self.needs(t, bound, universe, missing, outs)

    def pattern(self, t: A.Term, bound: set[str], universe: set[str], outs: set[str]) -> bool:
        """Unify `t` with a known value: its unbound vars become outputs. False if impossible."""
        v = t.value
        if isinstance(v, A.Var):
            if v.name not in bound and v.name not in ROOTS:
                outs.add(v.name)
            return True
        if isinstance(v, A.Array):
            return all(self.pattern(x, bound, universe, outs) for x in v.items)
        if isinstance(v, A.Object):
            ok = True
            for k, x in v.items:
                miss: set[str] = set()
                self.needs(k, bound | outs, universe, miss, outs)
                ok = ok and not miss and self.pattern(x, bound, universe, outs)
            return ok
        miss = set()
        self.needs(t, bound | outs, universe, miss, outs)
        return not miss

    def unify(self, a: A.Term, b: A.Term, bound: set[str], universe: set[str]) -> set[str] | None:
        for x, y in ((a, b), (b, a)):
            miss: set[str] = set()
            outs: set[str] = set()
            self.needs(y, bound, universe, miss, outs)
            if not miss:
                pouts: set[str] = set()
                if self.pattern(x, bound | outs, universe, pouts):
                    return outs | pouts
        av, bv = a.value, b.value
        pairs: list[tuple[A.Term, A.Term]] = []
        if isinstance(av, A.Array) and isinstance(bv, A.Array) and len(av.items) == len(bv.items):
            pairs = list(zip(av.items, bv.items, strict=True))
        elif isinstance(av, A.Object) and isinstance(bv, A.Object) and len(av.items) == len(bv.items):
            bk = {repr(k.value): x for k, x in bv.items}
            for k, x in av.items:
                if repr(k.value) not in bk:
                    return None
                pairs.append((x, bk[repr(k.value)]))
        else:
            return None
        got: set[str] = set()
        todo = pairs
        while todo:
            rest = []
            for x, y in todo:
                o = self.unify(x, y, bound | got, universe)
                if o is None:
                    rest.append((x, y))
                else:
                    got |= o
            if len(rest) == len(todo):
                return None
            todo = rest
        return got

    # ------------------------------------------------------------------ expressions
    def analyze(self, e: A.Expr, bound: set[str], universe: set[str]) -> tuple[set[str], set[str]]:
        """(missing, outputs) of an expression given the bound vars."""
        miss: set[str] = set()
        outs: set[str] = set()
        for w in e.with_:
            if not self._names_function(w.value, bound):
                self.needs(w.value, bound, universe, miss, set())
        t = e.terms
        if isinstance(t, NotBody):
            inner = vars_deep_body(t.body, set())
            shallow = set()
            for x in t.body:
                shallow |= _shallow_expr(x)
            need = {n for n in shallow if not is_generated(n)} | (inner & universe)
            miss |= need - bound
        elif isinstance(t, A.Every):
            self.needs(t.domain, bound, universe, miss, set())
            miss |= (vars_deep_body(t.body, set()) & universe) - bound
        elif isinstance(t, list):
            name = A.operator_name(t[0])
            args = t[1:]
            if name == "eq" and len(args) == 2:
                o = self.unify(args[0], args[1], bound, universe)
                if o is None:
                    self.needs_all(args, bound, universe, miss, outs)
                    if not miss:
                        miss |= vars_shallow(args[0], set()) | vars_shallow(args[1], set())
                        miss -= bound
                else:
                    outs |= o
            else:
                op = t[0].value
                if isinstance(op, A.Ref) and not isinstance(op.terms[0].value, A.Var):
                    self.needs(op.terms[0], bound, universe, miss, outs)
                n = self.arity(op) if isinstance(op, A.Ref) else None
                ins = args[:n] if n is not None and len(args) == n + 1 else args
                self.needs_all(list(ins), bound, universe, miss, outs)
                if n is not None and len(args) == n + 1 and not miss:
                    if not self.pattern(args[-1], bound | outs, universe, outs):
                        miss |= vars_shallow(args[-1], set()) - bound
        elif isinstance(t, A.Term):
            self.needs_all([t], bound, universe, miss, outs)
        return miss, outs

    def _names_function(self, t: A.Term, bound: set[str]) -> bool:
        v = t.value
        if isinstance(v, A.Var) and v.name not in bound:
            return self.arity(A.Ref([t])) is not None
        return isinstance(v, A.Ref) and v.dotted() is not None and self.arity(v) is not None

    def order(self, body: list[A.Expr], bound: set[str], universe: set[str]) -> list[A.Expr]:
        """Reorder `body` (and nested bodies) for safety; report unsafe vars. `bound` is updated."""
        level = set(universe)
        for e in body:
            level |= _shallow_expr(e)
        remaining = list(body)
        out: list[A.Expr] = []
        while remaining:
            for i, e in enumerate(remaining):
                miss, outs = self.analyze(e, bound, level)
                if not miss:
                    remaining.pop(i)
                    self.nested(e, set(bound), level)
                    bound |= outs
                    out.append(e)
                    break
            else:
                self.report(remaining, bound, level)
                out.extend(remaining)
                break
        return out

    def nested(self, e: A.Expr, bound: set[str], universe: set[str]) -> None:
        t = e.terms
        loc = e.location
        if isinstance(t, NotBody):
            t.body[:] = self.order(t.body, set(bound), universe)
        elif isinstance(t, A.Every):
            inner = set(bound)
            for x in (t.key, t.value):
                if x is not None:
                    inner |= vars_shallow(x, set())
            t.body[:] = self.order(t.body, inner, universe)
            self.closures(t.domain, bound, universe, loc)
        elif isinstance(t, list):
            for x in t[1:]:
                self.closures(x, bound, universe, loc)
        elif isinstance(t, A.Term):
            self.closures(t, bound, universe, loc)
        for w in e.with_:
            self.closures(w.value, bound, universe, loc)

    def closures(self, t: A.Term, bound: set[str], universe: set[str], loc: A.Location) -> None:
        """Order the bodies of comprehensions inside `t`; a comprehension head var its body does
        not bind is reported at `loc`, the enclosing expression (as OPA does)."""
        v = t.value
        if type(v) in LEAVES:
            return
        if isinstance(v, A.ArrayComprehension | A.SetComprehension | A.ObjectComprehension):
            inner = set(bound)
            v.body[:] = self.order(v.body, inner, universe)
            heads = [v.key, v.value] if isinstance(v, A.ObjectComprehension) else [v.term]
            for h in heads:
                self.closures(h, inner, universe, loc)
                self.check_bound(h, inner, universe, loc)
        elif isinstance(v, A.Ref | A.Array | A.Set | A.Object | A.Call):
            from cupcake_py.rego.compile.walk import term_children

            for c in term_children(v):
                self.closures(c, bound, universe, loc)

    def check_bound(self, t: A.Term, bound: set[str], universe: set[str], loc: A.Location) -> None:
        miss: set[str] = set()
        self.needs(t, bound, universe, miss, set())
        outs: set[str] = set()
        self.needs(t, bound, universe, set(), outs)
        for name in sorted(miss | outs):
            self._error(name, loc)

    def report(self, remaining: list[A.Expr], bound: set[str], universe: set[str]) -> None:
        for e in remaining:
            miss, _ = self.analyze(e, bound, universe)
            for name in miss:
                self._error(name, e.location)

    def _error(self, name: str, loc: A.Location) -> None:
        shown = self.names.display(name)
        if shown.startswith(TEMP_PREFIX):
            self.generated.append((loc, name))
            return
        prev = self.unsafe.get(shown)
        if prev is None or _loc_key(loc) < _loc_key(prev):
            self.unsafe[shown] = loc

    def flush(self, errors: ErrorSink) -> None:
        """Report what was found since the last flush, like OPA: each unsafe var once, at the
        first expression that needs it; compiler temporaries are never named -- when only they
        are unsafe, the expressions holding them are reported (`expression is unsafe`)."""
        if self.unsafe:
            for shown, loc in sorted(self.unsafe.items(), key=lambda kv: (_loc_key(kv[1]), kv[0])):
                errors.append(RegoError(UNSAFE_VAR, f"var {shown} is unsafe", loc))
        else:
            seen: set[str] = set()
            for loc, name in sorted(self.generated, key=lambda x: (_loc_key(x[0]), x[1])):
                if name not in seen:
                    seen.add(name)
                    errors.append(RegoError(UNSAFE_VAR, "expression is unsafe", loc))
        self.unsafe = {}
        self.generated = []


def _loc_key(loc: A.Location) -> tuple[str, int, int]:
    return (loc.file, loc.row, loc.col)


def _shallow_expr(e: A.Expr) -> set[str]:
    out: set[str] = set()
    for x in level_terms(e):
        vars_shallow(x, out)
    return out
