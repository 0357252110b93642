"""The validation walk behind json.match_schema, with the results OPA's JSON-schema library
(a fork of gojsonschema) gives.

In: a schema already checked by `jsonschema` (`check_schema`) and a document, both plain JSON
data (dict/list/str/int/float/bool/None). Out: the list of errors in the order the walk finds
them, each `{"error", "type", "field", "desc"}` as OPA returns them.

What OPA's library does and this walk keeps:
- a type mismatch stops the walk of that node; otherwise sub-schema keywords (anyOf, oneOf,
  allOf, not, dependencies, if/then/else) come first, then the keywords of the node's kind
  (array, object, string, number), then const/enum/format, then the object's `properties`;
- every check scores (+1 per node passed, -1 per error); a failing `anyOf`/`oneOf`/`contains`
  reports its own error followed by the errors of the closest sub-schema (highest score, the
  first one on ties); `allOf` reports the errors of each sub-schema, then its own;
- `field` is the dotted path below the root (`a.0.b`), the root itself is `(Root)`;
- messages are the library's English locale (`Array must have at least 3 items`,
  `array items[0,1] must be unique`, ...).
Fails closed: a `$ref` that is not a JSON pointer into the schema raises SchemaWalkError (the
builtin turns it into an error, never a pass). Object keys and dependencies are walked in
sorted order (Go's map order is random; sorted keeps results deterministic).
"""

from __future__ import annotations

import json
from decimal import Decimal
from fractions import Fraction
from typing import Any
from urllib.parse import unquote

from cupcake_py.host.builtins._re2 import compile_go

ROOT = "(Root)"


class SchemaWalkError(Exception):
    """The schema cannot be walked (an unresolvable `$ref`)."""


_GO_HTML_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def _json(v: Any) -> str:
    """Go's json.Marshal of the value read back without exact numbers (the library's
    marshalWithoutNumber): numbers as float64, keys sorted, no spaces, HTML characters escaped."""
    if v is None or isinstance(v, bool):
        return json.dumps(v)
    if isinstance(v, int | float):
        try:
            return _go_float(float(v))
        except OverflowError:  # beyond float64: Go fails to read it back; keep the digits
            return str(v)
    if isinstance(v, str):
        text = json.dumps(v, ensure_ascii=False)
        return "".join(_GO_HTML_ESCAPES.get(c, c) for c in text)
    if isinstance(v, list):
        return "[" + ",".join(_json(x) for x in v) + "]"
    return "{" + ",".join(f"{_json(k)}:{_json(x)}" for k, x in sorted(v.items())) + "}"


def _go_float(f: float) -> str:
    """A float64 as Go's encoding/json writes it (shortest digits; exponent outside [1e-6, 1e21))."""
    if f == 0 or 1e-6 <= abs(f) < 1e21:
        d = Decimal(repr(f))
        return str(int(d)) if d == d.to_integral_value() else format(d.normalize(), "f")
    text = repr(f)
    mant, _, exp = text.partition("e")
    if exp.startswith("-0") and len(exp) == 3:  # Go cleans e-07 up to e-7
        exp = "-" + exp[2]
    return f"{mant}e{exp}"


_HUGE = Fraction(10) ** 4000  # a document number too long to hold exactly (jsonschema_._json_number)


def _num(v: Any) -> Fraction:
    if isinstance(v, float) and v in (float("inf"), float("-inf")):
        return _HUGE if v > 0 else -_HUGE
    return Fraction(Decimal(str(v))) if isinstance(v, float) else Fraction(v)


def _show(n: Any) -> str:
    """A schema number as Go prints a big.Float with %v: the shortest digits, in %e form when
    the exponent is below -4 or at least 6 (`1e+06`, `2.147483647e+09`, `65535`)."""
    d = Decimal(str(n)).normalize()
    if d == 0:
        return "0"
    sign, digits, exponent = d.as_tuple()
    mant = "".join(map(str, digits))
    x = len(mant) + int(exponent) - 1
    if x < -4 or x >= 6:
        frac = "." + mant[1:] if len(mant) > 1 else ""
        return f"{'-' if sign else ''}{mant[0]}{frac}e{'-' if x < 0 else '+'}{abs(x):02d}"
    return format(d, "f")


def _kind(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int):
        return "integer"
    if isinstance(v, float):  # (an infinite one stands for an integer too long to hold)
        return "integer" if v.is_integer() or v in (float("inf"), float("-inf")) else "number"
    if isinstance(v, str):
        return "string"
    return "array" if isinstance(v, list) else "object"


def _types(schema: dict[str, Any]) -> list[str]:
    t = schema.get("type")
    if t is None:
        return []
    return [t] if isinstance(t, str) else list(t)


_MESSAGES = {
    "false": "False always fails validation",
    "required": "{property} is required",
    "invalid_type": "Invalid type. Expected: {expected}, given: {given}",
    "number_any_of": "Must validate at least one schema (anyOf)",
    "number_one_of": "Must validate one and only one schema (oneOf)",
    "number_all_of": "Must validate all the schemas (allOf)",
    "number_not": "Must not validate the schema (not)",
    "missing_dependency": "Has a dependency on {dependency}",
    "const": "{field} does not match: {allowed}",
    "enum": "{field} must be one of the following: {allowed}",
    "array_no_additional_items": "No additional items allowed on array",
    "array_min_items": "Array must have at least {min} items",
    "array_max_items": "Array must have at most {max} items",
    "unique": "{type} items[{i},{j}] must be unique",
    "contains": "At least one of the items must match",
    "array_min_properties": "Must have at least {min} properties",
    "array_max_properties": "Must have at most {max} properties",
    "additional_property_not_allowed": "Additional property {property} is not allowed",
    "invalid_property_name": 'Property name of "{property}" does not match',
    "string_gte": "String length must be greater than or equal to {min}",
    "string_lte": "String length must be less than or equal to {max}",
    "pattern": "Does not match pattern '{pattern}'",
    "format": "Does not match format '{format}'",
    "multiple_of": "Must be a multiple of {multiple}",
    "number_gte": "Must be greater than or equal to {min}",
    "number_gt": "Must be greater than {min}",
    "number_lte": "Must be less than or equal to {max}",
    "number_lt": "Must be less than {max}",
    "condition_then": 'Must validate "then" as "if" was valid',
    "condition_else": 'Must validate "else" as "if" was not valid',
}


class _Result:
    __slots__ = ("errors", "score")

    def __init__(self) -> None:
        self.errors: list[dict[str, str]] = []
        self.score = 0

    def add(self, kind: str, path: tuple[str, ...], **details: Any) -> None:
        field = ".".join(path) if path else ROOT
        desc = _MESSAGES[kind].format(field=field, **{k: str(v) for k, v in details.items()})
        self.errors.append({"error": f"{field}: {desc}", "type": kind, "field": field, "desc": desc})
        self.score -= 2  # net -1 with the +1 every check adds when it ends

    def merge(self, other: _Result) -> None:
        self.errors.extend(other.errors)
        self.score += other.score


class _Walk:
    def __init__(self, root: Any, format_ok: Any) -> None:
        self.root = root
        self.format_ok = format_ok

    def resolve(self, ref: str) -> Any:
        if not ref.startswith("#"):
            raise SchemaWalkError(f"unsupported $ref {ref!r}: only references inside the schema are resolved")
        node = self.root
        for raw in [p for p in ref[1:].split("/") if p]:
            part = unquote(raw).replace("~1", "/").replace("~0", "~")
            if isinstance(node, dict) and part in node:
                node = node[part]
            elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
                node = node[int(part)]
            else:
                raise SchemaWalkError(f"$ref {ref!r} does not resolve inside the schema")
        return node

    def sub(self, schema: Any, node: Any, path: tuple[str, ...]) -> _Result:
        r = _Result()
        self.node(schema, node, r, path)
        return r

    def node(self, schema: Any, node: Any, r: _Result, path: tuple[str, ...], depth: int = 0) -> None:
        if depth > 200:
            raise SchemaWalkError("$ref cycle")
        if isinstance(schema, bool):
            if not schema:
                r.add("false", path)
            return
        if "$ref" in schema:
            self.node(self.resolve(schema["$ref"]), node, r, path, depth + 1)
            return
        types = _types(schema)
        kind = _kind(node)
        ok = not types or kind in types or (kind == "integer" and "number" in types)
        if not ok:
            expected = types[0] if len(types) == 1 else "[" + ",".join(types) + "]"
            r.add("invalid_type", path, expected=expected, given=kind)
            return
        self.combinators(schema, node, r, path)
        if kind in ("integer", "number"):
            self.number(schema, node, r, path)
        elif kind == "array":
            self.array(schema, node, r, path)
        elif kind == "object":
            self.object(schema, node, r, path)
        self.common(schema, node, r, path)
        if kind == "string":
            self.string(schema, node, r, path)
        if kind == "object":
            for key, child in sorted((schema.get("properties") or {}).items()):
                if key in node:
                    r.merge(self.sub(child, node[key], (*path, key)))
        r.score += 1

    def closest(self, schemas: list[Any], node: Any, path: tuple[str, ...]) -> tuple[int, _Result | None]:
        valid, best = 0, None
        for s in schemas:
            res = self.sub(s, node, path)
            if not res.errors:
                valid += 1
            elif valid == 0 and (best is None or res.score > best.score):
                best = res
        return valid, best

    def combinators(self, schema: dict[str, Any], node: Any, r: _Result, path: tuple[str, ...]) -> None:
        if schema.get("anyOf"):
            best = None
            for s in schema["anyOf"]:
                res = self.sub(s, node, path)
                if not res.errors:
                    best = None
                    break
                if best is None or res.score > best.score:
                    best = res
            else:
                r.add("number_any_of", path)
                if best is not None:
                    r.merge(best)
        if schema.get("oneOf"):
            valid, best = self.closest(schema["oneOf"], node, path)
            if valid != 1:
                r.add("number_one_of", path)
                if valid == 0 and best is not None:
                    r.merge(best)
        if schema.get("allOf"):
            passed = 0
            for s in schema["allOf"]:
                res = self.sub(s, node, path)
                passed += not res.errors
                r.merge(res)
            if passed != len(schema["allOf"]):
                r.add("number_all_of", path)
        if "not" in schema and not self.sub(schema["not"], node, path).errors:
            r.add("number_not", path)
        deps = schema.get("dependencies") or {}
        if isinstance(node, dict):
            for key in sorted(k for k in node if k in deps):
                dep = deps[key]
                if isinstance(dep, list):
                    for other in dep:
                        if other not in node:
                            r.add("missing_dependency", path, dependency=other)
                else:
                    self.node(dep, node, r, path)
        if "if" in schema:
            cond = not self.sub(schema["if"], node, path).errors
            branch, kind = ("then", "condition_then") if cond else ("else", "condition_else")
            if branch in schema:
                res = self.sub(schema[branch], node, path)
                if res.errors:
                    r.add(kind, path)
                    r.merge(res)
        r.score += 1

    def common(self, schema: dict[str, Any], node: Any, r: _Result, path: tuple[str, ...]) -> None:
        if "const" in schema and _json(node) != _json(schema["const"]):
            r.add("const", path, allowed=_json(schema["const"]))
        if "enum" in schema:
            allowed = [_json(x) for x in schema["enum"]]
            if _json(node) not in allowed:
                r.add("enum", path, allowed=", ".join(allowed) if allowed else "(none)")
        fmt = schema.get("format")
        if isinstance(fmt, str) and fmt and not self.format_ok(node, fmt):
            r.add("format", path, format=fmt)
        r.score += 1

    def array(self, schema: dict[str, Any], node: list[Any], r: _Result, path: tuple[str, ...]) -> None:
        items = schema.get("items")
        if isinstance(items, dict | bool):
            for i, x in enumerate(node):
                r.merge(self.sub(items, x, (*path, str(i))))
        elif isinstance(items, list) and items:
            for i, (s, x) in enumerate(zip(items, node, strict=False)):
                r.merge(self.sub(s, x, (*path, str(i))))
            extra = schema.get("additionalItems")
            if len(items) < len(node):
                if extra is False:
                    r.add("array_no_additional_items", path)
                elif isinstance(extra, dict):
                    for i in range(len(items), len(node)):
                        r.merge(self.sub(extra, node[i], (*path, str(i))))
        if "minItems" in schema and len(node) < schema["minItems"]:
            r.add("array_min_items", path, min=schema["minItems"])
        if "maxItems" in schema and len(node) > schema["maxItems"]:
            r.add("array_max_items", path, max=schema["maxItems"])
        if schema.get("uniqueItems") is True:
            seen: dict[str, int] = {}
            for j, x in enumerate(node):
                text = _json(x)
                if text in seen:
                    r.add("unique", path, type="array", i=seen[text], j=j)
                seen[text] = j
        if "contains" in schema:
            best = None
            for i, x in enumerate(node):
                res = self.sub(schema["contains"], x, (*path, str(i)))
                if not res.errors:
                    break
                if best is None or res.score > best.score:
                    best = res
            else:
                r.add("contains", path)
                if best is not None:
                    r.merge(best)
        r.score += 1

    def object(self, schema: dict[str, Any], node: dict[str, Any], r: _Result, path: tuple[str, ...]) -> None:
        if "minProperties" in schema and len(node) < schema["minProperties"]:
            r.add("array_min_properties", path, min=schema["minProperties"])
        if "maxProperties" in schema and len(node) > schema["maxProperties"]:
            r.add("array_max_properties", path, max=schema["maxProperties"])
        for name in schema.get("required") or []:
            if name in node:
                r.score += 1
            else:
                r.add("required", path, property=name)
        props = schema.get("properties") or {}
        patterns = schema.get("patternProperties") or {}
        extra = schema.get("additionalProperties", True)
        for key in sorted(node):
            matched = False
            for pat, s in sorted(patterns.items()):
                if compile_go(pat).search(key) is not None:
                    matched = True
                    r.merge(self.sub(s, node[key], (*path, key)))
            if matched:
                r.score += 1
            if key in props or matched:
                continue
            if extra is False:
                r.add("additional_property_not_allowed", path, property=key)
            elif isinstance(extra, dict):
                r.merge(self.sub(extra, node[key], (*path, key)))
        if "propertyNames" in schema:
            for key in sorted(node):
                res = self.sub(schema["propertyNames"], key, path)
                if res.errors:
                    r.add("invalid_property_name", path, property=key)
                    r.merge(res)
        r.score += 1

    def string(self, schema: dict[str, Any], node: str, r: _Result, path: tuple[str, ...]) -> None:
        if "minLength" in schema and len(node) < schema["minLength"]:
            r.add("string_gte", path, min=schema["minLength"])
        if "maxLength" in schema and len(node) > schema["maxLength"]:
            r.add("string_lte", path, max=schema["maxLength"])
        if "pattern" in schema and compile_go(schema["pattern"]).search(node) is None:
            r.add("pattern", path, pattern=schema["pattern"])
        r.score += 1

    def number(self, schema: dict[str, Any], node: Any, r: _Result, path: tuple[str, ...]) -> None:
        v = _num(node)
        if "multipleOf" in schema and (v / _num(schema["multipleOf"])).denominator != 1:
            r.add("multiple_of", path, multiple=_show(schema["multipleOf"]))
        hi, lo = schema.get("maximum"), schema.get("minimum")
        xhi, xlo = schema.get("exclusiveMaximum"), schema.get("exclusiveMinimum")
        if xhi is True and hi is not None:  # draft 4: a flag on maximum
            xhi, hi = hi, None
        if xlo is True and lo is not None:
            xlo, lo = lo, None
        if hi is not None and not isinstance(hi, bool) and v > _num(hi):
            r.add("number_lte", path, max=_show(hi))
        if xhi is not None and not isinstance(xhi, bool) and v >= _num(xhi):
            r.add("number_lt", path, max=_show(xhi))
        if lo is not None and not isinstance(lo, bool) and v < _num(lo):
            r.add("number_gte", path, min=_show(lo))
        if xlo is not None and not isinstance(xlo, bool) and v <= _num(xlo):
            r.add("number_gt", path, min=_show(xlo))
        r.score += 1


def match(schema: Any, document: Any, format_ok: Any) -> list[dict[str, str]]:
    """The errors of `document` against `schema` (empty when it matches). `format_ok(value,
    format)` says whether a value has a named format (unknown formats pass)."""
    walk = _Walk(schema, format_ok)
    return walk.sub(schema, document, ()).errors


_DATA_KEYWORDS = frozenset({"enum", "const", "default", "examples"})  # values, not sub-schemas


def unresolved_ref(schema: Any) -> str | None:
    """Why a `#...` `$ref` anywhere in the schema does not resolve inside it (None when all do):
    OPA's library resolves every reference when it loads the schema, walked or not."""
    walk = _Walk(schema, None)
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith("#"):
                try:
                    walk.resolve(ref)
                except SchemaWalkError as exc:
                    return str(exc)
            stack.extend(v for k, v in node.items() if k not in _DATA_KEYWORDS)
        elif isinstance(node, list):
            stack.extend(node)
    return None
