"""units.parse and units.parse_bytes (decimal and binary SI suffixes, exact arithmetic)."""

from __future__ import annotations

from decimal import Decimal, InvalidOperation, localcontext
from typing import Any

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import BuiltinError, want_str

_DEC = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12, "p": 10**15, "e": 10**18}
_BIN = {"ki": 2**10, "mi": 2**20, "gi": 2**30, "ti": 2**40, "pi": 2**50, "ei": 2**60}


def split_amount(s: str) -> tuple[str, str]:
    """Split ``s`` into its numeric part (digits, '.', scientific exponent) and the unit."""
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c in "eE":
            nxt = s[i + 1] if i + 1 < n else ""
            if not (nxt.isdigit() or nxt in ("+", "-")) or nxt == "":
                break
            if nxt in "+-":
                i += 1
        elif not (c.isdigit() or c in ".+-"):
            break
        i += 1
    return s[:i], s[i:]


def _number(fname: str, text: str, what: str) -> Decimal:
    try:
        d = Decimal(text)
    except InvalidOperation:
        raise BuiltinError(f"{fname}: could not parse {what} to a number") from None
    if not d.is_finite():
        raise BuiltinError(f"{fname}: could not parse {what} to a number")
    return d


def _result(d: Decimal) -> int | Decimal:
    if d == d.to_integral_value():
        return int(d)
    return d.normalize()


@builtin("units.parse")
def units_parse(ctx: BuiltinContext, x: Any) -> int | Decimal:
    f = "units.parse"
    s = want_str(f, 1, x).replace('"', "")
    if " " in s:
        raise BuiltinError(f"{f}: spaces not allowed in resource strings")
    num, unit = split_amount(s)
    if not num:
        raise BuiltinError(f"{f}: no amount provided")
    if len(unit) > 1:
        unit = unit[0] + unit[1:].lower()
    if unit == "":
        mult: Decimal | int = 1
    elif unit == "m":
        mult = Decimal("0.001")
    elif unit == "M":
        mult = _DEC["m"]
    elif unit.lower() in _DEC and unit != "m":
        mult = _DEC[unit.lower()]
    elif unit[0].lower() + unit[1:] in _BIN:
        mult = _BIN[unit[0].lower() + unit[1:]]
    else:
        raise BuiltinError(f"{f}: unit {unit} not recognized")
    with localcontext() as lc:
        lc.prec = 100
        return _result(_number(f, num, "amount") * mult)


@builtin("units.parse_bytes")
def units_parse_bytes(ctx: BuiltinContext, x: Any) -> int:
    f = "units.parse_bytes"
    s = want_str(f, 1, x).lower().replace('"', "")
    if " " in s:
        raise BuiltinError(f"{f}: spaces not allowed in resource strings")
    num, unit = split_amount(s)
    if not num:
        raise BuiltinError(f"{f}: no byte amount provided")
    if unit == "":
        mult = 1
    elif unit.rstrip("b") in _DEC and unit in (unit[0], unit[0] + "b"):
        mult = _DEC[unit[0]]
    elif unit in _BIN or (unit.endswith("b") and unit[:-1] in _BIN):
        mult = _BIN[unit[:2]]
    else:
        raise BuiltinError(f"{f}: byte unit {unit} not recognized")
    with localcontext() as lc:
        lc.prec = 100
        return int(_number(f, num, "byte amount") * mult)
