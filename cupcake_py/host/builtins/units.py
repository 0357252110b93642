"""units.parse and units.parse_bytes, as OPA computes them (decimal and binary SI suffixes).

units.parse multiplies exactly (Go's big.Rat; `m` is the float64 nearest 0.001, as OPA's
constant) and writes a fractional result with ten decimals, rounded half away from zero
(big.Rat.FloatString(10): `1e-11` is 0). units.parse_bytes multiplies in Go's big.Float at
its default 64-bit precision and truncates toward zero. Both read the amount byte by byte:
ASCII digits, `.`, signs and an exponent of at most six digits (more: "exponent too large").
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from cupcake_py.host.builtins import BuiltinContext, builtin
from cupcake_py.host.builtins._errors import BuiltinError, want_str

_DEC = {"k": 10**3, "m": 10**6, "g": 10**9, "t": 10**12, "p": 10**15, "e": 10**18}
_BIN = {"ki": 2**10, "mi": 2**20, "gi": 2**30, "ti": 2**40, "pi": 2**50, "ei": 2**60}
_DIGITS = "0123456789"
_MAX_EXPONENT_DIGITS = 6
_MILLI = Fraction(0.001)  # OPA: big.Rat.SetFloat64(0.001)


class _ExponentTooLarge(Exception):
    pass


def split_amount(s: str) -> tuple[str, str]:
    """Split ``s`` into its numeric part (digits, '.', signs, scientific exponent) and the unit."""
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c in "eE":
            nxt = s[i + 1] if i + 1 < n else ""
            if nxt == "" or not (nxt in _DIGITS or nxt in "+-"):
                break
            if nxt in "+-":
                i += 1
            end = i + 1
            while end < n and s[end] in _DIGITS:
                end += 1
            if end - (i + 1) > _MAX_EXPONENT_DIGITS:
                raise _ExponentTooLarge
        elif not (c in _DIGITS or c in ".+-"):
            break
        i += 1
    return s[:i], s[i:]


def _split(fname: str, s: str) -> tuple[str, str]:
    if " " in s:
        raise BuiltinError(f"{fname}: spaces not allowed in resource strings")
    try:
        return split_amount(s)
    except _ExponentTooLarge:
        raise BuiltinError(f"{fname}: exponent too large") from None


def _number(fname: str, text: str, what: str) -> Fraction:
    try:
        d = Decimal(text)
    except InvalidOperation:
        raise BuiltinError(f"{fname}: could not parse {what} to a number") from None
    if not d.is_finite():
        raise BuiltinError(f"{fname}: could not parse {what} to a number")
    return Fraction(d)


def _float64_mantissa(x: Fraction) -> Fraction:
    """x rounded to a 64-bit mantissa, to nearest, ties to even (big.Float's default precision)."""
    if x == 0:
        return x
    mag = abs(x)
    e = mag.numerator.bit_length() - mag.denominator.bit_length()
    if Fraction(2) ** e > mag:
        e -= 1
    scaled = mag * Fraction(2) ** (63 - e)
    n, rem = divmod(scaled.numerator, scaled.denominator)
    if 2 * rem > scaled.denominator or (2 * rem == scaled.denominator and n % 2):
        n += 1
    out = Fraction(n) * Fraction(2) ** (e - 63)
    return -out if x < 0 else out


@builtin("units.parse")
def units_parse(ctx: BuiltinContext, x: Any) -> int | Decimal:
    f = "units.parse"
    num, unit = _split(f, want_str(f, 1, x).replace('"', ""))
    if not num:
        raise BuiltinError(f"{f}: no amount provided")
    if len(unit) > 1:
        unit = unit[0] + unit[1:].lower()
    mult: Fraction | int
    if unit == "":
        mult = 1
    elif unit == "m":
        mult = _MILLI
    elif unit == "M":
        mult = _DEC["m"]
    elif unit.lower() in _DEC:
        mult = _DEC[unit.lower()]
    elif unit[0].lower() + unit[1:] in _BIN:
        mult = _BIN[unit[0].lower() + unit[1:]]
    else:
        raise BuiltinError(f"{f}: unit {unit} not recognized")
    value = _number(f, num, "amount") * mult
    if value.denominator == 1:
        return int(value)
    # big.Rat.FloatString(10): ten decimals, the last rounded half away from zero
    scaled = abs(value) * 10**10
    q, r = divmod(scaled.numerator, scaled.denominator)
    if 2 * r >= scaled.denominator:
        q += 1
    out = Decimal(q).scaleb(-10)
    out = -out if value < 0 else out
    return int(out) if out == out.to_integral_value() else out.normalize()


@builtin("units.parse_bytes")
def units_parse_bytes(ctx: BuiltinContext, x: Any) -> int:
    f = "units.parse_bytes"
    num, unit = _split(f, want_str(f, 1, x).lower().replace('"', ""))
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
    amount = _float64_mantissa(_number(f, num, "byte amount"))
    total = _float64_mantissa(amount * mult)
    return int(total)  # truncated toward zero, as big.Float.Int
