"""rego.parse_module: parse Rego with our front end, return OPA's AST JSON shape.

OPA returns its module marshalled to JSON (without locations) and read back as a Rego
value. The shape, node by node:

* module ``{"package": {"path": REF}, "imports": [...], "annotations": [...],
  "rules": [...], "comments": [...]}`` (empty lists left out);
* import ``{"path": TERM, "alias": "x"}``; comment ``{"Text": base64, "Location":
  {"file", "row", "col"}}`` (OPA's Go field names);
* rule ``{"head": HEAD, "body": [EXPR...], "default": true, "else": RULE,
  "annotations": [...]}``; head ``{"name", "ref": REF, "args", "key", "value",
  "assign": true}`` (``name`` only for a one-var ref; absent parts left out);
* expr ``{"index": i, "terms": TERM | [TERM...] | {"symbols": [...]} |
  {"key", "value", "domain", "body"}, "negated": true, "with": [{"target", "value"}]}``;
* term ``{"type": T, "value": V}`` with T one of null boolean number string var ref array
  object set arraycomprehension setcomprehension objectcomprehension call
  templatestring; objects are ``[[k, v], ...]``, sets sorted, comprehensions
  ``{"term"/"key"+"value", "body"}``, calls ``[operator, args...]``, template strings
  ``{"multi_line", "parts"}``.

Wildcards ``_`` become ``$0``, ``$1``, ... in source order, as OPA's parser names them.
"""

from __future__ import annotations

import base64
import functools
from decimal import Decimal
from typing import Any

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import BuiltinError, want_str
from cupcake_py.host.builtins._values import from_plain
from cupcake_py.rego import RegoErrors, parse_module
from cupcake_py.rego import ast as A
from cupcake_py.rego.printer import annotations_to_dict

_F = "rego.parse_module"
_TYPE_ORDER = {A.Null: 0, A.Boolean: 1, A.Number: 2, A.String: 3, A.Var: 4, A.Ref: 5, A.Array: 6, A.Object: 7,
               A.Set: 8, A.ArrayComprehension: 9, A.ObjectComprehension: 10, A.SetComprehension: 11, A.Call: 12,
               A.TemplateString: 13}  # fmt: skip
_TYPE_NAME = {
    A.Null: "null",
    A.Boolean: "boolean",
    A.Number: "number",
    A.String: "string",
    A.Var: "var",
    A.Ref: "ref",
    A.Array: "array",
    A.Object: "object",
    A.Set: "set",
    A.ArrayComprehension: "arraycomprehension",
    A.SetComprehension: "setcomprehension",
    A.ObjectComprehension: "objectcomprehension",
    A.Call: "call",
    A.TemplateString: "templatestring",
}


def _cmp(a: A.Value, b: A.Value) -> int:
    """OPA's term order on (possibly non-ground) parsed values."""
    ta, tb = _TYPE_ORDER[type(a)], _TYPE_ORDER[type(b)]
    if ta != tb:
        return -1 if ta < tb else 1
    if isinstance(a, A.Null):
        return 0
    ka: Any
    kb: Any
    if isinstance(a, A.Boolean | A.String) and isinstance(b, A.Boolean | A.String):
        ka, kb = a.value, b.value
    elif isinstance(a, A.Number) and isinstance(b, A.Number):
        ka, kb = Decimal(a.text), Decimal(b.text)
    elif isinstance(a, A.Var) and isinstance(b, A.Var):
        ka, kb = a.name, b.name
    else:
        return _cmp_seq(_children(a), _children(b))
    return int(ka > kb) - int(ka < kb)


def _cmp_terms(a: A.Term, b: A.Term) -> int:
    return _cmp(a.value, b.value)


def _children(v: A.Value) -> list[A.Value]:
    if isinstance(v, A.Ref):
        return [t.value for t in v.terms]
    if isinstance(v, A.Array | A.Set):
        return [t.value for t in v.items]
    if isinstance(v, A.Object):
        return [x.value for kv in v.items for x in kv]
    if isinstance(v, A.Call):
        return [A.Ref(v.operator.terms), *(t.value for t in v.args)]
    return []  # comprehensions/templates: equal for ordering purposes


def _cmp_seq(xs: list[A.Value], ys: list[A.Value]) -> int:
    for x, y in zip(xs, ys, strict=False):
        c = _cmp(x, y)
        if c:
            return c
    return (len(xs) > len(ys)) - (len(xs) < len(ys))


class _Converter:
    def __init__(self) -> None:
        self.wildcards = 0

    def term(self, t: A.Term) -> dict[str, Any]:
        return {"type": _TYPE_NAME[type(t.value)], "value": self.value(t.value)}

    def terms(self, ts: list[A.Term]) -> list[Any]:
        return [self.term(t) for t in ts]

    def value(self, v: A.Value) -> Any:
        if isinstance(v, A.Null):
            return None
        if isinstance(v, A.Boolean | A.String):
            return v.value
        if isinstance(v, A.Number):
            return v.value
        if isinstance(v, A.Var):
            if v.name == "_":
                self.wildcards += 1
                return f"${self.wildcards - 1}"
            return v.name
        if isinstance(v, A.Ref):
            return self.terms(v.terms)
        if isinstance(v, A.Array):
            return self.terms(v.items)
        if isinstance(v, A.Set):
            unique: list[A.Term] = []
            for t in v.items:
                if not any(_cmp(t.value, u.value) == 0 for u in unique):
                    unique.append(t)
            return self.terms(sorted(unique, key=functools.cmp_to_key(_cmp_terms)))
        if isinstance(v, A.Object):
            return [[self.term(k), self.term(x)] for k, x in v.items]
        if isinstance(v, A.ArrayComprehension | A.SetComprehension):
            return {"term": self.term(v.term), "body": self.body(v.body)}
        if isinstance(v, A.ObjectComprehension):
            return {"key": self.term(v.key), "value": self.term(v.value), "body": self.body(v.body)}
        if isinstance(v, A.Call):
            return [self.term(A.Term(v.operator)), *self.terms(v.args)]
        if isinstance(v, A.TemplateString):
            parts = [self.term(p) if isinstance(p, A.Term) else self.expr(p) for p in v.parts]
            return {"multi_line": v.multi_line, "parts": parts}
        raise TypeError(f"unknown AST value {type(v).__name__}")

    def body(self, body: A.Body) -> list[Any]:
        return [self.expr(e, i) for i, e in enumerate(body)]

    def expr(self, e: A.Expr, index: int | None = None) -> dict[str, Any]:
        out: dict[str, Any] = {"index": e.index if index is None else index}
        t = e.terms
        if isinstance(t, A.Term):
            out["terms"] = self.term(t)
        elif isinstance(t, list):
            out["terms"] = self.terms(t)
        elif isinstance(t, A.SomeDecl):
            out["terms"] = {"symbols": self.terms(t.symbols)}
        elif isinstance(t, A.Every):
            ev: dict[str, Any] = {}
            if t.key is not None:
                ev["key"] = self.term(t.key)
            ev.update(value=self.term(t.value), domain=self.term(t.domain), body=self.body(t.body))
            out["terms"] = ev
        else:  # the compiler's NotBody: rego.parse_module output is never compiled
            raise TypeError(f"unknown AST expression {type(t).__name__}")
        if e.negated:
            out["negated"] = True
        if e.with_:
            out["with"] = [{"target": self.term(w.target), "value": self.term(w.value)} for w in e.with_]
        return out

    def head(self, h: A.Head) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if len(h.ref.terms) == 1 and isinstance(h.ref.terms[0].value, A.Var):
            out["name"] = h.name
        out["ref"] = self.terms(h.ref.terms)
        if h.args:
            out["args"] = self.terms(h.args)
        if h.key is not None:
            out["key"] = self.term(h.key)
        if h.value is not None:
            out["value"] = self.term(h.value)
        if h.assign:
            out["assign"] = True
        return out

    def rule(self, r: A.Rule) -> dict[str, Any]:
        out: dict[str, Any] = {"head": self.head(r.head), "body": self.body(r.body)}
        if r.default:
            out["default"] = True
        if r.else_ is not None:
            out["else"] = self.rule(r.else_)
        if r.annotations:
            out["annotations"] = [annotations_json(a) for a in r.annotations]
        return out

    def module(self, m: A.Module) -> dict[str, Any]:
        out: dict[str, Any] = {"package": {"path": self.terms(m.package.path.terms)}}
        if m.imports:
            out["imports"] = [
                {"path": self.term(i.path), **({"alias": i.alias} if i.alias else {})} for i in m.imports
            ]
        if m.annotations:
            out["annotations"] = [annotations_json(a) for a in m.annotations]
        if m.rules:
            out["rules"] = [self.rule(r) for r in m.rules]
        if m.comments:
            out["comments"] = [
                {
                    "Text": base64.b64encode(c.text.encode()).decode(),
                    "Location": {"file": c.location.file, "row": c.location.row, "col": c.location.col},
                }
                for c in m.comments
            ]
        return out


def annotations_json(a: A.Annotations) -> dict[str, Any]:
    """A METADATA block in OPA's JSON form (empty fields left out)."""
    conv = _Converter()

    def schema(s: A.SchemaAnnotation) -> dict[str, Any]:
        return {
            "path": conv.terms(s.path.terms),
            **({"schema": conv.terms(s.schema.terms)} if s.schema is not None else {}),
            **({"definition": from_plain(s.definition)} if s.definition is not None else {}),
        }

    return annotations_to_dict(a, schema, from_plain)


def module_json(text: str, filename: str) -> dict[str, Any]:
    """OPA's AST JSON of a Rego module (raises RegoErrors)."""
    return _Converter().module(parse_module(text, filename))


@builtin("rego.parse_module")
def rego_parse_module(ctx: BuiltinContext, filename: Any, text: Any) -> dict[str, Any]:
    fname = want_str(_F, 1, filename)
    src = want_str(_F, 2, text)
    try:
        return module_json(src, fname)
    except RegoErrors as e:
        errs = e.errors
        msg = f"1 error occurred: {errs[0]}" if len(errs) == 1 else str(e)
        raise BuiltinError(f"{_F}: {msg}") from None
