"""Read-only queries on the front end's AST (`cupcake_py.rego.ast`) used by the lint rules:
walking every term/expression, `input.*` paths, literal string sets and the guards a rule
body puts on `input.tool_name` / `input.hook_event_name`."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from cupcake_py.core.errors import Location
from cupcake_py.rego import ast as A

Node = A.Module | A.Rule | A.Expr | A.Term | list[Any]  # a list: of nodes

EQUALITY_OPS = frozenset({"equal", "eq"})
MEMBER_OP = "internal.member_2"


def rule_chain(rule: A.Rule) -> Iterator[A.Rule]:
    """The rule and its `else` branches."""
    r: A.Rule | None = rule
    while r is not None:
        yield r
        r = r.else_


def _term_children(t: A.Term) -> Iterator[A.Term | A.Expr]:
    v = t.value
    if isinstance(v, A.Ref):
        yield from v.terms
    elif isinstance(v, A.Array | A.Set):
        yield from v.items
    elif isinstance(v, A.Object):
        for k, x in v.items:
            yield k
            yield x
    elif isinstance(v, A.Call):
        yield A.Term(v.operator, t.location)
        yield from v.args
    elif isinstance(v, A.ArrayComprehension | A.SetComprehension):
        yield v.term
        yield from v.body
    elif isinstance(v, A.ObjectComprehension):
        yield v.key
        yield v.value
        yield from v.body
    elif isinstance(v, A.TemplateString):
        yield from v.parts


def _expr_children(e: A.Expr) -> Iterator[A.Term | A.Expr]:
    t = e.terms
    if isinstance(t, A.Term):
        yield t
    elif isinstance(t, list):
        yield from t
    elif isinstance(t, A.SomeDecl):
        yield from t.symbols
    elif isinstance(t, A.Every):
        if t.key is not None:
            yield t.key
        yield t.value
        yield t.domain
        yield from t.body
    for w in e.with_:
        yield w.target
        yield w.value


def walk(node: Node) -> Iterator[A.Term | A.Expr]:
    """Every Term and Expr below `node` (depth first, source order), nested bodies included."""
    stack: list[A.Term | A.Expr] = []
    if isinstance(node, A.Module):
        for r in node.rules:
            yield from walk(r)
        return
    if isinstance(node, A.Rule):
        for r in rule_chain(node):
            h = r.head
            stack = [*h.ref.terms, *(h.args or ()), *([h.key] if h.key else ()), *([h.value] if h.value else ()),
                     *r.body]
            for x in stack:
                yield from walk(x)
        return
    if isinstance(node, list):
        for x in node:
            yield from walk(x)
        return
    yield node
    children = _term_children(node) if isinstance(node, A.Term) else _expr_children(node)
    for c in children:
        yield from walk(c)


def terms(node: Node) -> Iterator[A.Term]:
    return (x for x in walk(node) if isinstance(x, A.Term))


def exprs(node: Node) -> Iterator[A.Expr]:
    return (x for x in walk(node) if isinstance(x, A.Expr))


def ref_path(term: A.Term, root: str) -> list[str | None] | None:
    """`input.a.b[x]` -> ["a", "b", None] when `term` is a ref rooted at Var `root`."""
    v = term.value
    if not isinstance(v, A.Ref) or not isinstance(v.terms[0].value, A.Var) or v.terms[0].value.name != root:
        return None
    return [t.value.value if isinstance(t.value, A.String) else None for t in v.terms[1:]]


def input_refs(node: Node) -> Iterator[tuple[list[str | None], A.Term]]:
    """Every `input.…` reference below `node` with its path."""
    for t in terms(node):
        p = ref_path(t, "input")
        if p is not None:
            yield p, t


def string_set(term: A.Term) -> set[str] | None:
    """The strings of a literal string, or of an array/set of literal strings."""
    v = term.value
    if isinstance(v, A.String):
        return {v.value}
    if isinstance(v, A.Array | A.Set) and v.items:
        strings = [i.value.value for i in v.items if isinstance(i.value, A.String)]
        if len(strings) == len(v.items):
            return set(strings)
    return None


def object_fields(term: A.Term) -> dict[str, A.Term] | None:
    """key -> value term of an object literal whose keys are all strings."""
    v = term.value
    if not isinstance(v, A.Object):
        return None
    out: dict[str, A.Term] = {}
    for k, x in v.items:
        if not isinstance(k.value, A.String):
            return None
        out[k.value.value] = x
    return out


@dataclass(frozen=True)
class Guard:
    """A top-level body expression requiring `input.<field>` to be one of `values`."""

    field: str
    values: frozenset[str]
    location: Location


def _is_input_field(t: A.Term, fields: frozenset[str]) -> str | None:
    p = ref_path(t, "input")
    if p is not None and len(p) == 1 and p[0] in fields:
        return p[0]
    return None


def guards(rule: A.Rule, fields: frozenset[str]) -> list[Guard]:
    """Guards of one rule body: `input.f == "X"`, `"X" == input.f`, `input.f = "X"`,
    `input.f in {"X", "Y"}` (not negated, not inside nested bodies)."""
    out: list[Guard] = []
    for e in rule.body:
        if e.negated or not isinstance(e.terms, list):
            continue
        op, args = e.operator, e.operands
        if op in EQUALITY_OPS and len(args) == 2:
            for a, b in ((args[0], args[1]), (args[1], args[0])):
                f = _is_input_field(a, fields)
                s = string_set(b) if isinstance(b.value, A.String) else None
                if f and s:
                    out.append(Guard(f, frozenset(s), e.location))
        elif op == MEMBER_OP and len(args) == 2:
            f = _is_input_field(args[0], fields)
            s = string_set(args[1])
            if f and s:
                out.append(Guard(f, frozenset(s), e.location))
    return out


def assigned_object(rule: A.Rule, var: str) -> A.Term | None:
    """The object literal a body assigns to `var` (`var := {...}` / `var = {...}`)."""
    for e in rule.body:
        if e.operator in ("assign", "eq") and len(e.operands) == 2:
            lhs, rhs = e.operands
            if isinstance(lhs.value, A.Var) and lhs.value.name == var and isinstance(rhs.value, A.Object):
                return rhs
    return None


def calls(node: Node) -> Iterator[tuple[str, Location]]:
    """(function name, location) of every call below `node`: call expressions and call terms."""
    for x in walk(node):
        if isinstance(x, A.Expr):
            name = x.operator
            if name is not None:
                loc = x.terms[0].location if isinstance(x.terms, list) else x.location
                yield name, loc if loc.row else x.location
        elif isinstance(x.value, A.Call) and x.value.name is not None:
            yield x.value.name, x.location
