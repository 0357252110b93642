"""time.* builtins: ns precision, Go layouts, IANA zones (zoneinfo)."""

from __future__ import annotations

import datetime as _dt
from decimal import Decimal
from typing import Any

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import BuiltinError, type_err, want_int_literal, want_str
from cupcake_py.host.builtins.go_time_layout import (
    DAYS,
    NAMED_LAYOUTS,
    NS,
    LayoutError,
    civil,
    civil_from_days,
    days_from_civil,
    format_civil,
    load_zone,
    parse,
)

_MIN, _MAX = -(1 << 63), (1 << 63) - 1


def _ns_value(fname: str, v: Any) -> int:
    if isinstance(v, bool) or not isinstance(v, int | Decimal):
        raise type_err(fname, 1, v, "number", "array")
    if isinstance(v, Decimal) and v != v.to_integral_value():  # OPA: big.Float → int64 must be exact
        raise BuiltinError(f"{fname}: timestamp too big")
    n = int(v)
    if not _MIN <= n <= _MAX:
        raise BuiltinError(f"{fname}: timestamp too big")
    return n


def _zone(fname: str, name: Any) -> _dt.tzinfo:
    if not isinstance(name, str):
        raise BuiltinError(f"{fname}: timezone argument must be a string")
    try:
        return load_zone(name)
    except LayoutError as exc:
        raise BuiltinError(f"{fname}: {exc}") from None


def _ns_tz(fname: str, arg: Any) -> tuple[int, _dt.tzinfo, str | None]:
    """``ns`` or ``[ns, tz]`` or ``[ns, tz, layout]`` (layout only for time.format)."""
    if isinstance(arg, list | tuple):
        if len(arg) not in (2, 3) or (len(arg) == 3 and fname != "time.format"):
            raise BuiltinError(f"{fname}: array should have 2 elements" if fname != "time.format"
                               else f"{fname}: array should have 2 or 3 elements")  # fmt: skip
        ns = _ns_value(fname, arg[0])
        tz = _zone(fname, arg[1])
        layout = None
        if len(arg) == 3:
            if not isinstance(arg[2], str):
                raise BuiltinError(f"{fname}: layout argument must be a string")
            layout = arg[2]
        return ns, tz, layout
    return _ns_value(fname, arg), _dt.UTC, None


def _check_range(fname: str, ns: int) -> int:
    if not _MIN <= ns <= _MAX:
        raise BuiltinError(f"{fname}: time outside of valid range")
    return ns


@builtin("time.now_ns")
def now_ns(ctx: BuiltinContext) -> int:
    return ctx.now_ns


@builtin("time.parse_ns")
def parse_ns(ctx: BuiltinContext, layout: Any, value: Any) -> int:
    lay = want_str("time.parse_ns", 1, layout)
    val = want_str("time.parse_ns", 2, value)
    try:
        return _check_range("time.parse_ns", parse(NAMED_LAYOUTS.get(lay, lay), val))
    except LayoutError as exc:
        raise BuiltinError(f"time.parse_ns: {exc}") from None


@builtin("time.parse_rfc3339_ns")
def parse_rfc3339_ns(ctx: BuiltinContext, value: Any) -> int:
    val = want_str("time.parse_rfc3339_ns", 1, value)
    try:
        return _check_range("time.parse_rfc3339_ns", parse(NAMED_LAYOUTS["RFC3339"], val))
    except LayoutError as exc:
        raise BuiltinError(f"time.parse_rfc3339_ns: {exc}") from None


_UNITS = {"ns": 1, "us": 1000, "µs": 1000, "μs": 1000, "ms": 10**6, "s": NS, "m": 60 * NS, "h": 3600 * NS}


def parse_duration(orig: str) -> int:
    """Go's time.ParseDuration."""

    def bad(msg: str = "invalid duration") -> ValueError:
        return ValueError(f'time: {msg} "{orig}"')

    s, d, neg = orig, 0, False
    if s and s[0] in "+-":
        neg, s = s[0] == "-", s[1:]
    if s == "0":
        return 0
    if not s:
        raise bad()
    while s:
        i = 0
        while i < len(s) and s[i].isdigit() and s[i].isascii():
            i += 1
        pre = i > 0
        v = int(s[:i]) if pre else 0
        if v > 1 << 63:
            raise bad()
        s = s[i:]
        f, scale, post = 0, 1.0, False
        if s.startswith("."):
            s = s[1:]
            j, overflow = 0, False
            while j < len(s) and s[j].isdigit() and s[j].isascii():
                if not overflow:
                    if f > ((1 << 63) - 1 - 9) // 10:
                        overflow = True
                    else:
                        f, scale = f * 10 + int(s[j]), scale * 10
                j += 1
            post, s = j > 0, s[j:]
        if not pre and not post:
            raise bad()
        j = 0
        while j < len(s) and s[j] != "." and not (s[j].isdigit() and s[j].isascii()):
            j += 1
        if j == 0:
            raise bad("missing unit in duration")
        u, s = s[:j], s[j:]
        if u not in _UNITS:
            raise ValueError(f'time: unknown unit "{u}" in duration "{orig}"')
        unit = _UNITS[u]
        if v > (1 << 63) // unit:
            raise bad()
        v *= unit
        if f > 0:
            v += int(float(f) * (float(unit) / scale))
            if v > 1 << 63:
                raise bad()
        d += v
        if d > 1 << 63:
            raise bad()
    if neg:
        return -d
    if d > (1 << 63) - 1:
        raise bad()
    return d


@builtin("time.parse_duration_ns")
def parse_duration_ns(ctx: BuiltinContext, duration: Any) -> int:
    try:
        return parse_duration(want_str("time.parse_duration_ns", 1, duration))
    except ValueError as exc:
        raise BuiltinError(f"time.parse_duration_ns: {exc}") from None


@builtin("time.format")
def time_format(ctx: BuiltinContext, x: Any) -> str:
    ns, tz, layout = _ns_tz("time.format", x)
    lay = NAMED_LAYOUTS["RFC3339Nano"] if layout is None else NAMED_LAYOUTS.get(layout, layout)
    return format_civil(civil(ns, tz), lay)


@builtin("time.date")
def time_date(ctx: BuiltinContext, x: Any) -> list[int]:
    ns, tz, _ = _ns_tz("time.date", x)
    c = civil(ns, tz)
    return [c.year, c.month, c.day]


@builtin("time.clock")
def time_clock(ctx: BuiltinContext, x: Any) -> list[int]:
    ns, tz, _ = _ns_tz("time.clock", x)
    c = civil(ns, tz)
    return [c.hour, c.minute, c.second]


@builtin("time.weekday")
def time_weekday(ctx: BuiltinContext, x: Any) -> str:
    ns, tz, _ = _ns_tz("time.weekday", x)
    return DAYS[civil(ns, tz).weekday]


@builtin("time.add_date")
def add_date(ctx: BuiltinContext, ns: Any, years: Any, months: Any, days: Any) -> int:
    f = "time.add_date"
    n = _ns_value(f, ns)
    dy, dm, dd = want_int_literal(f, 2, years), want_int_literal(f, 3, months), want_int_literal(f, 4, days)
    c = civil(n)
    m0 = c.month - 1 + dm
    y = c.year + dy + m0 // 12
    m = m0 % 12 + 1
    day_num = days_from_civil(y, m, 1) + c.day - 1 + dd
    secs = day_num * 86400 + c.hour * 3600 + c.minute * 60 + c.second
    return _check_range(f, secs * NS + c.nsec)


@builtin("time.diff")
def time_diff(ctx: BuiltinContext, ns1: Any, ns2: Any) -> list[int]:
    a, tz1, _ = _ns_tz("time.diff", ns1)
    b, _tz2, _ = _ns_tz("time.diff", ns2)
    if a > b:
        a, b = b, a
    t1, t2 = civil(a, tz1), civil(b, tz1)
    year, month, day = t2.year - t1.year, t2.month - t1.month, t2.day - t1.day
    hour, minute, sec = t2.hour - t1.hour, t2.minute - t1.minute, t2.second - t1.second
    if sec < 0:
        sec, minute = sec + 60, minute - 1
    if minute < 0:
        minute, hour = minute + 60, hour - 1
    if hour < 0:
        hour, day = hour + 24, day - 1
    if day < 0:
        # days of t1's month: Go normalises Date(y1, M1, 32)
        _, _, overflow_day = civil_from_days(days_from_civil(t1.year, t1.month, 1) + 31)
        day += 32 - overflow_day
        month -= 1
    if month < 0:
        month, year = month + 12, year - 1
    return [year, month, day, hour, minute, sec]
