"""Small AST helpers shared by the compile passes: fresh names, variable collection
and the walk over every expression of a body (source or compiled shape)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cupcake_py.rego import ast as A
from cupcake_py.rego.ast import NotBody

WILDCARD_PREFIX = "$"
TEMP_PREFIX = "__"
ROOTS = frozenset({"data", "input"})
SCALARS = frozenset({A.String, A.Number, A.Boolean, A.Null})  # value types without sub-terms ...
LEAVES = SCALARS | {A.Var}  # ... and with vars: the fast exits of the term walks
CLOSURES = frozenset({A.ArrayComprehension, A.SetComprehension, A.ObjectComprehension})


def is_generated(name: str) -> bool:
    """Compiler-made names (temporaries, wildcards) never appear in query bindings."""
    return name.startswith(WILDCARD_PREFIX) or name.startswith(TEMP_PREFIX) or name == "_"


class Names:
    """Fresh-name source for one compilation (deterministic counters)."""

    def __init__(self) -> None:
        self.n = 0
        self.original: dict[str, str] = {}  # renamed local -> name in the source

    def wildcard(self) -> str:
        self.n += 1
        return f"{WILDCARD_PREFIX}{self.n}"

    def local(self, original: str = "") -> str:
        self.n += 1
        name = f"__local{self.n}__"
        self.original[name] = original
        return name

    def display(self, name: str) -> str:
        """The user-facing spelling of a (possibly renamed) var."""
        if name.startswith(WILDCARD_PREFIX):
            return "_"
        return self.original.get(name) or name

    def temp(self) -> str:
        self.n += 1
        return f"__t{self.n}__"


def term_children(v: A.Value) -> tuple[A.Term, ...] | list[A.Term]:
    """Direct sub-terms of a value, NOT descending into comprehension bodies."""
    if type(v) is A.Ref:
        return v.terms
    if type(v) is A.Array or type(v) is A.Set:
        return v.items
    if type(v) is A.Object:
        return [x for kv in v.items for x in kv]
    if type(v) is A.Call:
        head = v.operator.terms[0]
        return ([] if type(head.value) is A.Var else [head]) + v.args
    return ()


def map_items(v: A.Value, fn: Callable[[A.Term], A.Term]) -> A.Value | None:
    """An array, set or object with every item (object keys and values, in order) replaced by
    `fn(item)`; None for any other value."""
    if isinstance(v, A.Array):
        return A.Array([fn(x) for x in v.items])
    if isinstance(v, A.Set):
        return A.Set([fn(x) for x in v.items])
    if isinstance(v, A.Object):
        return A.Object([(fn(k), fn(x)) for k, x in v.items])
    return None


def vars_shallow(t: A.Term, out: set[str]) -> set[str]:
    """Var names in a term outside closures (comprehensions). (Exact type tests: the AST
    classes have no subclasses, and this runs once per term per pass.)"""
    v = t.value
    if type(v) is A.Var:
        if v.name not in ROOTS:
            out.add(v.name)
    elif type(v) not in CLOSURES:
        for c in term_children(v):
            vars_shallow(c, out)
    return out


def vars_deep_term(t: A.Term, out: set[str]) -> set[str]:
    """Every var name in a term, including inside closures."""
    v = t.value
    if isinstance(v, A.Var):
        if v.name not in ROOTS:
            out.add(v.name)
    elif isinstance(v, A.ArrayComprehension | A.SetComprehension):
        vars_deep_term(v.term, out)
        vars_deep_body(v.body, out)
    elif isinstance(v, A.ObjectComprehension):
        vars_deep_term(v.key, out)
        vars_deep_term(v.value, out)
        vars_deep_body(v.body, out)
    else:
        for c in term_children(v):
            vars_deep_term(c, out)
    return out


def vars_deep_body(body: list[A.Expr], out: set[str]) -> set[str]:
    for e in body:
        vars_deep_expr(e, out)
    return out


def level_terms(e: A.Expr) -> list[A.Term]:
    """The terms an expression evaluates at its own level: the term itself, a call's operands,
    an `every` domain, and its `with` values (not the operator, not the nested bodies)."""
    t = e.terms
    if isinstance(t, A.Term):
        out = [t]
    elif isinstance(t, list):
        out = t[1:]
    elif isinstance(t, A.Every):
        out = [t.domain]
    else:
        out = []
    out.extend(w.value for w in e.with_)
    return out


def vars_deep_expr(e: A.Expr, out: set[str]) -> set[str]:
    for x in level_terms(e):
        vars_deep_term(x, out)
    t = e.terms
    if isinstance(t, list):
        op = t[0].value
        if isinstance(op, A.Ref) and not isinstance(op.terms[0].value, A.Var):
            vars_deep_term(op.terms[0], out)
    elif isinstance(t, A.Every):
        if t.key is not None:
            vars_deep_term(t.key, out)
        vars_deep_term(t.value, out)
        vars_deep_body(t.body, out)
    elif isinstance(t, NotBody):
        vars_deep_body(t.body, out)
    elif isinstance(t, A.SomeDecl):
        for s in t.symbols:
            vars_deep_term(s, out)
    return out


def body_exprs(body: Sequence[A.Expr]) -> list[A.Expr]:
    """Every expression of a body and of the bodies nested in it (`every`, `not { }`,
    comprehensions, template-string parts), each one before those inside it, in source order.
    Serves both AST shapes: the parser's (`some` declarations, template strings) and the
    compiled one (`NotBody`). (Built into one list: nested generators cost a Python frame per
    level per expression, the hottest part of the compile passes on large policies.)"""
    out: list[A.Expr] = []
    _body_exprs(body, out)
    return out


def term_exprs(t: A.Term) -> list[A.Expr]:
    """Every expression inside a term: the bodies (and heads) of its comprehensions and the
    expressions of its template strings, at any depth."""
    out: list[A.Expr] = []
    _term_exprs(t, out)
    return out


def _body_exprs(body: Sequence[A.Expr], out: list[A.Expr]) -> None:
    for e in body:
        out.append(e)
        t = e.terms
        if type(t) is list:
            for x in t:
                _term_exprs(x, out)
        elif type(t) is A.Term:
            _term_exprs(t, out)
        elif type(t) is A.Every:
            _term_exprs(t.domain, out)
            _body_exprs(t.body, out)
        elif type(t) is NotBody:
            _body_exprs(t.body, out)
        elif type(t) is A.SomeDecl:
            for s in t.symbols:
                _term_exprs(s, out)
        for w in e.with_:
            _term_exprs(w.value, out)


def _term_exprs(t: A.Term, out: list[A.Expr]) -> None:
    v = t.value
    if type(v) in LEAVES:
        return
    if type(v) is A.Ref:  # the commonest compound term: scan its terms without a call per scalar
        for c in v.terms:
            if type(c.value) not in LEAVES:
                _term_exprs(c, out)
        return
    if type(v) is A.ArrayComprehension or type(v) is A.SetComprehension:
        _term_exprs(v.term, out)
        _body_exprs(v.body, out)
    elif type(v) is A.ObjectComprehension:
        _term_exprs(v.key, out)
        _term_exprs(v.value, out)
        _body_exprs(v.body, out)
    elif type(v) is A.TemplateString:
        for p in v.parts:
            if isinstance(p, A.Expr):
                _body_exprs((p,), out)
            else:
                _term_exprs(p, out)
    else:
        for c in term_children(v):
            _term_exprs(c, out)
