"""Small builders of AST nodes for the parser (operator calls, the generated `true` body)
and OPA's names for token and value kinds, as its parse errors spell them.

Pure functions of their arguments; nothing here fails."""

from __future__ import annotations

from cupcake_py.errors import Location
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
    for x in items:
        found = evaluated_part(x)
        if found is not None:
            return found
    return None
