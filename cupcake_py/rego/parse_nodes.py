"""Small builders of AST nodes for the parser (operator calls, the generated `true` body)
and OPA's names for token and value kinds, as its parse errors spell them; the checks OPA's
parser makes of default rules, number literals and template holes (a message, or None).

Pure functions of their arguments; nothing here raises."""

from __future__ import annotations

import math
from decimal import Decimal

from cupcake_py.core.errors import Location
from cupcake_py.rego import ast as A
from cupcake_py.rego.lexer import NUM, RAW, STR, TMPL


def op_ref(name: str, loc: Location) -> A.Ref:
    return A.ref_of(name, loc)


def call_term(op: str, args: list[A.Term], loc: Location) -> A.Term:
    return A.Term(A.Call(op_ref(A.OPERATORS[op], loc), args), loc)


def true_body(loc: Location) -> A.Body:
    return [A.Expr(A.Term(A.Boolean(True), loc), generated=True, location=loc)]


TOKEN_NAMES = {NUM: "number", STR: "string", RAW: "string", TMPL: "template string"}
VALUE_NAMES: dict[type, str] = {
    A.Null: "null", A.Boolean: "boolean", A.Number: "number", A.String: "string", A.Var: "var",
    A.Ref: "ref", A.Call: "call", A.Array: "array", A.Object: "object", A.Set: "set",
    A.ArrayComprehension: "arraycomprehension", A.SetComprehension: "setcomprehension",
    A.ObjectComprehension: "objectcomprehension", A.TemplateString: "templatestring",
}


def value_name(v: A.Value) -> str:
    return VALUE_NAMES.get(type(v), "term")


def evaluated_part(t: A.Term) -> str | None:
    """`var`, `ref` or `call` if the term holds one outside comprehensions (OPA's names)."""
    v = t.value
    if isinstance(v, A.Var):
        return "var"
    if isinstance(v, A.Ref):
        return "ref"
    if isinstance(v, A.Call | A.TemplateString):
        return "call"
    items: list[A.Term] = []
    if isinstance(v, A.Array | A.Set):
        items = v.items
    elif isinstance(v, A.Object):
        items = [x for kv in v.items for x in kv]
    return next((found for found in map(evaluated_part, items) if found is not None), None)


def default_rule_problem(head: A.Head) -> str | None:
    """OPA's checks of a default rule: a value that needs no evaluation (comprehensions
    aside), and plain, distinct variables as function arguments."""
    if head.value is None:
        return "must have a value"
    found = evaluated_part(head.value)
    if found is not None:
        return f"value cannot contain {found}"
    seen: set[str] = set()
    for a in head.args or []:
        if not isinstance(a.value, A.Var):
            return f"arguments cannot contain {value_name(a.value)}"
        if a.value.name in seen and a.value.name != "_":
            return f"arguments cannot be repeated {a.value.name}"
        seen.add(a.value.name)
    return None


def number_problem(text: str) -> str | None:
    """What OPA's parser says about a number literal it refuses, or None."""
    if len(text) > 1 and text[0] == "0" and text[1].isdigit():
        return "expected number without leading zero"
    if ("e" in text or "E" in text or len(text) > 30_000) and _binary_exponent(text) > 100_000:
        return "number too big"
    return None


def template_hole_problem(e: A.Expr) -> str | None:
    """What OPA refuses inside a template hole: negation, `=`, `:=`, `every`, `some`."""
    if e.negated:
        return "negation ('not')"
    if isinstance(e.terms, A.Every):
        return "'every'"
    if isinstance(e.terms, A.SomeDecl):
        return "'some'"
    if isinstance(e.terms, list):
        op = A.operator_name(e.terms[0])
        return {"eq": "unification ('=')", "assign": "assignment (':=')"}.get(op or "")
    return None


def _binary_exponent(text: str) -> int:
    """|e| of the number as m * 2**e with 0.5 <= m < 1 (OPA rejects |e| > 1e5: `number too big`)."""
    digits, _, exp = text.lower().partition("e")
    d = Decimal(digits)  # the exponent apart: it may be beyond any Decimal context
    if d == 0:
        return 0
    exp10 = d.adjusted() + int(exp or "0")
    mantissa = abs(float(d.scaleb(-d.adjusted())))
    return abs(math.floor((exp10 + math.log10(mantissa)) * math.log2(10)) + 1)
