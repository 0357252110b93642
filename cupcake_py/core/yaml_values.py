"""YAML as OPA reads it: the one YAML loading rule for METADATA blocks, .yaml/.yml data files
and `yaml.unmarshal`.

OPA converts YAML to JSON (sigs.k8s.io/yaml over go-yaml), so:
- an unquoted timestamp (`2001-02-03`, `2001-02-03T04:05:06Z`) stays the string written, never a
  date (PyYAML's SafeLoader would make it a `datetime`);
- with `exact=True` (data files, yaml.unmarshal: go-yaml v2 under sigs.k8s.io/yaml) plain
  scalars resolve as go-yaml v2 resolves them, not as PyYAML's YAML 1.1 tables: `y`/`n` are
  booleans, `1e3` and `08` are numbers (Go's ParseInt base 0, then its float syntax), `0o17` is
  15, `1:30` is a string; a float is what float64 makes of it (`1.0` is 1); `.inf`/`.nan` are
  refused (JSON has no such numbers); `!!binary` is its decoded text;
- METADATA blocks (OPA parses them with go-yaml v3) resolve the same way, except that only
  `true`/`false` (and their capitalised forms) are booleans (`yes`, `on`, `y` stay text) and a
  fractional number is a float;
- a non-string mapping key becomes its text (`1: a` → `{"1": "a"}`, `true` → `"true"`).
In: YAML text. Out: plain data (dict with str keys, list, str, int, Decimal or float, bool,
None) of the first document. Fails with `yaml.YAMLError` (bad YAML, a non-JSON number).
"""

from __future__ import annotations

import re
from decimal import Decimal
from typing import Any

import yaml

_TIMESTAMP = "tag:yaml.org,2002:timestamp"


class PlainLoader(yaml.SafeLoader):
    """SafeLoader with timestamps left as the strings written and mapping keys as text
    (so `1` and `true` stay two keys, as in JSON) (METADATA)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        self.flatten_mapping(node)
        return {key_text(k): v for k, v in self.construct_pairs(node, deep=deep)}


PlainLoader.yaml_implicit_resolvers = {
    ch: [(tag, rx) for tag, rx in resolvers if tag != _TIMESTAMP]
    for ch, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


_TAG = "tag:yaml.org,2002:"
_GO_TRUE = frozenset("y Y yes Yes YES true True TRUE on On ON".split())  # go-yaml v2
_GO_FALSE = frozenset("n N no No NO false False FALSE off Off OFF".split())
_V3_TRUE = frozenset(("true", "True", "TRUE"))  # go-yaml v3
_V3_FALSE = frozenset(("false", "False", "FALSE"))
_GO_NULL = frozenset(("", "~", "null", "Null", "NULL"))
_GO_SPECIAL_FLOAT = frozenset(f"{s}{x}" for s in ("", "+", "-") for x in (".inf", ".Inf", ".INF")) | {
    ".nan", ".NaN", ".NAN"}
_GO_FLOAT = re.compile(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
_GO_DIGITS = {2: "01", 8: "01234567", 10: "0123456789", 16: "0123456789abcdef"}


def _go_int(text: str) -> int | None:
    """Go's strconv.ParseInt(text, 0, 64), then ParseUint (no sign) for the rest of uint64."""
    body, neg = text, False
    if body[:1] in ("+", "-"):
        body, neg = body[1:], body[0] == "-"
    base, digits = 10, body
    prefix = body[:2].lower()
    if prefix in ("0x", "0o", "0b"):
        base, digits = {"0x": 16, "0o": 8, "0b": 2}[prefix], body[2:]
    elif len(body) > 1 and body[0] == "0":
        base, digits = 8, body[1:]
    if not digits or any(c not in _GO_DIGITS[base] for c in digits.lower()):
        return None
    v = -int(digits, base) if neg else int(digits, base)
    if -(2**63) <= v < 2**63 or (text[:1] not in ("+", "-") and v < 2**64):
        return v
    return None


def _go_tag(value: str, true: frozenset[str], false: frozenset[str]) -> str:
    """The tag go-yaml resolves a plain scalar to (its resolve(): map, ints, floats)."""
    head = value[:1]
    if value in _GO_NULL:
        return _TAG + "null"
    if value in true or value in false:
        return _TAG + "bool"
    if value in _GO_SPECIAL_FLOAT:
        return _TAG + "float"
    if value == "<<":
        return _TAG + "merge"
    if head == "." and _go_float(value):
        return _TAG + "float"
    if head.isdigit() or head in ("+", "-"):
        plain = value.replace("_", "")
        if _go_int(plain) is not None:
            return _TAG + "int"
        if _go_float(plain):
            return _TAG + "float"
    return _TAG + "str"


def _go_float(text: str) -> bool:
    """go-yaml's float syntax, and strconv.ParseFloat in range (`1e400` stays text)."""
    return _GO_FLOAT.match(text) is not None and abs(float(text)) != float("inf")


class ExactLoader(PlainLoader):
    """PlainLoader resolving plain scalars as go-yaml v2 does (data files, yaml.unmarshal)."""

    go_true, go_false, exact_floats = _GO_TRUE, _GO_FALSE, True

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is yaml.ScalarNode and implicit[0]:
            return _go_tag(value, self.go_true, self.go_false)
        return super().resolve(kind, value, implicit)  # type: ignore[no-untyped-call]


def _construct_float(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    text = str(loader.construct_scalar(node)).replace("_", "")
    if text in _GO_SPECIAL_FLOAT or text.lower().lstrip("+-") in (".inf", ".nan"):
        raise yaml.YAMLError(f"cannot represent {text} in JSON")
    try:
        f = float(text)
    except ValueError as exc:
        raise yaml.YAMLError(f"invalid float {text}") from exc
    if f != f or f in (float("inf"), float("-inf")):
        raise yaml.YAMLError(f"cannot represent {text} in JSON")
    # float64, written back as JSON: integral values below 1e21 print as integers
    if f.is_integer() and abs(f) < 1e21:
        return int(f)
    return Decimal(repr(f)) if getattr(loader, "exact_floats", False) else f


def _construct_int(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    text = str(loader.construct_scalar(node))
    v = _go_int(text.replace("_", ""))
    if v is None:
        raise yaml.YAMLError(f"invalid int {text}")
    return v


def _construct_bool(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    text = str(loader.construct_scalar(node))
    true, false = getattr(loader, "go_true", _GO_TRUE), getattr(loader, "go_false", _GO_FALSE)
    if text not in true and text not in false:
        raise yaml.YAMLError(f"invalid bool {text}")
    return text in true


def _construct_binary(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    """go-yaml v2 decodes !!binary into a Go string; JSON writes invalid UTF-8 as U+FFFD."""
    import base64
    import binascii

    text = "".join(str(loader.construct_scalar(node)).split())
    try:
        return base64.b64decode(text, validate=True).decode("utf-8", "replace")
    except binascii.Error as exc:
        raise yaml.YAMLError(f"invalid !!binary value: {exc}") from exc


ExactLoader.add_constructor(_TAG + "float", _construct_float)
ExactLoader.add_constructor(_TAG + "int", _construct_int)
ExactLoader.add_constructor(_TAG + "bool", _construct_bool)
ExactLoader.add_constructor(_TAG + "binary", _construct_binary)


class MetadataLoader(ExactLoader):
    """ExactLoader with go-yaml v3's booleans and plain floats (METADATA blocks)."""

    go_true, go_false, exact_floats = _V3_TRUE, _V3_FALSE, False


def key_text(k: Any) -> str:
    """A mapping key as YAML → JSON writes it."""
    if isinstance(k, str):
        return k
    if k is None:
        return "null"
    if isinstance(k, bool):
        return "true" if k else "false"
    return str(k)


def json_keys(v: Any) -> Any:
    """Every mapping key of `v` as text (nested)."""
    if isinstance(v, dict):
        return {key_text(k): json_keys(x) for k, x in v.items()}
    if isinstance(v, list):
        return [json_keys(x) for x in v]
    return v


def load(text: str | bytes, exact: bool = True) -> Any:
    """The first document of `text` as JSON-shaped data (None for an empty text)."""
    loader = ExactLoader if exact else MetadataLoader
    for doc in yaml.load_all(text, Loader=loader):  # noqa: S506 - SafeLoader subclasses
        return json_keys(doc)
    return None
