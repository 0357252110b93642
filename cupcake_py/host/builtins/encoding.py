"""hex, base64url.encode_no_pad, urlquery.*, yaml.*, json.marshal_with_options."""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import quote_plus

import yaml

from cupcake_py.core import yaml_values
from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import BuiltinError, OperandError, accepts, type_err, want_obj, want_str
from cupcake_py.host.builtins._values import from_plain, sorted_values, to_json_text, to_plain, type_name

_HEX = "0123456789abcdefABCDEF"


def _go_rune(c: str) -> str:
    return f"U+{ord(c):04X} {c!r}"


@builtin("hex.encode")
def hex_encode(ctx: BuiltinContext, x: Any) -> str:
    return want_str("hex.encode", 1, x).encode().hex()


@builtin("hex.decode")
def hex_decode(ctx: BuiltinContext, x: Any) -> str:
    s = want_str("hex.decode", 1, x)
    for c in s:  # Go reports the first invalid byte before an odd length
        if c not in _HEX:
            raise BuiltinError(f"hex.decode: encoding/hex: invalid byte: {_go_rune(c)}")
    if len(s) % 2:
        raise BuiltinError("hex.decode: encoding/hex: odd length hex string")
    return bytes.fromhex(s).decode("utf-8", errors="replace")


@builtin("base64url.encode_no_pad")
def base64url_encode_no_pad(ctx: BuiltinContext, x: Any) -> str:
    raw = want_str("base64url.encode_no_pad", 1, x).encode()
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


# ------------------------------------------------------------------ urlquery


def _query_escape(s: str) -> str:
    """Go's url.QueryEscape."""
    return quote_plus(s, safe="~")


def _query_unescape(fname: str, s: str) -> str:
    """Go's url.QueryUnescape: '+' is a space; a bad %-escape is an error."""
    out = bytearray()
    i = 0
    raw = s.encode()
    while i < len(raw):
        b = raw[i]
        if b == 0x25:  # '%'
            esc = raw[i + 1 : i + 3]
            if len(esc) < 2 or any(chr(c) not in _HEX for c in esc):
                bad = raw[i : i + 3].decode("utf-8", errors="replace")
                raise BuiltinError(f'{fname}: invalid URL escape "{bad}"')
            out.append(int(esc, 16))
            i += 3
            continue
        out.append(0x20 if b == 0x2B else b)
        i += 1
    return out.decode("utf-8", errors="replace")


@builtin("urlquery.encode")
def urlquery_encode(ctx: BuiltinContext, x: Any) -> str:
    return _query_escape(want_str("urlquery.encode", 1, x))


@builtin("urlquery.decode")
def urlquery_decode(ctx: BuiltinContext, x: Any) -> str:
    return _query_unescape("urlquery.decode", want_str("urlquery.decode", 1, x))


@builtin("urlquery.encode_object")
def urlquery_encode_object(ctx: BuiltinContext, obj: Any) -> str:
    parts: list[str] = []
    o = want_obj("urlquery.encode_object", 1, obj)
    for k in sorted_values(o.keys()):
        if not isinstance(k, str):
            raise type_err("urlquery.encode_object", 1, k, "string")
        v = o[k]
        if isinstance(v, str):
            vals = [v]
        elif isinstance(v, list | tuple):
            vals = list(v)
        elif isinstance(v, frozenset):
            vals = sorted_values(v)
        else:
            raise type_err("urlquery.encode_object", 1, v, "string", "array", "set")
        for item in vals:
            if not isinstance(item, str):
                raise type_err("urlquery.encode_object", 1, item, "string")
            parts.append(f"{_query_escape(k)}={_query_escape(item)}")
    return "&".join(parts)


@builtin("urlquery.decode_object")
def urlquery_decode_object(ctx: BuiltinContext, x: Any) -> dict[str, list[str]]:
    """Go's url.ParseQuery."""
    s = want_str("urlquery.decode_object", 1, x)
    out: dict[str, list[str]] = {}
    for piece in s.split("&"):
        if not piece:
            continue
        if ";" in piece:
            raise BuiltinError("urlquery.decode_object: invalid semicolon separator in query")
        k, _, v = piece.partition("=")
        key = _query_unescape("urlquery.decode_object", k)
        out.setdefault(key, []).append(_query_unescape("urlquery.decode_object", v))
    return out


# ---------------------------------------------------------------------- yaml


def _yaml_error(fname: str, exc: yaml.YAMLError) -> BuiltinError:
    """As sigs.k8s.io/yaml's YAMLToJSON words it: go-yaml's `yaml: line N: …` (a syntax error),
    or the key/number conversion's own message."""
    mark = getattr(exc, "problem_mark", None)
    if mark is not None:
        problem = getattr(exc, "problem", None) or str(exc)
        text = f"yaml: line {mark.line + 1}: {problem}"
    else:
        text = str(exc)
    return BuiltinError(f"{fname}: error converting YAML to JSON: {text}")


def _yaml_load(fname: str, text: str) -> Any:
    try:
        data = yaml_values.load(text)
    except yaml.YAMLError as exc:
        raise _yaml_error(fname, exc) from None
    return from_plain(data)


@builtin("yaml.unmarshal")
def yaml_unmarshal(ctx: BuiltinContext, x: Any) -> Any:
    return _yaml_load("yaml.unmarshal", want_str("yaml.unmarshal", 1, x))


@builtin("yaml.is_valid")
def yaml_is_valid(ctx: BuiltinContext, x: Any) -> bool:
    return accepts(lambda s: _yaml_load("yaml.is_valid", s), x)


@builtin("yaml.marshal")
def yaml_marshal(ctx: BuiltinContext, x: Any) -> str:
    """As OPA: the value as JSON, read back and written by go-yaml v2 (`_go_yaml_emit`)."""
    from cupcake_py.host.builtins._go_yaml_emit import marshal

    return marshal(to_plain(x))


# ---------------------------------------------------------------------- json

_HTML_ESC = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def go_json(v: Any, indent: str | None = None) -> str:
    """Go encoding/json text (HTML-safe escapes; ``indent`` for MarshalIndent)."""
    text = to_json_text(v, indent)
    return "".join(_HTML_ESC.get(c, c) for c in text) if any(c in text for c in _HTML_ESC) else text


@builtin("json.marshal_with_options")
def marshal_with_options(ctx: BuiltinContext, x: Any, opts: Any) -> str:
    fname = "json.marshal_with_options"
    o = want_obj(fname, 2, opts)
    pretty: bool | None = None
    prefix, indent = "", "\t"
    explicit = False
    for k, v in o.items():
        if k == "pretty":
            if not isinstance(v, bool):
                raise BuiltinError(f'{fname}: "pretty" option must be a boolean but got {type_name(v)}')
            pretty = v
        elif k == "indent":
            if not isinstance(v, str):
                raise BuiltinError(f'{fname}: "indent" option must be a string but got {type_name(v)}')
            indent, explicit = v, True
        elif k == "prefix":
            if not isinstance(v, str):
                raise BuiltinError(f'{fname}: "prefix" option must be a string but got {type_name(v)}')
            prefix, explicit = v, True
        else:
            raise OperandError(f'{fname}: object contained unknown key "{k}"')
    if pretty is False or (pretty is None and not explicit):
        return go_json(x)
    text = go_json(x, indent)
    return prefix + text.replace("\n", "\n" + prefix)
