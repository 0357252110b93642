"""Pass 5: checks on the compiled rules: unknown functions, call arity, recursion."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from cupcake_py.rego import ast as A
from cupcake_py.rego.compile import builtins as B
from cupcake_py.rego.compile.nodes import CRule, Group, Node, NotBody
from cupcake_py.rego.compile.walk import term_children
from cupcake_py.rego.errors import RECURSION, TYPE, RegoError


def rule_chain(g: Group) -> Iterator[CRule]:
    for r in g.rules:
        c: CRule | None = r
        while c is not None:
            yield c
            c = c.else_


def exprs(body: list[A.Expr]) -> Iterator[A.Expr]:
    """Every expression of a body, nested bodies included."""
    for e in body:
        yield e
        t = e.terms
        if isinstance(t, NotBody):
            yield from exprs(t.body)
        elif isinstance(t, A.Every):
            yield from exprs(t.body)
            yield from term_exprs(t.domain)
        elif isinstance(t, list):
            for x in t:
                yield from term_exprs(x)
        elif isinstance(t, A.Term):
            yield from term_exprs(t)
        for w in e.with_:
            yield from term_exprs(w.value)


def term_exprs(t: A.Term) -> Iterator[A.Expr]:
    v = t.value
    if isinstance(v, A.ArrayComprehension | A.SetComprehension):
        yield from exprs(v.body)
        yield from term_exprs(v.term)
    elif isinstance(v, A.ObjectComprehension):
        yield from exprs(v.body)
        yield from term_exprs(v.key)
        yield from term_exprs(v.value)
    else:
        for c in term_children(v):
            yield from term_exprs(c)


def rule_terms(c: CRule) -> list[A.Term]:
    return [t for t in (*c.rel, c.key, c.value) if t is not None]


def all_exprs(c: CRule) -> Iterator[A.Expr]:
    yield from exprs(c.body)
    for t in rule_terms(c):
        yield from term_exprs(t)


def check_calls(groups: dict[tuple[str, ...], Group], arity: Callable[[A.Ref], int | None],
                errors: list[RegoError]) -> None:
    for g in groups.values():
        for c in rule_chain(g):
            for e in all_exprs(c):
                if not isinstance(e.terms, list):
                    continue
                op = e.terms[0].value
                if not isinstance(op, A.Ref):
                    continue
                name = op.dotted()
                if name is None or name == "eq":
                    continue
                n = arity(op)
                if n is None:
                    what = "undefined function" if not name.startswith("data.") or tuple(
                        name.split(".")[1:]) not in groups else "not a function"
                    errors.append(RegoError(TYPE, f"{what} {name}", e.location))
                    continue
                got = len(e.terms) - 1
                b = B.lookup(name) if not name.startswith("data.") else None
                void = b is not None and b.void
                if got < n or got > n + (0 if void else 1):
                    errors.append(RegoError(TYPE, f"{name}: arity mismatch\n\thave: {got} arguments"
                                                  f"\n\twant: {n} arguments", e.location))
                elif b is not None:
                    check_literal_types(b, e.terms[1:n + 1], e.location, errors)


_KINDS: dict[type, str] = {
    A.Null: "null", A.Boolean: "boolean", A.Number: "number", A.String: "string", A.Array: "array",
    A.ArrayComprehension: "array", A.Object: "object", A.ObjectComprehension: "object", A.Set: "set",
    A.SetComprehension: "set",
}


def _accepts(t: dict, kind: str) -> bool:
    ty = t.get("type")
    if ty == "any":
        of = t.get("of")
        return any(_accepts(x, kind) for x in of) if isinstance(of, list) else True
    return ty == kind


def _type_name(t: dict) -> str:
    ty = str(t.get("type"))
    of = t.get("of")
    return f"any<{', '.join(_type_name(x) for x in of)}>" if ty == "any" and isinstance(of, list) else ty


def check_literal_types(b: B.Builtin, args: list[A.Term], loc: A.Location, errors: list[RegoError]) -> None:
    """Constant arguments of the wrong type (e.g. `count(1)`), as OPA's type checker reports."""
    decl = b.arg_types
    kinds = [_KINDS.get(type(a.value)) for a in args]
    if all(k is None or _accepts(t, k) for k, t in zip(kinds, decl, strict=False)):
        return
    have = ", ".join(k or "any" for k in kinds)
    want = ", ".join(_type_name(t) for t in decl)
    errors.append(RegoError(TYPE, f"{b.name}: invalid argument(s)\n\thave: ({have})\n\twant: ({want})", loc))


def check_withs(groups: dict[tuple[str, ...], Group], arity: Callable[[A.Ref], int | None],
                errors: list[RegoError]) -> None:
    """`with` targets: input/data paths, functions or builtins; never part of a rule's value."""
    for g in groups.values():
        for c in rule_chain(g):
            for e in all_exprs(c):
                for w in e.with_:
                    check_with_target(w, groups, arity, errors)


def check_with_target(w: A.With, groups: dict[tuple[str, ...], Group], arity: Callable[[A.Ref], int | None],
                      errors: list[RegoError]) -> None:
    t = w.target.value
    ref = t if isinstance(t, A.Ref) else A.Ref([w.target]) if isinstance(t, A.Var) else None
    name = ref.dotted() if ref is not None else None
    if name is None:
        errors.append(RegoError(TYPE, "with keyword target must reference existing input, data, or a function",
                                w.location))
        return
    parts = tuple(name.split("."))
    if parts[0] == "input":
        return
    if parts[0] == "data":
        for i in range(1, len(parts) - 1):
            g = groups.get(parts[1:i + 1])
            if g is not None:
                errors.append(RegoError(TYPE, f"with keyword cannot partially replace virtual document(s) "
                                              f"{g.name}", w.location))
                return
        return
    if arity(ref) is None:  # type: ignore[arg-type]
        errors.append(RegoError(TYPE, "with keyword target must reference existing input, data, or a function",
                                w.location))


def refs_in(t: A.Term) -> Iterator[A.Ref]:
    v = t.value
    if isinstance(v, A.Ref):
        yield v
    if isinstance(v, A.ArrayComprehension | A.SetComprehension | A.ObjectComprehension):
        for e in term_exprs(t):
            yield from expr_refs(e)
    else:
        for c in term_children(v):
            yield from refs_in(c)


def expr_refs(e: A.Expr) -> Iterator[A.Ref]:
    t = e.terms
    if isinstance(t, list):
        yield t[0].value  # type: ignore[misc]
        for x in t[1:]:
            yield from refs_in(x)
    elif isinstance(t, A.Term):
        yield from refs_in(t)
    elif isinstance(t, A.Every):
        yield from refs_in(t.domain)
    for w in e.with_:
        yield from refs_in(w.value)


def ref_targets(ref: A.Ref, tree: Node) -> list[Group]:
    """Groups a data ref may evaluate."""
    if not isinstance(ref, A.Ref) or not isinstance(ref.terms[0].value, A.Var) or ref.terms[0].value.name != "data":
        return []
    node = tree
    for t in ref.terms[1:]:
        if node.group is not None:
            return [node.group]
        if isinstance(t.value, A.String):
            nxt = node.children.get(t.value.value)
            if nxt is None:
                return []
            node = nxt
        else:  # dynamic key: looked up at run time (only the matching child is evaluated)
            return []
    return node.groups()


def check_recursion(groups: dict[tuple[str, ...], Group], tree: Node, errors: list[RegoError]) -> None:
    deps: dict[tuple[str, ...], list[tuple[str, ...]]] = {}
    for path, g in groups.items():
        out: list[tuple[str, ...]] = []
        for c in rule_chain(g):
            for e in all_exprs(c):
                for ref in expr_refs(e):
                    out.extend(t.path for t in ref_targets(ref, tree) if t.path not in out)
        deps[path] = out
    state: dict[tuple[str, ...], int] = {}
    stack: list[tuple[str, ...]] = []
    reported: set[tuple[str, ...]] = set()

    def visit(p: tuple[str, ...]) -> None:
        state[p] = 1
        stack.append(p)
        for q in deps.get(p, []):
            if state.get(q) == 1:
                cycle = stack[stack.index(q):] + [q]
                if q not in reported:
                    reported.add(q)
                    chain = " -> ".join("data." + ".".join(x) for x in cycle)
                    errors.append(RegoError(RECURSION, f"rule data.{'.'.join(q)} is recursive: {chain}",
                                            groups[q].rules[0].location))
            elif q not in state:
                visit(q)
        stack.pop()
        state[p] = 2

    for p in sorted(deps):
        if p not in state:
            visit(p)
