"""Pass 4: the rule tree. Rules sharing a data path become one `Group` (one IR function).

A rule whose head ref has a variable (`p[k] := v`, `p[x].y := v`, `p.q[r] contains s`) is
"dynamic" at the static prefix before the first variable; every rule at or below that prefix
joins the dynamic group and inserts its value at its relative path (an object document).
Other rules group by their full path as complete rules, partial sets or functions."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from cupcake_py.rego import ast as A
from cupcake_py.rego.compile.diagnostics import ErrorSink
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


def build(crules: list[CRule], errors: ErrorSink, packages: Sequence[tuple[str, ...]] = (),
          display: Callable[[str], str] = str) -> tuple[dict[tuple[str, ...], Group], Node]:
    """Group the rules by data path and report conflicts as OPA does: one error per path,
    at the first rule there."""
    groups: dict[tuple[str, ...], Group] = {}
    dyn = {c.path for c in crules if c.kind == "object"}
    conflicting: dict[tuple[str, ...], CRule] = {}  # path -> the last rule seen there
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
        elif g.kind != c.kind or (c.kind == "function" and g.arity != len(c.args or [])):
            conflicting[c.path] = c
            continue
        if c.kind == "object" and not c.rel:
            conflicting[c.path] = c
            continue
        g.rules.append(c)
    for path, last in conflicting.items():
        errors.append(RegoError(TYPE, f"conflicting rules {rule_ref_text(last, display)} found",
                                (groups[path].rules or [last])[0].location))
    groups = {path: g for path, g in groups.items() if g.rules}
    for g in groups.values():
        defaults = [r for r in g.rules if r.default and not r.rel]
        if len(defaults) > 1 and g.path not in conflicting:
            where = ", ".join(f"{r.location.file}:{r.location.row}" for r in defaults)
            errors.append(RegoError(TYPE, f"multiple default rules {g.name} found at {where}",
                                    defaults[0].module.package.location))
    root = Node(())
    below: dict[tuple[str, ...], list[str]] = {}  # a group's path -> groups nested under it
    for path in sorted(groups):  # a prefix sorts first, so an enclosing group is placed before
        node = root
        for part in path:
            if node.group is not None:
                below.setdefault(node.group.path, []).append(groups[path].name)
                break
            node = node.child(part)
        else:
            node.group = groups[path]
    for path, names in below.items():
        g = groups[path]
        errors.append(RegoError(TYPE, f"rule {g.name} conflicts with [{', '.join(sorted(names))}]",
                                g.rules[0].location))
    for pkg in packages:
        node = root
        for part in pkg:
            if node.group is not None:
                break
            node = node.child(part)
        else:
            node.package = True
    return groups, root


def package_conflicts(modules: Sequence[A.Module], errors: ErrorSink) -> None:
    """A package declared at the path of a rule of another module (OPA: `package a.p conflicts
    with rule p defined at f.rego:3`, reported at the rule's package)."""
    by_path: dict[tuple[str, ...], list[A.Module]] = {}
    for m in modules:
        by_path.setdefault(_pkg(m), []).append(m)
    for m in modules:
        for r in m.rules:
            prefix, rest = static_prefix(head_terms(r))
            if rest or r.head.args is not None:
                continue
            for other in by_path.get((*_pkg(m), *prefix), []):
                if other is not m:
                    loc = r.location
                    errors.append(RegoError(TYPE, f"package {other.package.dotted()} conflicts with rule "
                                                  f"{'.'.join(prefix)} defined at {loc.file}:{loc.row}",
                                            m.package.location))


def _pkg(m: A.Module) -> tuple[str, ...]:
    return tuple(t.value.value for t in m.package.path.terms[1:] if isinstance(t.value, A.String))


def rule_ref_text(c: CRule, display: Callable[[str], str] = str) -> str:
    """`data.a.p[x].q`: the package and the rule's head ref, vars by their source names."""
    pkg = _pkg(c.module)
    terms = [A.string_term(p) for p in pkg] + head_terms(c.rule)
    out = "data"
    for t in terms:
        v = t.value
        if isinstance(v, A.String) and _IDENT.fullmatch(v.value):
            out += "." + v.value
        elif isinstance(v, A.Var):
            out += f"[{display(v.name)}]"
        else:
            from cupcake_py.rego.printer import print_term

            out += f"[{print_term(t)}]"
    return out


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
