"""Source-level checks that run before name resolution, as OPA's first compiler stages do:

* RESOLVE: function arguments must not shadow `input`/`data`;
* KEYWORDS: rules and `:=` variables must not shadow `input`/`data`;
* IMPORTS: two imports of one module must not bind the same name.
These are OPA 1.x's checks for v1 modules: a module parsed as v0 (`--v0-compatible`, no
`import rego.v1`) skips them, as OPA does outside strict mode.
"""

from __future__ import annotations

from collections.abc import Iterator

from cupcake_py.rego import ast as A
from cupcake_py.rego.compile.diagnostics import Stage, StagedErrors
from cupcake_py.rego.compile.walk import body_exprs, term_exprs
from cupcake_py.rego.errors import COMPILE, RegoError

ROOT_NAMES = frozenset({"input", "data"})


def check_declarations(modules: list[A.Module], errors: StagedErrors) -> None:
    for m in modules:
        if m.rego_version == "v0":
            continue
        for rule in m.rules:
            _check_args(rule, errors)
            if rule.head.name in ROOT_NAMES:
                errors.add(Stage.KEYWORDS, RegoError(
                    COMPILE, f"rules must not shadow {rule.head.name} (use a different rule name)", rule.location))
            for e in rule_exprs(rule):
                lhs = _assigned(e)
                if lhs is not None and lhs in ROOT_NAMES:
                    errors.add(Stage.KEYWORDS, RegoError(
                        COMPILE, f"variables must not shadow {lhs} (use a different variable name)", e.location))
        _check_imports(m, errors)


def _check_args(rule: A.Rule, errors: StagedErrors) -> None:
    for a in rule.head.args or []:
        name = _root_in_pattern(a)
        if name is not None:
            errors.add(Stage.RESOLVE, RegoError(
                COMPILE, f"args must not shadow {name} (use a different variable name)", rule.location))
            return


def _root_in_pattern(t: A.Term) -> str | None:
    v = t.value
    if isinstance(v, A.Var):
        return v.name if v.name in ROOT_NAMES else None
    if isinstance(v, A.Ref) and len(v.terms) == 1:
        return _root_in_pattern(v.terms[0])
    items: list[A.Term] = []
    if isinstance(v, A.Array):
        items = v.items
    elif isinstance(v, A.Object):
        items = [x for _k, x in v.items]
    return next((found for found in map(_root_in_pattern, items) if found is not None), None)


def _assigned(e: A.Expr) -> str | None:
    """Name of the plain variable an `x := ...` expression assigns, else None."""
    if isinstance(e.terms, list) and e.operator == "assign" and len(e.terms) == 3:
        v = e.terms[1].value
        if isinstance(v, A.Var):
            return v.name
        if isinstance(v, A.Ref) and len(v.terms) == 1 and isinstance(v.terms[0].value, A.Var):
            return v.terms[0].value.name
    return None


def import_name(imp: A.Import) -> str:
    """The name an import binds: its alias, else the last element of its path."""
    if imp.alias is not None:
        return imp.alias
    ref = imp.path.value
    if isinstance(ref, A.Ref):
        last = ref.terms[-1].value
        if isinstance(last, A.String):
            return last.value
        if isinstance(last, A.Var):
            return last.name
    return ""


def import_text(imp: A.Import) -> str:
    from cupcake_py.rego.printer import Printer

    ref = imp.path.value
    path = Printer().ref(ref) if isinstance(ref, A.Ref) else ""
    return f"import {path}" + (f" as {imp.alias}" if imp.alias is not None else "")


def _check_imports(m: A.Module, errors: StagedErrors) -> None:
    seen: dict[str, A.Import] = {}
    for imp in m.imports:
        name = import_name(imp)
        if name in seen:
            errors.add(Stage.IMPORTS, RegoError(
                COMPILE, f"import must not shadow {import_text(seen[name])}", imp.location))
        else:
            seen[name] = imp


# ------------------------------------------------------------------ expressions of a source rule


def rule_exprs(rule: A.Rule) -> Iterator[A.Expr]:
    """Every expression of a rule (else branches, nested bodies and head terms included)."""
    r: A.Rule | None = rule
    while r is not None:
        h = r.head
        for t in (*(h.args or []), *h.ref.terms[1:], h.key, h.value):
            if t is not None:
                yield from term_exprs(t)
        yield from body_exprs(r.body)
        r = r.else_
