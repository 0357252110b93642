"""The one Rego printer: AST -> Rego v1 source. `parse_module(print_module(m))` equals `m`
(locations aside): the printer adds parentheses where precedence needs them and writes every
value in a form the parser reads back to the same node.

Modes of the same `Printer`: `Printer()` writes modules (bodies as indented blocks);
`Printer(inline=True)` writes every body on one line, which `print_compiled`
(rego/compile/listing.py) uses for the compiler's output (rules with their kind and data path,
`not { ... }` bodies) in tests and debugging. `annotations_to_dict` is a METADATA block as the
dict its YAML is written from (the printer's `# METADATA` comments, and `rego.metadata.*`). A view with other spellings subclasses `Printer` and overrides the methods of the
node kinds it writes differently (dispatch is by node type through `_TERM_METHODS`).
Fails with TypeError on a node that is not a Rego AST node.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import yaml

from cupcake_py.rego import ast as A

_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# call name -> (infix token, precedence) for operators usable inside terms
_INFIX: dict[str, tuple[str, int]] = {
    "internal.member_2": ("in", 0), "equal": ("==", 1), "neq": ("!=", 1), "lt": ("<", 1),
    "lte": ("<=", 1), "gt": (">", 1), "gte": (">=", 1), "or": ("|", 2), "and": ("&", 3),
    "plus": ("+", 4), "minus": ("-", 4), "mul": ("*", 5), "div": ("/", 5), "rem": ("%", 5),
}
INFIX_OPERATORS = frozenset(_INFIX)  # calls written as `a <op> b`
_PRIMARY = 9
_LIST_ITEM = 3  # items of [..], {..}: parenthesize `|` (and lower) so `{a | b}` stays a set


def string_literal(s: str) -> str:
    try:
        s.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: keep them as \\u escapes
        return json.dumps(s, ensure_ascii=True)
    return json.dumps(s, ensure_ascii=False)


class Printer:
    def __init__(self, indent: str = "\t", inline: bool = False) -> None:
        self.ind = indent
        self.inline = inline

    # ---------------------------------------------------------------- terms

    def term(self, t: A.Term, min_prec: int = 0) -> str:
        """`min_prec`: the binding strength the place needs (an infix call below it is parenthesized)."""
        method = _TERM_METHODS.get(type(t.value))
        if method is None:
            raise TypeError(f"cannot print term value {type(t.value).__name__}")
        return getattr(self, method)(t.value, min_prec)  # type: ignore[no-any-return]

    def var(self, v: A.Var, min_prec: int) -> str:
        return v.name

    def ref_term(self, v: A.Ref, min_prec: int) -> str:
        return self.ref(v)

    def string(self, v: A.String, min_prec: int) -> str:
        return string_literal(v.value)

    def number(self, v: A.Number, min_prec: int) -> str:
        return v.text

    def boolean(self, v: A.Boolean, min_prec: int) -> str:
        return "true" if v.value else "false"

    def null(self, v: A.Null, min_prec: int) -> str:
        return "null"

    def items(self, terms: list[A.Term]) -> str:
        return ", ".join(self.term(x, _LIST_ITEM) for x in terms)

    def array(self, v: A.Array, min_prec: int) -> str:
        return "[" + self.items(v.items) + "]"

    def set(self, v: A.Set, min_prec: int) -> str:
        return "{" + self.items(v.items) + "}" if v.items else "set()"

    def pair(self, k: A.Term, v: A.Term, min_prec: int = _LIST_ITEM) -> str:
        return f"{self.term(k, min_prec)}: {self.term(v, min_prec)}"

    def object(self, v: A.Object, min_prec: int) -> str:
        return "{" + ", ".join(self.pair(k, x) for k, x in v.items) + "}"

    def array_comprehension(self, v: A.ArrayComprehension, min_prec: int) -> str:
        return f"[{self.term(v.term, _PRIMARY)} | {self.inline_body(v.body)}]"

    def set_comprehension(self, v: A.SetComprehension, min_prec: int) -> str:
        return f"{{{self.term(v.term, _PRIMARY)} | {self.inline_body(v.body)}}}"

    def object_comprehension(self, v: A.ObjectComprehension, min_prec: int) -> str:
        return f"{{{self.pair(v.key, v.value, _PRIMARY)} | {self.inline_body(v.body)}}}"

    def ref(self, r: A.Ref) -> str:
        head = r.terms[0]
        out = [self.term(head, _PRIMARY) if not isinstance(head.value, A.Var) else head.value.name]
        for t in r.terms[1:]:
            if isinstance(t.value, A.String) and _IDENT_RE.match(t.value.value):
                out.append("." + t.value.value)
            else:
                out.append("[" + self.term(t) + "]")
        return "".join(out)

    def call_term(self, c: A.Call, min_prec: int) -> str:
        return self.call(c, min_prec)

    def call(self, c: A.Call, min_prec: int) -> str:
        name = c.name
        infix = _INFIX.get(name or "")
        if infix is not None and len(c.args) == 2:
            op, prec = infix
            text = f"{self.term(c.args[0], prec)} {op} {self.term(c.args[1], prec + 1)}"
            return f"({text})" if prec < min_prec else text
        return f"{self.ref(c.operator)}({', '.join(self.term(a) for a in c.args)})"

    def template(self, v: A.TemplateString, min_prec: int) -> str:
        out = ["$`" if v.multi_line else '$"']
        for p in v.parts:
            if isinstance(p, A.Expr):
                out.append("{" + self.expr(p, 0) + "}")
            else:
                assert isinstance(p.value, A.String)
                s = p.value.value
                if v.multi_line:
                    out.append(s.replace("{", "\\{"))
                else:
                    out.append(string_literal(s)[1:-1].replace("{", "\\{"))
        out.append("`" if v.multi_line else '"')
        return "".join(out)

    # ---------------------------------------------------------------- expressions

    def expr(self, e: A.Expr, depth: int, opens_block: bool = False) -> str:
        """`opens_block`: the first expression of a `{ ... }` body, where a top-level `a | b`
        would make the braces read as a set comprehension (`p if { a | b }`): parenthesized."""
        t = e.terms
        if isinstance(t, list):
            text = self.call_expr(t)
            if opens_block and A.operator_name(t[0]) == "or":
                text = f"({text})"
        elif isinstance(t, A.Term):
            text = self.term(t)
        else:
            text = getattr(self, _EXPR_METHODS[type(t)])(t, depth)
        if e.negated:
            text = self.negated(text)
        for w in e.with_:
            text += self.with_modifier(w)
        return text

    def negated(self, text: str) -> str:
        return "not " + text

    def with_modifier(self, w: A.With) -> str:
        return f" with {self.term(w.target, _PRIMARY)} as {self.term(w.value)}"

    def every(self, t: A.Every, depth: int) -> str:
        key = f"{self.term(t.key)}, " if t.key is not None else ""
        return f"every {key}{self.term(t.value)} in {self.term(t.domain, 1)} {self.block(t.body, depth)}"

    def not_body(self, t: A.NotBody, depth: int) -> str:
        """A compiled negated body (the compiler's form of `not` over several expressions)."""
        return f"not {self.block(t.body, depth)}"

    def some(self, s: A.SomeDecl, depth: int = 0) -> str:
        return "some " + self.some_symbols(s)

    def some_symbols(self, s: A.SomeDecl) -> str:
        if len(s.symbols) == 1 and isinstance(s.symbols[0].value, A.Call):
            c = s.symbols[0].value
            *lhs, dom = c.args
            return ", ".join(self.term(x, 1) for x in lhs) + " in " + self.term(dom, 1)
        return ", ".join(self.term(x) for x in s.symbols)

    def call_expr(self, terms: list[A.Term]) -> str:
        op, *args = terms
        name = A.operator_name(op)
        if name in ("assign", "eq") and len(args) == 2:
            sym = ":=" if name == "assign" else "="
            return f"{self.term(args[0])} {sym} {self.term(args[1])}"
        if name == "internal.member_3" and len(args) == 3:
            return f"{self.term(args[0], 1)}, {self.term(args[1], 1)} in {self.term(args[2], 1)}"
        ref = op.value if isinstance(op.value, A.Ref) else A.Ref([op])
        return self.call(A.Call(ref, args), 0)

    def inline_body(self, body: A.Body) -> str:
        return "; ".join(self.expr(e, 0) for e in body)

    def block(self, body: A.Body, depth: int) -> str:
        if self.inline:
            return "{ " + "; ".join(self.expr(e, 0, i == 0) for i, e in enumerate(body)) + " }"
        pad = self.ind * (depth + 1)
        texts = [self.expr(e, depth + 1, i == 0) for i, e in enumerate(body)]
        # a line starting with `-` would continue the previous expression (binary minus)
        lines = "".join(f"{pad}{t}{';' if i + 1 < len(texts) and texts[i + 1].startswith('-') else ''}\n"
                        for i, t in enumerate(texts))
        return "{\n" + lines + self.ind * depth + "}"

    # ---------------------------------------------------------------- rules & modules

    @staticmethod
    def _trivial(body: A.Body) -> bool:
        if len(body) != 1:
            return False
        e = body[0]
        return (isinstance(e.terms, A.Term) and isinstance(e.terms.value, A.Boolean) and e.terms.value.value
                and not e.negated and not e.with_)

    def head_ref(self, r: A.Ref) -> str:
        return self.ref(r)

    def rule(self, r: A.Rule) -> str:
        out = [self.annotations(a) for a in r.annotations]
        h = r.head
        text = ("default " if r.default else "") + self.head_ref(h.ref)
        if h.args is not None:
            text += "(" + ", ".join(self.term(a) for a in h.args) + ")"
        value_shown = True
        if h.key is not None:
            text += " contains " + self.term(h.key)
        elif h.value is not None:
            implicit = (not h.assign and not r.default and isinstance(h.value.value, A.Boolean)
                        and h.value.value.value)
            if implicit:
                value_shown = False
            else:
                text += (" := " if h.assign else " = ") + self.term(h.value)
        # `else` follows a body only: a rule or else branch with one keeps its `if`
        if not value_shown or not self._trivial(r.body) or r.else_ is not None:
            text += " if " + self.block(r.body, 0)
        e = r.else_
        while e is not None:
            text += " else"
            if e.head.value is not None:
                text += (" := " if e.head.assign else " = ") + self.term(e.head.value)
            if not self._trivial(e.body) or e.else_ is not None:
                text += " if " + self.block(e.body, 0)
            e = e.else_
        out.append(text)
        return "\n".join(out)

    def annotations(self, a: A.Annotations) -> str:
        text = yaml.safe_dump(annotations_to_dict(a), sort_keys=False, allow_unicode=True).rstrip("\n")
        return "# METADATA\n" + "\n".join("# " + line for line in text.split("\n"))

    def package_path(self, path: A.Ref) -> str:
        names = path.terms[1:]
        first = names[0].value
        assert isinstance(first, A.String)
        return first.value + self.ref(A.Ref([A.var_term("x"), *names[1:]]))[1:]

    def module(self, m: A.Module) -> str:
        out = [self.annotations(a) for a in m.package.annotations]
        out.append("package " + self.package_path(m.package.path) + "\n")
        for imp in m.imports:
            assert isinstance(imp.path.value, A.Ref)
            out.append("import " + self.ref(imp.path.value) + (f" as {imp.alias}" if imp.alias else ""))
        if m.imports:
            out.append("")
        for r in m.rules:
            out.append(self.rule(r) + "\n")
        return "\n".join(out)


def _ref_text(r: A.Ref) -> str:
    return Printer().ref(r)


def _schema_yaml(s: A.SchemaAnnotation) -> dict[str, Any]:
    return {_ref_text(s.path): _ref_text(s.schema) if s.schema is not None else s.definition}


def annotations_to_dict(a: A.Annotations, schema: Callable[[A.SchemaAnnotation], dict[str, Any]] = _schema_yaml,
                        value: Callable[[Any], Any] = lambda v: v) -> dict[str, Any]:
    """One block as a dict, fields left at their defaults omitted: the YAML-ready form by
    default; `schema` writes one schema entry and `value` converts free-form values (`custom`)
    for other forms (OPA's JSON form in host/builtins/rego_module.py)."""
    d: dict[str, Any] = {"scope": a.scope}
    if a.title is not None:
        d["title"] = a.title
    if a.description is not None:
        d["description"] = a.description
    if a.organizations:
        d["organizations"] = list(a.organizations)
    if a.related_resources:
        d["related_resources"] = [
            {"ref": r.ref, **({"description": r.description} if r.description else {})}
            for r in a.related_resources
        ]
    if a.authors:
        d["authors"] = [{k: v for k, v in (("name", x.name), ("email", x.email)) if v} for x in a.authors]
    if a.schemas:
        d["schemas"] = [schema(s) for s in a.schemas]
    if a.entrypoint:
        d["entrypoint"] = True
    if a.custom:
        d["custom"] = value(a.custom)
    return d


def print_module(m: A.Module) -> str:
    return Printer().module(m)


def print_term(t: A.Term) -> str:
    return Printer().term(t)


def print_body(body: A.Body) -> str:
    return Printer().inline_body(body)


_TERM_METHODS: dict[type, str] = {
    A.Call: "call_term", A.Var: "var", A.Ref: "ref_term", A.String: "string", A.Number: "number",
    A.Boolean: "boolean", A.Null: "null", A.Array: "array", A.Set: "set", A.Object: "object",
    A.ArrayComprehension: "array_comprehension", A.SetComprehension: "set_comprehension",
    A.ObjectComprehension: "object_comprehension", A.TemplateString: "template",
}
_EXPR_METHODS: dict[type, str] = {A.SomeDecl: "some", A.Every: "every", A.NotBody: "not_body"}
