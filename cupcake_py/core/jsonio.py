"""JSON on the `cupcake eval` path: CPython's C accelerator (`_json`), strict like orjson.

Importing the `json` package costs `re` and three pure-Python modules on every agent tool
call; this module drives `_json`'s scanner and encoder directly (the `json` package is
imported only for an error message or an indented dump).

- `loads(data)`: bytes must be UTF-8 (no BOM, no encoded surrogates); NaN, Infinity,
  -Infinity and lone UTF-16 surrogate escapes ("\\ud800") are rejected. Numbers are exact,
  as everywhere on the Python side (docs/architecture.md section 1): an integer is an `int`
  with every digit, a number with a fraction or exponent a `decimal.Decimal` with its exact
  value (0.1, 1e400, -0.0, 123456789012345678901234567890.5; never a float). `decimal` is
  imported only when such a number is read. Every failure is a `JSONError` (a ValueError).
- `dumps(value)`: compact UTF-8 bytes; dicts keep their key order; a Decimal is written with
  its exact text (`str(d)`), a float as `repr`. TypeError for anything that is not JSON:
  non-str keys, sets, NaN/Infinity (float or Decimal), circular containers and strings that
  cannot be encoded as UTF-8 (lone surrogates). Values without a Decimal go through the C
  encoder alone; one with a Decimal (or nested deeper than the C encoder recurses) is written
  by the iterative `_write_exact`. No encoder state outlives a call: each call makes its own C
  encoder, whose circular-reference `markers` an interrupted encoding would otherwise leave
  behind for the next call (issue 29).
- `copy(value)`: a deep copy of a JSON value (new containers, shared immutable scalars), for
  the harnesses' private copies of an event's arguments (no text round trip: no copy of a
  large string).
- `size_floor(value)`: a lower bound of the size of `dumps(value)`, without encoding it.
- `decode(data)`: UTF-8 bytes as text, the JSONError of `loads` on invalid UTF-8.
- `is_fraction(v)`: whether `v` is such a Decimal (without importing `decimal`).
- `dumps_pretty(value)`: indented, keys sorted, anything unknown as str (debug files).
- `encode_str(s)` / `encode_str_ascii(s)`: one string as JSON text (`json.dumps(s,
  ensure_ascii=False)` / `json.dumps(s)`), for the value printers.
A Python without `_json` fails at import with an ImportError that names it
(tests/architecture/test_private_modules.py).
"""

from __future__ import annotations

import sys

try:  # CPython's C accelerator of the json package (optional in a CPython build, absent elsewhere)
    from _json import encode_basestring as encode_str  # json.dumps(s, ensure_ascii=False)
    from _json import encode_basestring_ascii as encode_str_ascii  # json.dumps(s)
    from _json import make_encoder as _make_encoder
    from _json import make_scanner as _make_scanner
except ImportError as e:  # the json package's pure-Python encoder has another interface: no fallback
    raise ImportError(
        "cupcake-py needs CPython's `_json` accelerator module, which this Python "
        f"({sys.implementation.name} {sys.version.split()[0]}) lacks; use a CPython build that has it"
    ) from e

__all__ = ["JSONError", "copy", "decode", "dumps", "dumps_pretty", "encode_str", "encode_str_ascii", "loads", "size_floor"]

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

_WS = " \t\n\r"
_INF = float("inf")


class JSONError(ValueError):
    """Input that is not strict JSON; the message says what and, when known, where."""


def _reject_constant(name: str) -> Any:
    raise JSONError(f"{name} is not valid JSON")


def _exact_number(text: str) -> Any:
    """A JSON number with a fraction or exponent, exactly (the scanner hands over its text)."""
    from decimal import Decimal  # first use only: later a sys.modules lookup

    return Decimal(text)


def is_fraction(v: Any) -> bool:
    """Whether `v` is a number `loads` read with a fraction or exponent (a decimal.Decimal)."""
    decimal = sys.modules.get("decimal")
    return decimal is not None and isinstance(v, decimal.Decimal)


class _Context:
    """The settings `_json.make_scanner` reads from a JSONDecoder."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = staticmethod(_exact_number)
    parse_int = int
    parse_constant = staticmethod(_reject_constant)


# typeshed types the context as a scanner; CPython reads the attributes above from any object (json.decoder
# passes its JSONDecoder)
_scan = _make_scanner(_Context())  # type: ignore[arg-type]


def _where(text: str, pos: int) -> str:
    line = text.count("\n", 0, pos) + 1
    return f"line {line} column {pos - text.rfind(chr(10), 0, pos)} (char {pos})"


def decode(data: bytes | bytearray | memoryview) -> str:
    """UTF-8 bytes as text (JSONError on invalid UTF-8), for `loads`: a caller holding a large
    input decodes it first and drops the bytes, so bytes, text and value are never all alive."""
    try:
        return bytes(data).decode("utf-8") if not isinstance(data, bytes) else data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise JSONError(f"invalid UTF-8 at byte {e.start}: {e.reason}") from None


def _leading_ws(text: str) -> int:
    """How many JSON whitespace characters `text` starts with (no copy of `text` unless it
    starts with whitespace)."""
    return len(text) - len(text.lstrip(_WS)) if text and text[0] in _WS else 0


def _trailing_ws(text: str) -> int:
    """How many JSON whitespace characters end `text` (no copy of a large text for the usual
    few: a newline)."""
    n = 0
    while n < 64 and n < len(text) and text[-1 - n] in _WS:
        n += 1
    if n < 64:
        return n
    return len(text) - len(text.rstrip(_WS))


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    """The JSON value in `data` (strict; see the module docstring)."""
    text = data if isinstance(data, str) else decode(data)
    if text[:1] == "\ufeff":
        raise JSONError("a byte order mark (BOM) is not allowed: line 1 column 1 (char 0)")
    start = _leading_ws(text)
    try:
        value, end = _scan(text, start)
    except StopIteration as e:
        what = "empty input" if start == len(text) else "expecting a JSON value"
        raise JSONError(f"{what}: {_where(text, e.value)}") from None
    except JSONError:
        raise
    except RecursionError:
        raise JSONError("the JSON value is nested too deeply") from None
    except SystemError:
        # Python 3.11's scanner raises json.decoder.JSONDecodeError only when that module is
        # already imported (3.12+ imports it); import it and scan again for the real error.
        if "json.decoder" in sys.modules:
            raise
        import json.decoder  # noqa: F401

        return loads(text)
    except ValueError as e:  # json.JSONDecodeError (message + position), int digit limits, …
        raise JSONError(str(e)) from None
    rest = _trailing_ws(text)
    if end != len(text) - rest:
        tail = text[end:]
        raise JSONError(f"extra data after the JSON value: {_where(text, end + len(tail) - len(tail.lstrip(_WS)))}")
    if "\\ud" in text or "\\uD" in text:  # only then can a lone surrogate escape be in a string
        _check_surrogates(value)
    return value


def _check_surrogates(value: Any) -> None:
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            strings: Any = (v,)
        elif isinstance(v, dict):
            strings = v.keys()
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)
            continue
        else:
            continue
        for s in strings:
            if not s.isascii():
                try:
                    s.encode("utf-8")
                except UnicodeEncodeError as e:
                    raise JSONError(f"lone UTF-16 surrogate \\u{ord(s[e.start]):04x} in a string "
                                    "(not valid Unicode)") from None


def _not_json(value: Any) -> Any:
    if is_fraction(value):
        raise _HasFraction
    raise TypeError(f"{type(value).__name__} is not JSON serializable")


class _HasFraction(Exception):
    """The C encoder met a Decimal (it has no way to write a number's own text)."""


def _encoder(default: Callable[[Any], Any]) -> Callable[[Any, int], Any]:
    """A C encoder of its own for one `dumps` call. Its `markers` dict (circular-reference
    check) is private to the call: an encoding stopped by an exception (a Decimal, NaN, a
    circle) leaves entries behind in it, which a shared encoder would carry into later calls
    ("Circular reference detected" for an unrelated value whose id is reused, and a leak)."""
    return _make_encoder({}, default, encode_str, None, ":", ",", False, False, False)


_CONTAINERS = (dict, list, tuple)
_SCALARS = frozenset((str, int, float, bool, type(None)))


def _check_keys(value: Any) -> None:
    """TypeError for a dict key that is not a str anywhere in `value` (the C encoder would
    turn int, float, bool and None keys into strings). `"".join(d)` checks a dict's keys in C
    (it raises TypeError on the first key that is not a str)."""
    stack = [value]
    seen: set[int] = set()
    pop, push, mark = stack.pop, stack.extend, seen.add
    while stack:
        v = pop()
        if id(v) in seen:
            continue  # shared or circular (the encoder reports circles)
        mark(id(v))
        if isinstance(v, dict):
            try:
                "".join(v)
            except TypeError:
                bad = next(k for k in v if not isinstance(k, str))
                raise TypeError(f"dict key {bad!r} is not a str") from None
            v = v.values()
        elif _SCALARS.issuperset(map(type, v)):
            continue  # a list of scalars (e.g. input.cupcake_routed): checked at C speed
        push([x for x in v if isinstance(x, _CONTAINERS)])


def dumps(value: Any, default: Callable[[Any], Any] | None = None) -> bytes:
    """Compact JSON as UTF-8 bytes; `default` maps values JSON has no type for (else TypeError).
    Safe to call from any thread and after any earlier failure: no state outlives the call."""
    if isinstance(value, dict | list | tuple):
        _check_keys(value)
    if default is None:
        encode = _encoder(_not_json)
    else:
        def fallback(v: Any) -> Any:
            if is_fraction(v):
                raise _HasFraction
            return default(v)

        encode = _encoder(fallback)
    try:
        text = "".join(encode(value, 0))
    except (_HasFraction, RecursionError):  # a Decimal, or deeper than the C encoder's recursion goes
        text = _write_exact(value, default)
    except ValueError as e:  # NaN/Infinity, circular reference
        raise TypeError(str(e)) from None
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as e:
        raise TypeError(f"str is not valid UTF-8: {e.reason}") from None


def _scalar_text(v: Any) -> str | None:
    """The JSON text of a scalar (None for a container or an unknown type)."""
    if v is None or v is True or v is False:
        return "null" if v is None else "true" if v else "false"
    if isinstance(v, str):
        return encode_str(v)
    if isinstance(v, int):
        return int.__repr__(v)
    if isinstance(v, float):
        if v != v or v in (_INF, -_INF):
            raise TypeError(f"{v!r} is not a JSON number")
        return float.__repr__(v)
    if is_fraction(v):
        if not v.is_finite():
            raise TypeError(f"{v!r} is not a JSON number")
        return str(v)
    return None


def _write_exact(value: Any, default: Callable[[Any], Any] | None) -> str:
    """The compact JSON text of `value` (keys already checked), Decimals with their exact text.
    Iterative (any depth the reader accepted is written back); a container met again while it
    is being written is a circle (TypeError)."""
    out: list[str] = []
    emit = out.append
    open_ids: set[int] = set()
    # work items: a value to write, or a str to emit as is, or a (close text, id) pair ending a container
    stack: list[Any] = [(value,)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            emit(item)
            continue
        if len(item) == 2:
            open_ids.discard(item[1])
            emit(item[0])
            continue
        v = item[0]
        text = _scalar_text(v)
        if text is not None:
            emit(text)
            continue
        if isinstance(v, dict | list | tuple):
            if id(v) in open_ids:
                raise TypeError("Circular reference detected")
            open_ids.add(id(v))
            work: list[Any] = []
            if isinstance(v, dict):
                emit("{")
                for i, (k, x) in enumerate(v.items()):
                    work.append(("," if i else "") + encode_str(k) + ":")
                    work.append((x,))
                work.append(("}", id(v)))
            else:
                emit("[")
                for i, x in enumerate(v):
                    if i:
                        work.append(",")
                    work.append((x,))
                work.append(("]", id(v)))
            work.reverse()
            stack.extend(work)
        elif default is not None:
            mapped = default(v)
            if _scalar_text(mapped) is None and not isinstance(mapped, dict | list | tuple):
                raise TypeError(f"default() turned a {type(v).__name__} into a {type(mapped).__name__}, "
                                "which is not JSON either")
            stack.append((mapped,))
        else:
            raise TypeError(f"{type(v).__name__} is not JSON serializable")
    return "".join(out)


def copy(value: Any) -> Any:
    """A deep copy of a JSON value that shares nothing mutable with it: new dicts and lists
    (a tuple becomes a list, as a round trip through the text would make it), the same
    immutable scalars (str, int, Decimal, ...: no copy of a large string). Iterative, so any
    depth `loads` accepted is copied; a container met again while it is being copied is a
    circle (TypeError). Cheaper than `loads(dumps(value))` in time and memory; it checks nothing
    else (the value is JSON already)."""
    if not isinstance(value, _CONTAINERS):
        return value
    top: list[Any] = []
    open_ids: set[int] = set()
    # work: (source container, its copy, source iterator); a copy is filled as its source is walked
    stack: list[tuple[Any, Any, Any]] = []

    def start(src: Any) -> Any:
        if id(src) in open_ids:
            raise TypeError("Circular reference detected")
        open_ids.add(id(src))
        dup: Any = {} if isinstance(src, dict) else []
        stack.append((src, dup, iter(src.items()) if isinstance(src, dict) else iter(src)))
        return dup

    top.append(start(value))
    while stack:
        src, dup, items = stack[-1]
        for item in items:
            if isinstance(dup, dict):
                k, v = item
                if isinstance(v, _CONTAINERS):
                    dup[k] = start(v)
                    break
                dup[k] = v
            else:
                if isinstance(item, _CONTAINERS):
                    dup.append(start(item))
                    break
                dup.append(item)
        else:
            stack.pop()
            open_ids.discard(id(src))
    return top[0]


def size_floor(value: Any, budget: int | None = None) -> int:
    """A lower bound of `len(dumps(value))`, found without encoding: every string's characters
    (each at least one UTF-8 byte) and quotes, one byte per other scalar, the brackets. Lets a
    caller refuse a value too large for where its text must go before making the text. With a
    `budget`, at most that many values are looked at (what was seen is still a lower bound)."""
    total = 0
    stack = [value]
    seen: set[int] = set()
    left = -1 if budget is None else budget
    while stack and left != 0:
        left -= 1
        v = stack.pop()
        if isinstance(v, str):
            total += len(v) + 2
        elif isinstance(v, _CONTAINERS):
            if id(v) in seen:
                continue  # shared (or circular): counted once, still a lower bound
            seen.add(id(v))
            total += 2
            if isinstance(v, dict):
                stack.extend(v)
                stack.extend(v.values())
            else:
                stack.extend(v)
        else:
            total += 1
    return total


def dumps_pretty(value: Any) -> str:
    """Indented (2), keys sorted, unknown types as str: for files people read."""
    import json

    return json.dumps(value, indent=2, sort_keys=True, default=str, ensure_ascii=False)
