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
- mapping keys, in data files and yaml.unmarshal, as sigs.k8s.io/yaml converts go-yaml v2's
  keys to JSON: an int is its decimal text (`0x1F` → "31"), a bool "true"/"false", a float
  Go's FormatFloat(f, 'g', -1, 32) (`1e6` → "1e+06", `3.14159265358979` → "3.1415927",
  `.inf` → ".inf"); a null key (`~`, `null`, an empty `? `), an int beyond int64 (uint64) and
  a sequence or mapping key are errors; `<<` merges in document order (go-yaml v2: a merged
  mapping overrides the keys written before it; in a merged list the earlier mapping wins);
  duplicate keys: the last wins;
- METADATA blocks (`load_metadata`) are decoded as go-yaml v3 decodes them into OPA's
  annotation struct: string fields take the scalar as written (`title: 1.10` → "1.10"), a
  duplicate key anywhere is an error, `custom`'s own keys are the text written (`~` → ""),
  and a nested mapping with a null/bool/number key is an error ("invalid map key type(s)").
In: YAML text. Out: plain data (dict with str keys, list, str, int, Decimal or float, bool,
None) of the first document. Fails with `yaml.YAMLError` (bad YAML, a non-JSON number, a key
JSON cannot have).
"""

from __future__ import annotations

import re
import struct
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


def go_v2_tag(text: str) -> str:
    """The tag go-yaml v2 resolves a plain scalar `text` to (timestamps aside)."""
    return _go_tag(text, _GO_TRUE, _GO_FALSE)


def go_int(text: str) -> int | None:
    """`text` as go-yaml v2 reads a plain integer (Go's ParseInt base 0, then ParseUint), or None."""
    return _go_int(text.replace("_", ""))


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

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        out: dict[str, Any] = {}
        self._fill(out, node, deep)
        return out


    def _fill(self, out: dict[str, Any], node: yaml.MappingNode, deep: bool) -> None:
        """go-yaml v2's mapping decode: pairs in order, a merge applied where it is written."""
        for key_node, value_node in node.value:
            if key_node.tag == _TAG + "merge":
                self._merge(out, value_node, deep)
                continue
            value = self.construct_object(value_node, deep=deep)
            out[self._key(key_node, value)] = value

    def _merge(self, out: dict[str, Any], node: yaml.Node, deep: bool) -> None:
        # (an alias is its anchor's node here) a list merges from its last mapping to its first
        items = list(reversed(node.value)) if isinstance(node, yaml.SequenceNode) else [node]
        maps = [n for n in items if isinstance(n, yaml.MappingNode)]
        if len(maps) != len(items):
            raise yaml.YAMLError("yaml: map merge requires map or sequence of maps as the value")
        for n in maps:
            self._fill(out, n, deep)

    def _key(self, node: yaml.Node, value: Any) -> str:
        """The JSON key sigs.k8s.io/yaml makes of a go-yaml v2 key."""
        if not isinstance(node, yaml.ScalarNode):
            raise yaml.YAMLError(f"yaml: invalid map key: {go_value([] if isinstance(node, yaml.SequenceNode) else {})}")
        if node.tag == _TAG + "float":
            text = str(node.value).replace("_", "")
            special = {".inf": ".inf", "+.inf": ".inf", "-.inf": "-.inf", ".nan": ".nan"}.get(text.lower())
            return special or go_float32_text(float(text))
        key = self.construct_object(node)
        if key is None or (isinstance(key, int) and not isinstance(key, bool) and key >= 2**63):
            kind, shown = ("%!s(<nil>)", "<nil>") if key is None else ("uint64", hex(key))
            raise yaml.YAMLError(f"unsupported map key of type: {kind}, key: {shown}, value: {go_value(value)}")
        return key_text(key)


def go_float32_text(f: float) -> str:
    """strconv.FormatFloat(f, 'g', -1, 32): the shortest digits that read back as the same
    float32, in %e form when the exponent is below -4 or at least 6."""
    def f32(x: float) -> float:
        try:
            return float(struct.unpack("<f", struct.pack("<f", x))[0])
        except OverflowError:
            return float("inf") if x > 0 else float("-inf")

    v = f32(f)
    if v in (float("inf"), float("-inf")):
        return ".inf" if v > 0 else "-.inf"
    if v == 0:
        return "-0" if str(v).startswith("-") else "0"
    for n in range(9):
        text = f"{v:.{n}e}"
        if f32(float(text)) == v:
            break
    mant, _, exp_text = text.partition("e")
    sign, digits, exp = "-" if mant.startswith("-") else "", mant.lstrip("-").replace(".", ""), int(exp_text)
    digits = digits.rstrip("0") or "0"
    if exp < -4 or exp >= 6:
        body = digits[0] + ("." + digits[1:] if len(digits) > 1 else "")
        return f"{sign}{body}e{'-' if exp < 0 else '+'}{abs(exp):02d}"
    if exp < 0:
        return f"{sign}0.{'0' * (-exp - 1)}{digits}"
    whole = digits[: exp + 1].ljust(exp + 1, "0")
    frac = digits[exp + 1:]
    return f"{sign}{whole}.{frac}" if frac else f"{sign}{whole}"


def go_value(v: Any) -> str:
    """A decoded value roughly as Go's %+#v prints it (for error messages)."""
    if isinstance(v, str):
        return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if v is None:
        return "<nil>"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (list, dict)):  # (still being filled in: PyYAML builds containers lazily)
        return "[]interface {}{...}" if isinstance(v, list) else "map[interface {}]interface {}{...}"
    return str(v)


_GO_SPECIAL_NAME = {".inf": "+Inf", "-.inf": "-Inf", ".nan": "NaN"}


def _construct_float(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    text = str(loader.construct_scalar(node)).replace("_", "")
    special = text.lower().lstrip("+")
    if special in (".inf", "-.inf", ".nan"):  # encoding/json refuses them
        raise yaml.YAMLError(f"json: unsupported value: {_GO_SPECIAL_NAME[special]}")
    try:
        f = float(text)
    except ValueError as exc:
        raise yaml.YAMLError(f"invalid float {text}") from exc
    if f != f or f in (float("inf"), float("-inf")):
        raise yaml.YAMLError(f"json: unsupported value: {text}")
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


def _construct_by_kind(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> Any:
    """A tag go-yaml does not resolve (`!Ref`, `!!set`, `!!omap`, `!!python/…`): a scalar is
    its text, a sequence or mapping is read as if untagged (go-yaml ignores the tag)."""
    if isinstance(node, yaml.SequenceNode):
        return loader.construct_sequence(node, deep=True)
    if isinstance(node, yaml.MappingNode):
        return loader.construct_mapping(node, deep=True)
    return str(node.value)


def _construct_null(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> Any:
    text = str(node.value)
    if text not in _GO_NULL:  # an explicit `!!null x`: go-yaml refuses what does not resolve to null
        raise yaml.YAMLError(f"yaml: cannot decode {_short(_go_tag(text, _GO_TRUE, _GO_FALSE))} `{text}` as a !!null")
    return None


ExactLoader.add_multi_constructor("", _construct_by_kind)
def _construct_untagged(loader: yaml.SafeLoader, node: yaml.Node) -> Any:
    return _construct_by_kind(loader, "", node)


for _collection in ("set", "omap", "pairs"):
    ExactLoader.add_constructor(_TAG + _collection, _construct_untagged)
ExactLoader.add_constructor(_TAG + "null", _construct_null)
ExactLoader.add_constructor(_TAG + "float", _construct_float)
ExactLoader.add_constructor(_TAG + "int", _construct_int)
ExactLoader.add_constructor(_TAG + "bool", _construct_bool)
ExactLoader.add_constructor(_TAG + "binary", _construct_binary)


class MetadataLoader(ExactLoader):
    """ExactLoader with go-yaml v3's booleans and plain floats (METADATA blocks)."""

    go_true, go_false, exact_floats = _V3_TRUE, _V3_FALSE, False
    construct_mapping = PlainLoader.construct_mapping  # v3 merges: a key written wins


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
        return _no_surrogate_escapes(text, json_keys(doc))
    return None


_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _no_surrogate_escapes(text: str | bytes, value: Any) -> Any:
    """go-yaml refuses a `\\uD800`–`\\uDFFF` escape in a double-quoted scalar (a pair too:
    "found invalid Unicode character escape code"); PyYAML decodes it to a lone surrogate,
    which only such an escape can put in the value."""
    source = text.decode("utf-8", "replace") if isinstance(text, bytes) else text
    if "\\u" in source and _has_surrogate(value):
        m = _SURROGATE_ESCAPE.search(source)
        line = source[: m.start()].count("\n") + 1 if m else 1
        raise yaml.YAMLError(f"yaml: line {line}: found invalid Unicode character escape code")
    return value


def _has_surrogate(v: Any) -> bool:
    if isinstance(v, str):
        return _SURROGATE.search(v) is not None
    if isinstance(v, dict):
        return any(_has_surrogate(k) or _has_surrogate(x) for k, x in v.items())
    if isinstance(v, list):
        return any(_has_surrogate(x) for x in v)
    return False


# ------------------------------------------------------------------ METADATA (go-yaml v3)

_STRING_KEY_TAGS = frozenset({_TAG + "str", _TAG + "timestamp", _TAG + "binary", _TAG + "merge"})


def _short(tag: str) -> str:
    return "!!" + tag[len(_TAG):] if tag.startswith(_TAG) else tag


def _v3_error(node: yaml.Node, text: str) -> yaml.YAMLError:
    return yaml.YAMLError(f"yaml: unmarshal errors:\n  line {node.start_mark.line + 1}: {text}")


def _unique_keys(node: yaml.Node, seen: set[int]) -> None:
    """go-yaml v3: two keys of one mapping with the same kind and text are an error."""
    if id(node) in seen:
        return
    seen.add(id(node))
    if isinstance(node, yaml.MappingNode):
        first: dict[tuple[type, str], yaml.Node] = {}
        for key, _ in node.value:
            text = key.value if isinstance(key, yaml.ScalarNode) else ""
            was = first.setdefault((type(key), text), key)
            if was is not key:
                raise _v3_error(key, f"mapping key {_go_quote(text)} already defined at line {was.start_mark.line + 1}")
    if isinstance(node, (yaml.MappingNode, yaml.SequenceNode)):
        for child in node.value:
            for n in child if isinstance(child, tuple) else (child,):
                _unique_keys(n, seen)


def _go_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _is_null(node: yaml.Node) -> bool:
    return isinstance(node, yaml.ScalarNode) and node.tag == _TAG + "null"


def _text(node: yaml.Node, into: str) -> str:
    """A scalar decoded into a Go string: the text written (a null is "")."""
    if not isinstance(node, yaml.ScalarNode):
        raise _v3_error(node, f"cannot unmarshal {_short(node.tag)} into {into}")
    return "" if _is_null(node) else str(node.value)


def _map_key_types(node: yaml.Node, path: list[str]) -> None:
    """OPA's convertYAMLMapKeyTypes over what go-yaml v3 decoded: a mapping with a null, bool or
    number key (a map[interface{}]interface{}) is an error; one with only string keys is left as is."""
    if isinstance(node, yaml.SequenceNode):
        for i, item in enumerate(node.value):
            _map_key_types(item, [*path, str(i)])
    elif isinstance(node, yaml.MappingNode) and not all(k.tag in _STRING_KEY_TAGS for k, _ in node.value):
        for key, value in node.value:
            if key.tag not in _STRING_KEY_TAGS:
                raise yaml.YAMLError(f"invalid map key type(s): {'/'.join(path)}")
            _map_key_types(value, [*path, str(key.value)])


def load_metadata(text: str, kinds: dict[str, str]) -> dict[str, Any]:
    """The first document of a METADATA block decoded as go-yaml v3 decodes it into OPA's
    annotation struct. `kinds`: field name → "string", "bool", "[]string", "map" (a
    map[string]interface{}: its own keys are the text written) or "any". Out: the fields given
    a non-null value (others, and unknown keys, are left out). Fails with yaml.YAMLError."""
    loader = MetadataLoader(text)
    try:
        node = loader.get_node() if loader.check_node() else None
        if node is None or _is_null(node):
            return {}
        _unique_keys(node, set())
        if not isinstance(node, yaml.MappingNode):
            raise _v3_error(node, f"cannot unmarshal {_short(node.tag)} into ast.rawAnnotation")
        loader.flatten_mapping(node)  # a merge never overrides a key written (as v3)
        out: dict[str, Any] = {}
        for key, value in node.value:
            name = _text(key, "string")
            kind = kinds.get(name)
            if kind is None or _is_null(value):
                continue
            out[name] = _decode_field(loader, value, kind)
        _no_surrogate_escapes(text, out)
        return out
    finally:
        loader.dispose()


def _decode_field(loader: MetadataLoader, node: yaml.Node, kind: str) -> Any:
    if kind == "string":
        return _text(node, "string")
    if kind == "bool":
        if not (isinstance(node, yaml.ScalarNode) and node.tag == _TAG + "bool"):
            raise _v3_error(node, f"cannot unmarshal {_short(node.tag)} `{getattr(node, 'value', '')}` into bool")
        return loader.construct_object(node, deep=True)
    if kind == "[]string":
        if not isinstance(node, yaml.SequenceNode):
            raise _v3_error(node, f"cannot unmarshal {_short(node.tag)} into []string")
        return [_text(item, "string") for item in node.value]
    if kind == "map":
        if not isinstance(node, yaml.MappingNode):
            raise _v3_error(node, f"cannot unmarshal {_short(node.tag)} into map[string]interface {{}}")
        loader.flatten_mapping(node)
        entries = {}
        for key, value in node.value:
            _map_key_types(value, [])
            entries[_text(key, "string")] = json_keys(loader.construct_object(value, deep=True))
        return entries
    if isinstance(node, yaml.SequenceNode):
        for item in node.value:
            _map_key_types(item, [])
    return json_keys(loader.construct_object(node, deep=True))
