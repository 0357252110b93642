"""Rego value helpers used by the host builtins.

Values follow docs/architecture.md section 1: None, bool, int, Decimal, str, list, dict
(frozen keys), frozenset (frozen elements). Frozen composites: tuple (array),
FrozenObject (object), frozenset (set).
"""

from __future__ import annotations

from decimal import Decimal

from cupcake_py.core.jsonio import encode_str as _json_str  # json.dumps(s, ensure_ascii=False)
from cupcake_py.core.jsonio import encode_str_ascii as _json_str_ascii  # json.dumps(s)
from cupcake_py.core.values import FrozenObject, compare, freeze, sort_key, thaw

TYPE_CHECKING = False  # (typing is not imported on the eval path)
if TYPE_CHECKING:
    from collections.abc import Iterator
    from typing import Any

    Value = Any

__all__ = ["FrozenObject", "compare", "freeze", "sort_key", "thaw"]


def type_name(v: Value) -> str:
    """OPA's type name of a Python Rego value."""
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, int | Decimal):
        return "number"
    if isinstance(v, str):
        return "string"
    if isinstance(v, list | tuple):
        return "array"
    if isinstance(v, dict | FrozenObject):
        return "object"
    if isinstance(v, frozenset | set):
        return "set"
    raise TypeError(f"not a Rego value: {type(v).__name__}")


def obj_items(v: Value) -> Iterator[tuple[Value, Value]]:
    """(key, value) pairs of a dict or FrozenObject."""
    if isinstance(v, FrozenObject):
        yield from v.items()
    else:
        yield from v.items()


def sorted_values(vs: Any) -> list[Value]:
    return sorted(vs, key=sort_key)


# ---------------------------------------------------------------- text forms


def number_text(n: int | Decimal) -> str:
    """A number as OPA prints it (integers plainly; others keep their text form)."""
    if isinstance(n, int):
        return str(n)
    if n == n.to_integral_value() and n.adjusted() < 21:
        return str(int(n))
    text = str(n)
    if "E" in text:
        mant, _, exp = text.partition("E")
        text = f"{mant}e{exp.lstrip('+')}" if exp.startswith("+") else f"{mant}e{exp}"
    return text


def go_quote(s: str) -> str:
    """Go's strconv.Quote: printable runes kept, others escaped."""
    out = ['"']
    for ch in s:
        o = ord(ch)
        if ch == '"':
            out.append('\\"')
        elif ch == "\\":
            out.append("\\\\")
        elif ch.isprintable() or ch == " ":
            out.append(ch)
        elif ch in _GO_ESC:
            out.append(_GO_ESC[ch])
        elif o < 0x80:
            out.append(f"\\x{o:02x}")
        elif o < 0x10000:
            out.append(f"\\u{o:04x}")
        else:
            out.append(f"\\U{o:08x}")
    out.append('"')
    return "".join(out)


_GO_ESC = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def dump_rego(v: Value) -> str:
    """OPA's term String() form: `{1, 2}` for sets, `set()` when empty, `{"a": 1}` objects."""
    if v is None:
        return "null"
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int | Decimal):
        return number_text(v)
    if isinstance(v, str):
        return go_quote(v)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(dump_rego(x) for x in v) + "]"
    if isinstance(v, dict | FrozenObject):
        items = sorted(obj_items(v), key=lambda kv: sort_key(kv[0]))
        return "{" + ", ".join(f"{dump_rego(k)}: {dump_rego(x)}" for k, x in items) + "}"
    if isinstance(v, frozenset | set):
        if not v:
            return "set()"
        return "{" + ", ".join(dump_rego(x) for x in sorted_values(v)) + "}"
    raise TypeError(f"not a Rego value: {type(v).__name__}")


def to_json_text(v: Value, indent: str | None = None, _level: int = 0) -> str:
    """JSON text (keys sorted, sets as sorted arrays, numbers as their text).

    ``indent`` gives Go's MarshalIndent layout (``": "`` after keys, empty containers compact).
    """
    if v is None or isinstance(v, bool | int | Decimal):
        return dump_rego(v)
    if isinstance(v, str):
        return _json_str(v)
    if isinstance(v, dict | FrozenObject):
        items = sorted(obj_items(v), key=lambda kv: sort_key(kv[0]))
        parts = [
            (_json_str(k) if isinstance(k, str) else _json_str_ascii(to_json_text(k)))
            + (": " if indent is not None else ":")
            + to_json_text(x, indent, _level + 1)
            for k, x in items
        ]
        return _join("{", parts, "}", indent, _level)
    if isinstance(v, list | tuple):
        elems: Any = v
    elif isinstance(v, frozenset | set):
        elems = sorted_values(v)
    else:
        raise TypeError(f"not a Rego value: {type(v).__name__}")
    return _join("[", [to_json_text(x, indent, _level + 1) for x in elems], "]", indent, _level)


def _join(open_: str, parts: list[str], close: str, indent: str | None, level: int) -> str:
    if not parts:
        return open_ + close
    if indent is None:
        return open_ + ",".join(parts) + close
    inner = "\n" + indent * (level + 1)
    return open_ + inner + ("," + inner).join(parts) + "\n" + indent * level + close


class _Num(float):
    """Carries a number's exact text (repr) into YAML dumping."""

    text: str

    def __new__(cls, text: str) -> _Num:
        obj = super().__new__(cls, float(text))
        obj.text = text
        return obj

    def __repr__(self) -> str:
        return self.text


def to_plain(v: Value) -> Any:
    """Rego value → JSON-compatible Python (object keys as JSON text, sets as sorted lists)."""
    if v is None or isinstance(v, bool | str | int):
        return v
    if isinstance(v, Decimal):
        return _Num(number_text(v))
    if isinstance(v, list | tuple):
        return [to_plain(x) for x in v]
    if isinstance(v, dict | FrozenObject):
        items = sorted(obj_items(v), key=lambda kv: sort_key(kv[0]))
        return {(k if isinstance(k, str) else to_json_text(k)): to_plain(x) for k, x in items}
    if isinstance(v, frozenset | set):
        return [to_plain(x) for x in sorted_values(v)]
    raise TypeError(f"not a Rego value: {type(v).__name__}")


def from_plain(v: Any) -> Value:
    """Python JSON/YAML data → Rego value (floats become Decimal via their repr)."""
    if v is None or isinstance(v, bool | str | int):
        return v
    if isinstance(v, float):
        if v.is_integer() and abs(v) < 1e21:
            return int(v)
        return Decimal(repr(v))
    if isinstance(v, Decimal):
        return v
    if isinstance(v, list | tuple):
        return [from_plain(x) for x in v]
    if isinstance(v, dict):
        return {freeze(from_plain(k)): from_plain(x) for k, x in v.items()}
    if isinstance(v, set | frozenset):
        return frozenset(freeze(from_plain(x)) for x in v)
    return str(v)


def parse_json(text: str | bytes) -> Value:
    """JSON text → Rego value (numbers exact), via the shared cupcake_py.core.values parser."""
    from cupcake_py.core.values import parse_json as _parse

    return _parse(text)
