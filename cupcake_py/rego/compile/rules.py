"""Pass 4: the rule tree. Rules sharing a data path become one `Group` (one IR function).

A rule whose head ref has a variable (`p[k] := v`, `p[x].y := v`, `p.q[r] contains s`) is
"dynamic" at the static prefix before the first variable; every rule at or below that prefix
joins the dynamic group and inserts its value at its relative path (an object document).
Other rules group by their full path as complete rules, partial sets or functions."""

from __future__ import annotations

from collections.abc import Sequence

from cupcake_py.rego import ast as A
from cupcake_py.rego.compile.nodes import CRule, Group, Node
from cupcake_py.rego.errors import TYPE, RegoError


def static_prefix(terms: list[A.Term]) -> tuple[list[str], list[A.Term]]:
    out: list[str] = []
    for i, t in enumerate(terms):
        if isinstance(t.value, A.String):
            out.append(t.value.value)
        else:
            return out, terms[i:]
    return out, []


def head_terms(rule: A.Rule) -> list[A.Term]:
    """Head ref as terms with the leading var turned into a string."""
    h = rule.head.ref.terms
    return [A.string_term(rule.head.name, h[0].location)] + h[1:]


def dynamic_path(pkg: tuple[str, ...], rule: A.Rule) -> tuple[str, ...] | None:
    if rule.head.args is not None:
        return None
    prefix, rest = static_prefix(head_terms(rule))
    if not rest:
        return None
    return (*pkg, *prefix)


def build(crules: list[CRule], errors: list[RegoError],
          packages: Sequence[tuple[str, ...]] = ()) -> tuple[dict[tuple[str, ...], Group], Node]:
    groups: dict[tuple[str, ...], Group] = {}
    dyn = {c.path for c in crules if c.kind == "object"}
    for c in crules:
        for i in range(1, len(c.path) + 1):
            p = c.path[:i]
            if p in dyn and (p != c.path or c.kind != "object"):
                c.rel = [A.string_term(s, c.location) for s in c.path[i:]] + c.rel
                if c.kind == "set":
                    c.leaf = "set"
                    c.key, c.value = None, c.key
                c.kind = "object"
                c.path = p
                break
        g = groups.get(c.path)
        if g is None:
            g = groups[c.path] = Group(c.path, c.kind)
        elif g.kind != c.kind:
            errors.append(RegoError(TYPE, f"conflicting rules {g.name} found", c.location))
            continue
        elif c.kind == "function" and g.arity != len(c.args or []):
            errors.append(RegoError(TYPE, f"conflicting rules {g.name} found (arity mismatch)", c.location))
            continue
        if c.kind == "object" and not c.rel:
            errors.append(RegoError(TYPE, f"conflicting rules {g.name} found", c.location))
            continue
        g.rules.append(c)
    for g in groups.values():
        defaults = [r for r in g.rules if r.default and not r.rel]
        if len(defaults) > 1:
            errors.append(RegoError(TYPE, f"multiple default rules {g.name} found", defaults[1].location))
    root = Node(())
    for path in sorted(groups):
        node = root
        for p in path:
            if node.group is not None:
                errors.append(RegoError(TYPE, f"rule {node.group.name} conflicts with rules below it",
                                        groups[path].rules[0].location))
                break
            node = node.child(p)
        else:
            if node.children:
                errors.append(RegoError(TYPE, f"rule {groups[path].name} conflicts with rules below it",
                                        groups[path].rules[0].location))
            node.group = groups[path]
    for pkg in packages:
        node = root
        for p in pkg:
            if node.group is not None:
                break
            node = node.child(p)
        else:
            node.package = True
    return groups, root
