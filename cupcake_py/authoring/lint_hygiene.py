"""Hygiene rules: unused imports, variables and functions, deprecated builtins, duplicated
rule ids and leftover print calls. Also builds the project-wide indexes they need."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

from cupcake_py.authoring import astq
from cupcake_py.authoring.findings import Finding, finding
from cupcake_py.authoring.lint_context import Check, ModuleInfo, Project
from cupcake_py.core.errors import Location
from cupcake_py.rego import ast as A

# OPA's deprecated builtins and what to use instead.
DEPRECATED: dict[str, str] = {
    "re_match": "regex.match",
    "any": "`some x in xs` / `true in xs`",
    "all": "`every x in xs { x }`",
    "set_diff": "the `-` operator on sets",
    "cast_array": "an array comprehension",
    "cast_set": "a set comprehension",
    "cast_string": "`is_string` / `format_int` / `sprintf`",
    "cast_boolean": "`is_boolean`",
    "cast_null": "`is_null`",
    "cast_object": "`is_object`",
    "net.cidr_overlap": "net.cidr_contains",
}


def _f(rule: str, loc: Location, mi: ModuleInfo, message: str) -> Finding:
    return finding(rule, loc.file or mi.file, loc.row, loc.col, message)


def import_name(imp: A.Import) -> str | None:
    """The name an import binds (None for rego.v1 / future.keywords)."""
    v = imp.path.value
    if not isinstance(v, A.Ref):
        return None
    head = v.terms[0].value
    if not isinstance(head, A.Var) or head.name not in ("data", "input"):
        return None
    if imp.alias:
        return imp.alias
    last = v.terms[-1].value
    if isinstance(last, A.String):
        return last.value
    return head.name if len(v.terms) == 1 else None


def unused_imports(mi: ModuleInfo, _: Project) -> Iterator[Finding]:
    used = {t.value.terms[0].value.name for t in astq.terms(mi.module)
            if isinstance(t.value, A.Ref) and isinstance(t.value.terms[0].value, A.Var)}
    used |= {t.value.name for t in astq.terms(mi.module) if isinstance(t.value, A.Var)}
    for imp in mi.module.imports:
        name = import_name(imp)
        if name is not None and name not in used:
            yield _f("unused-import", imp.location, mi, f"import `{name}` is never used")


def _vars(term: A.Term) -> list[tuple[str, A.Term]]:
    return [(x.value.name, x) for x in astq.terms(term) if isinstance(x.value, A.Var)]


def _declared(e: A.Expr) -> list[tuple[str, A.Term]]:
    """(name, Var term) a body expression declares: `x := …` (incl. patterns) and `some`."""
    out: list[tuple[str, A.Term]] = []
    t = e.terms
    if e.operator == "assign" and len(e.operands) == 2:
        out += _vars(e.operands[0])
    elif isinstance(t, A.SomeDecl):
        for s in t.symbols:
            if isinstance(s.value, A.Var):
                out.append((s.value.name, s))
            elif isinstance(s.value, A.Call):
                for a in s.value.args[:-1]:
                    out += _vars(a)
    return out


def unused_variables(mi: ModuleInfo, _: Project) -> Iterator[Finding]:
    for rule in mi.module.rules:
        for r in astq.rule_chain(rule):
            h = r.head
            scope: list[A.Term | A.Expr] = [*(h.args or ()), *([h.key] if h.key else ()),
                                            *([h.value] if h.value else ()), *r.body]
            count: Counter[str] = Counter()
            for x in astq.walk(scope):
                if isinstance(x, A.Term) and isinstance(x.value, A.Var):
                    count[x.value.name] += 1
            declared: dict[str, list[A.Term]] = {}
            for e in astq.exprs(r.body):
                for name, d in _declared(e):
                    declared.setdefault(name, []).append(d)
            for name, decls in declared.items():
                if name.startswith(("_", "$")) or count[name] > len(decls):
                    continue
                yield _f("unused-variable", decls[0].location, mi,
                         f"variable `{name}` is assigned but never used (remove it or use `_`)")


def _resolve(mi: ModuleInfo, term: A.Term) -> str | None:
    """Full `data.…` path (literal prefix) a reference names, resolving imports and the
    package's own rules."""
    v = term.value
    if not isinstance(v, A.Ref) or not isinstance(v.terms[0].value, A.Var):
        return None
    head = v.terms[0].value.name
    rest: list[str] = []
    for t in v.terms[1:]:
        if not isinstance(t.value, A.String):
            break
        rest.append(t.value.value)
    if head == "data":
        base: list[str] = []
    else:
        imported = {import_name(i): i for i in mi.module.imports}
        path = imported[head].path.value if head in imported else None
        if isinstance(path, A.Ref):
            dotted = path.dotted()
            if dotted is None or not dotted.startswith("data."):
                return None
            base = dotted.split(".")[1:]
        elif head in mi.rule_names:
            base = [*mi.package.split("."), head]
        else:
            return None
    return ".".join(["data", *base, *rest])


def build_references(proj: Project) -> None:
    for mi in proj.modules:
        for t in astq.terms(mi.module):
            p = _resolve(mi, t)
            if p:
                proj.references.add(p)
        for rule in mi.module.rules:
            for r in astq.rule_chain(rule):
                if r.head.name not in ("halt", "deny", "block", "ask", "modify") or r.head.key is None:
                    continue
                obj = r.head.key
                if isinstance(obj.value, A.Var):
                    obj = astq.assigned_object(r, obj.value.name) or obj
                fields = astq.object_fields(obj)
                rid = fields.get("rule_id") if fields else None
                if rid is not None and isinstance(rid.value, A.String):
                    proj.rule_ids.setdefault(rid.value.value, []).append((mi.package, rid.location))


def unused_functions(mi: ModuleInfo, proj: Project) -> Iterator[Finding]:
    if not mi.is_policy:
        return
    for rule in mi.module.rules:
        if rule.head.args is None:
            continue
        full = f"data.{mi.package}.{rule.head.name}"
        if not any(ref == full or ref.startswith(full + ".") for ref in proj.references):
            yield _f("unused-function", rule.head.location, mi, f"function `{rule.head.name}` is never called")
            proj.references.add(full)  # one finding per function, not per definition


def deprecated(mi: ModuleInfo, _: Project) -> Iterator[Finding]:
    own = mi.rule_names
    for name, loc in astq.calls(mi.module):
        if name in DEPRECATED and name.split(".")[0] not in own:
            yield _f("deprecated-builtin", loc, mi, f"`{name}` is deprecated; use {DEPRECATED[name]}")


def duplicate_rule_ids(mi: ModuleInfo, proj: Project) -> Iterator[Finding]:
    if mi.is_test:
        return
    for rid, uses in proj.rule_ids.items():
        first_pkg = uses[0][0]
        others = [(p, loc) for p, loc in uses if p != first_pkg]
        if not others:
            continue
        first_loc = uses[0][1]
        for pkg, loc in others:
            if pkg == mi.package and (loc.file or mi.file) == mi.file:
                yield _f("rule-id-duplicate", loc, mi,
                         f"rule_id {rid!r} is also used by {first_pkg} ({first_loc}); give each policy its own ids")


def print_calls(mi: ModuleInfo, _: Project) -> Iterator[Finding]:
    if mi.is_test:
        return
    for name, loc in astq.calls(mi.module):
        if name == "print":
            yield _f("print-call", loc, mi, "print() left in a policy: it runs on every evaluation; remove it")


CHECKS: tuple[Check, ...] = (unused_imports, unused_variables, unused_functions, deprecated, duplicate_rule_ids,
                             print_calls)
