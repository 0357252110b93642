"""Rego value helpers used by the host builtins.

Values follow docs/architecture.md section 1: None, bool, int, Decimal, str, list, dict
(frozen keys), frozenset (frozen elements). Frozen composites: tuple (array),
FrozenObject (object), frozenset (set).
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterator
from decimal import Decimal
from typing import Any

Value = Any


class FrozenObject:
    """Hashable object (used as set element / object key)."""

    __slots__ = ("_items", "_hash")

    def __init__(self, items: Any) -> None:
        pairs = list(items.items()) if isinstance(items, dict) else list(items)
        pairs.sort(key=lambda kv: sort_key(kv[0]))
        self._items: tuple[tuple[Value, Value], ...] = tuple(pairs)
        self._hash = hash(self._items)

    def items(self) -> Iterator[tuple[Value, Value]]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FrozenObject) and self._items == other._items

    def __repr__(self) -> str:
        return f"FrozenObject({dict(self._items)!r})"


def freeze(v: Value) -> Value:
    if isinstance(v, list | tuple):
        return tuple(freeze(x) for x in v)
    if isinstance(v, dict):
        return FrozenObject((k, freeze(x)) for k, x in v.items())
    if isinstance(v, set | frozenset):
        return frozenset(freeze(x) for x in v)
    return v


def thaw(v: Value) -> Value:
    if isinstance(v, tuple | list):
        return [thaw(x) for x in v]
    if isinstance(v, FrozenObject | dict):
        return {k: thaw(x) for k, x in v.items()}
    if isinstance(v, frozenset):
        return frozenset(v)
    return v


def _cmp(a: Any, b: Any) -> int:
    return (a > b) - (a < b)


def compare(a: Value, b: Value) -> int:
    """Rego total order: null < boolean < number < string < array < object < set."""
    ta, tb = TYPE_ORDER[type_name(a)], TYPE_ORDER[type_name(b)]
    if ta != tb:
        return _cmp(ta, tb)
    if ta <= 3:
        return _cmp(a, b)
    if ta == 4:
        for x, y in zip(a, b, strict=False):
            c = compare(x, y)
            if c:
                return c
        return _cmp(len(a), len(b))
    if ta == 5:
        ia = sorted(a.items(), key=lambda kv: sort_key(kv[0]))
        ib = sorted(b.items(), key=lambda kv: sort_key(kv[0]))
        for (ka, va), (kb, vb) in zip(ia, ib, strict=False):
            c = compare(ka, kb) or compare(va, vb)
            if c:
                return c
        return _cmp(len(ia), len(ib))
    sa, sb = sorted_values(a), sorted_values(b)
    for x, y in zip(sa, sb, strict=False):
        c = compare(x, y)
        if c:
            return c
    return _cmp(len(sa), len(sb))


TYPE_ORDER = {"null": 0, "boolean": 1, "number": 2, "string": 3, "array": 4, "object": 5, "set": 6}


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


def is_number(v: Value) -> bool:
    return isinstance(v, int | Decimal) and not isinstance(v, bool)


def obj_items(v: Value) -> Iterator[tuple[Value, Value]]:
    """(key, value) pairs of a dict or FrozenObject."""
    if isinstance(v, FrozenObject):
        yield from v.items()
    else:
        yield from v.items()


def sort_key(v: Value) -> Any:
    return functools.cmp_to_key(compare)(v)


def sorted_values(vs: Any) -> list[Value]:
    return sorted(vs, key=functools.cmp_to_key(compare))


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
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, dict | FrozenObject):
        items = sorted(obj_items(v), key=lambda kv: sort_key(kv[0]))
        parts = [
            (json.dumps(k, ensure_ascii=False) if isinstance(k, str) else json.dumps(to_json_text(k)))
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
    """JSON text → Rego value, keeping number text exact."""

    def num(s: str) -> Value:
        return Decimal(s)

    return json.loads(text, parse_float=num, parse_int=int)
