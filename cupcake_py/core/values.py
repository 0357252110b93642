"""Rego values on the Python side: the one representation shared by host I/O, host
builtins, the engine and the compliance runner (docs/architecture.md section 1).

    null → None        boolean → bool      string → str
    number → int (no fraction/exponent) or decimal.Decimal (exact; never float)
    array → list       object → dict (keys frozen)     set → frozenset (of frozen values)

Frozen form (set elements, object keys): scalars as is, array → tuple, object →
FrozenObject, set → frozenset. `thaw` undoes it for arrays and objects.
Known limit: Python treats True == 1, so the two collide inside one set or object.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

from cupcake_py.core.errors import CupcakeError
from cupcake_py.core.jsonio import encode_str as _json_str  # json.dumps(s, ensure_ascii=False), without json

# Host builtins import this module on every evaluation that calls one: json, re, orjson and
# typing (tens of ms of start-up together) are imported only where they are needed; decimal
# too (a `cupcake test` run reads its result sets here): no Decimal exists before `decimal` is
# imported, so `_is_decimal` asks sys.modules instead of importing it.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Iterator
    from decimal import Decimal
    from typing import Any, NoReturn

    _MappingBase = Mapping[Any, Any]
else:
    _MappingBase = Mapping

__all__ = [
    "FrozenObject",
    "ValueParseError",
    "compare",
    "dump_json",
    "dump_rego",
    "freeze",
    "parse_json",
    "parse_rego",
    "sort_key",
    "thaw",
]


class ValueParseError(CupcakeError, ValueError):
    """Text that is not a valid JSON document / Rego literal term. `pos` is a character offset."""

    def __init__(self, message: str, pos: int | None = None) -> None:
        super().__init__(message if pos is None else f"{message} (at offset {pos})")
        self.pos = pos


def _is_decimal(t: type) -> bool:
    """`t is decimal.Decimal`, without importing decimal."""
    module = sys.modules.get("decimal")
    return module is not None and t is module.Decimal


# ---------------------------------------------------------------------------
# Frozen values

class FrozenObject(_MappingBase):
    """An immutable, hashable Rego object (used as a set element or object key).
    Items are kept ordered by key in Rego order, so equal objects have equal item tuples."""

    __slots__ = ("_items", "_map", "_hash")

    def __init__(self, items: Mapping[Any, Any] | None = None) -> None:
        pairs = [(freeze(k), freeze(v)) for k, v in (items or {}).items()]
        pairs.sort(key=lambda kv: sort_key(kv[0]))
        self._items: tuple[tuple[Any, Any], ...] = tuple(pairs)
        self._map: dict[Any, Any] = dict(pairs)
        self._hash: int | None = None

    def __getitem__(self, key: Any) -> Any:
        return self._map[key]

    def __iter__(self) -> Iterator[Any]:
        return (k for k, _ in self._items)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        if self._hash is None:
            self._hash = hash(("FrozenObject", self._items))
        return self._hash

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenObject):
            return self._items == other._items
        return NotImplemented

    def __repr__(self) -> str:
        return f"FrozenObject({dict(self._items)!r})"


def freeze(v: Any) -> Any:
    """Hashable form of a value: list → tuple, dict → FrozenObject, set → frozenset."""
    t = type(v)
    if t is list or t is tuple:
        return tuple(freeze(x) for x in v)
    if t is dict:
        return FrozenObject(v)
    if t is set or t is frozenset:
        return frozenset(freeze(x) for x in v)
    return v


def thaw(v: Any) -> Any:
    """Inverse of `freeze` for arrays and objects (object keys and set elements stay frozen)."""
    t = type(v)
    if t is tuple or t is list:
        return [thaw(x) for x in v]
    if t is FrozenObject or t is dict:
        return {k: thaw(x) for k, x in v.items()}
    return v


# ---------------------------------------------------------------------------
# Ordering: null < boolean < number < string < array < object < set

def sort_key(v: Any) -> tuple[Any, ...]:
    """A tuple that sorts like Rego's total order (equal keys ⇔ equal Rego values)."""
    t = type(v)
    if v is None:
        return (0,)
    if t is bool:
        return (1, v)
    if t is int:
        return (2, v)
    if t is str:
        return (3, v)
    if t is list or t is tuple:
        return (4, tuple(sort_key(x) for x in v))
    if t is dict or t is FrozenObject:
        return (5, tuple(sorted((sort_key(k), sort_key(x)) for k, x in v.items())))
    if t is frozenset or t is set:
        return (6, tuple(sorted(sort_key(x) for x in v)))
    if _is_decimal(t):
        return (2, v)
    raise TypeError(f"not a Rego value: {t.__name__}")


def compare(a: Any, b: Any) -> int:
    """-1, 0 or 1 by Rego's total order (numbers compare numerically: 1 == 1.0)."""
    ka, kb = sort_key(a), sort_key(b)
    return (ka > kb) - (ka < kb)


# ---------------------------------------------------------------------------
# JSON

# orjson is exact only for integers within 64 bits. A JSON number with a fraction or exponent
# always has a digit right before '.', 'e' or 'E'; 19+ digits may not fit 64 bits.
# (Patterns are compiled on first use, through re's cache: importing this module is on the
# start-up path of every evaluation that calls a host builtin.)
_NOT_FOR_ORJSON = rb"[0-9][.eE]|[0-9]{19}"
_NOT_FOR_ORJSON_STR = r"[0-9][.eE]|[0-9]{19}"


def _reject_constant(name: str) -> Any:
    raise ValueParseError(f"invalid JSON: {name} is not a number")


_STDLIB_DECODER: list[Any] = []  # json.JSONDecoder with Decimal floats, made on first use


def parse_json(data: bytes | bytearray | memoryview | str) -> Any:
    """Parse one JSON document. Integers → int, other numbers → Decimal (exact)."""
    import json
    import re

    import orjson

    inexact = re.search(_NOT_FOR_ORJSON_STR, data) if isinstance(data, str) else re.search(_NOT_FOR_ORJSON, data)
    if not inexact:
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass  # big integers, lone surrogates, or invalid JSON: the exact parser decides
    if not _STDLIB_DECODER:
        from decimal import Decimal

        _STDLIB_DECODER.append(json.JSONDecoder(parse_float=Decimal, parse_constant=_reject_constant))
    if not isinstance(data, str):
        try:
            data = bytes(data).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueParseError(f"invalid JSON: not UTF-8: {e.reason}", e.start) from None
    try:
        value, end = _STDLIB_DECODER[0].raw_decode(data, _skip_ws(data, 0))
    except json.JSONDecodeError as e:
        raise ValueParseError(f"invalid JSON: {e.msg} at line {e.lineno} column {e.colno}", e.pos) from None
    except RecursionError:
        raise ValueParseError("invalid JSON: nested too deeply") from None
    if _skip_ws(data, end) != len(data):
        raise ValueParseError("invalid JSON: extra data after the value", end)
    return value


def lone_surrogates_replaced(v: Any) -> Any:
    """`v` with every lone UTF-16 surrogate in its strings (keys too) made U+FFFD, as Go's
    encoding/json decodes an unpaired `\\ud800` escape (parse_json keeps it as read)."""
    import re

    if isinstance(v, str):
        return re.sub("[\ud800-\udfff]", "\ufffd", v)
    if isinstance(v, dict):
        return {lone_surrogates_replaced(k): lone_surrogates_replaced(x) for k, x in v.items()}
    if isinstance(v, list):
        return [lone_surrogates_replaced(x) for x in v]
    return v


def _skip_ws(s: str, i: int) -> int:
    n = len(s)
    while i < n and s[i] in " \t\n\r":
        i += 1
    return i


def _orjson_default(v: Any) -> Any:
    if _is_decimal(type(v)):
        import orjson

        return orjson.Fragment(_number_text(v))
    if type(v) is frozenset or type(v) is set:
        return sorted(v, key=sort_key)
    if type(v) is FrozenObject:
        return dict(v.items())
    raise TypeError


def dump_json(v: Any) -> str:
    """JSON text. Sets become arrays (sorted); non-string object keys are stringified
    with their JSON text (`{"[1]": ...}`), as opa_json_dump does."""
    return dump_json_bytes(v).decode("utf-8")


def dump_json_bytes(v: Any) -> bytes:
    import orjson

    try:
        return orjson.dumps(v, default=_orjson_default, option=orjson.OPT_NON_STR_KEYS)
    except (TypeError, orjson.JSONEncodeError):
        pass  # big integers or unusual keys: the exact writer below handles them
    out: list[str] = []
    _write(v, out, rego=False)
    return "".join(out).encode("utf-8", "surrogatepass")


def dump_rego(v: Any) -> str:
    """Rego literal text (`{1,2}`, `set()`, `{[1]:"a"}`), the syntax of opa_value_dump and
    what opa_value_parse / `parse_rego` accept."""
    out: list[str] = []
    _write(v, out, rego=True)
    return "".join(out)


def _number_text(d: Decimal) -> str:
    if not d.is_finite():
        raise ValueError(f"not a Rego number: {d}")
    return str(d)


def _write(v: Any, out: list[str], rego: bool) -> None:
    t = type(v)
    if v is None:
        out.append("null")
    elif t is bool:
        out.append("true" if v else "false")
    elif t is str:
        out.append(_json_str(v))
    elif t is int:
        out.append(str(v))
    elif t is list or t is tuple:
        out.append("[")
        for i, x in enumerate(v):
            if i:
                out.append(",")
            _write(x, out, rego)
        out.append("]")
    elif t is dict or t is FrozenObject:
        out.append("{")
        for i, (k, x) in enumerate(v.items()):
            if i:
                out.append(",")
            if rego or type(k) is str:
                _write(k, out, rego)
            else:
                key: list[str] = []
                _write(k, key, rego)
                out.append(_json_str("".join(key)))
            out.append(":")
            _write(x, out, rego)
        out.append("}")
    elif t is frozenset or t is set:
        items = sorted(v, key=sort_key)
        if rego:
            if not items:
                out.append("set()")
                return
            out.append("{")
        else:
            out.append("[")
        for i, x in enumerate(items):
            if i:
                out.append(",")
            _write(x, out, rego)
        out.append("}" if rego else "]")
    elif _is_decimal(t):
        out.append(_number_text(v))
    else:
        raise TypeError(f"not a Rego value: {t.__name__}")


# ---------------------------------------------------------------------------
# Rego literal terms (recursive descent)

_LEXEMES: list[re.Pattern[str]] = []  # number, string, raw string, white space (compiled on first use)


def _lexemes() -> list[re.Pattern[str]]:
    import re

    if not _LEXEMES:
        _LEXEMES.extend(re.compile(p) for p in (
            r"-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?",
            r'"(?:[^"\\\x00-\x1f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"',
            r"`[^`]*`",
            r"[ \t\n\r]*",
        ))
    return _LEXEMES
_KEYWORDS = (("null", None), ("true", True), ("false", False))
_JSON_WS = " \t\n\r"


def parse_rego(text: str | bytes) -> Any:
    """Parse a Rego literal term: JSON plus sets (`{1,2}`, `set()`), non-string object keys,
    raw strings and trailing commas. Sets come back as frozensets, keys frozen."""
    if isinstance(text, bytes | bytearray | memoryview):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as e:
            raise ValueParseError(f"invalid Rego term: not UTF-8: {e.reason}", e.start) from None
    if "set(" not in text and "`" not in text:
        from cupcake_py.core.jsonio import JSONError, loads

        body = text.strip(_JSON_WS)
        if body[:1] == "{" and body[1:].lstrip(_JSON_WS)[:1] not in ('"', "}") and body[-1:] == "}":
            # a set (a JSON object's first key is a string) — a result set `{{"result": …}}`
            # among them: its elements as a JSON array (a valid array only when the set is valid)
            try:
                return frozenset([freeze(v) for v in loads(f"[{body[1:-1]}]")])
            except JSONError:
                pass
        else:
            try:  # most terms are plain JSON: the strict _json reader (no orjson import) reads them to the same values
                return loads(text)
            except JSONError:
                pass
        if "\\u" in text:  # ... except lone surrogate escapes, which it refuses and parse_json reads
            try:
                return parse_json(text)
            except ValueParseError:
                pass
    parser = _TermParser(text)
    try:
        value = parser.term()
    except RecursionError:
        raise ValueParseError("invalid Rego term: nested too deeply") from None
    parser.ws()
    if parser.i != len(text):
        parser.fail("extra text after the term")
    return value


class _TermParser:
    __slots__ = ("s", "i", "number", "string", "raw_string", "white")

    def __init__(self, s: str) -> None:
        self.s = s
        self.i = 0
        self.number, self.string, self.raw_string, self.white = _lexemes()

    def fail(self, what: str) -> NoReturn:
        raise ValueParseError(f"invalid Rego term: {what}", self.i)

    def ws(self) -> None:
        m = self.white.match(self.s, self.i)  # whitespace* always matches
        if m:
            self.i = m.end()

    def eat(self, ch: str) -> bool:
        self.ws()
        if self.s.startswith(ch, self.i):
            self.i += len(ch)
            return True
        return False

    def term(self) -> Any:
        self.ws()
        s, i = self.s, self.i
        if i >= len(s):
            self.fail("unexpected end of text")
        c = s[i]
        if c == '"':
            m = self.string.match(s, i)
            if not m:
                self.fail("bad string")
            self.i = m.end()
            import json

            return json.loads(m.group())
        if c == "`":
            m = self.raw_string.match(s, i)
            if not m:
                self.fail("unterminated raw string")
            self.i = m.end()
            return m.group()[1:-1]
        if c == "-" or c.isdigit():
            m = self.number.match(s, i)
            if not m:
                self.fail("bad number")
            self.i = m.end()
            text = m.group()
            if m.group(1) is None and m.group(2) is None:
                return int(text)
            from decimal import Decimal, InvalidOperation

            try:
                return Decimal(text)
            except InvalidOperation:
                self.fail("bad number")
        if c == "[":
            self.i += 1
            items: list[Any] = []
            if self.eat("]"):
                return items
            items.append(self.term())
            while self._another("]", ""):
                items.append(self.term())
            return items
        if c == "{":
            self.i += 1
            if self.eat("}"):
                return {}
            first = self.term()
            if self.eat(":"):
                return self._object(first)
            return self._set(first)
        if s.startswith("set(", i):
            self.i += 4
            if not self.eat(")"):
                self.fail("expected ')' after 'set('")
            return frozenset()
        for word, value in _KEYWORDS:
            if s.startswith(word, i):
                self.i += len(word)
                return value
        self.fail(f"unexpected character {c!r}")

    def _another(self, close: str, where: str) -> bool:
        """After an item of a collection: False at its closing bracket (a trailing comma
        allowed), True after a comma that another item follows."""
        if self.eat(close):
            return False
        if not self.eat(","):
            self.fail(f"expected ',' or '{close}'{where}")
        return not self.eat(close)

    def _object(self, key: Any) -> dict[Any, Any]:
        obj: dict[Any, Any] = {}
        while True:
            obj[freeze(key)] = self.term()
            if not self._another("}", " in object"):
                return obj
            key = self.term()
            if not self.eat(":"):
                self.fail("expected ':' in object")

    def _set(self, first: Any) -> frozenset[Any]:
        items = [freeze(first)]
        while self._another("}", " in set"):
            items.append(freeze(self.term()))
        return frozenset(items)
