"""Exact decimal arithmetic on numbers (opa_number_*), checked against
Python's decimal module with enough precision to be exact."""

from __future__ import annotations

from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, ROUND_HALF_UP, Context, Decimal, Inexact

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.runtime.model import Num, numbers
from tests.runtime.runtime_host import Runtime

RT = Runtime(max_pages=16384)
BASE = RT("opa_heap_ptr_get")
EXACT = Context(prec=100000, Emax=10**9, Emin=-(10**9))
DIV20 = Context(prec=20, rounding=ROUND_HALF_EVEN, Emax=10**9, Emin=-(10**9))


def canonical(d: Decimal) -> str:
    """The text opa.h specifies for arithmetic results."""
    if d == 0:
        return "0"
    sign, digits, exp = d.normalize(EXACT).as_tuple()
    ds = "".join(map(str, digits))
    s = "-" if sign else ""
    if exp >= 0:
        return s + ds + "0" * exp
    dp = len(ds) + exp
    if dp - 1 < -4:
        mant = ds[0] + ("." + ds[1:] if len(ds) > 1 else "")
        return f"{s}{mant}e-{-(dp - 1):02d}"
    if dp > 0:
        return s + ds[:dp] + "." + ds[dp:]
    return s + "0." + "0" * (-dp) + ds


def expected_div(a: Decimal, b: Decimal) -> Decimal:
    ctx = EXACT.copy()
    ctx.clear_flags()
    q = ctx.divide(a, b)
    if not ctx.flags[Inexact]:
        n = q.normalize(EXACT)
        if n == n.to_integral_value() or len(n.as_tuple().digits) <= 20:
            return q
        return DIV20.plus(q)
    return DIV20.divide(a, b)


def num(text: str) -> int:
    RT_addr = RT.val(text)
    return RT_addr


def result(op: str, *args: str) -> str | None:
    r = RT(f"opa_number_{op}", *[num(a) for a in args])
    return RT.dump(r) if r else None


OPS = {
    "add": lambda a, b: EXACT.add(a, b),
    "sub": lambda a, b: EXACT.subtract(a, b),
    "mul": lambda a, b: EXACT.multiply(a, b),
}


@settings(max_examples=400, deadline=None)
@given(numbers, numbers, st.sampled_from(["add", "sub", "mul", "div"]))
def test_arithmetic_is_exact(a: Num, b: Num, op: str) -> None:
    RT("opa_heap_ptr_set", BASE)
    got = result(op, a.text, b.text)
    if op == "div":
        if b.value == 0:
            assert got is None
            return
        want = expected_div(a.value, b.value)
    else:
        want = OPS[op](a.value, b.value)
    assert got == canonical(want), (a.text, op, b.text)


@settings(max_examples=300, deadline=None)
@given(numbers, numbers)
def test_compare_and_rem(a: Num, b: Num) -> None:
    RT("opa_heap_ptr_set", BASE)
    c = RT("opa_value_compare", num(a.text), num(b.text))
    assert (c > 0) - (c < 0) == int(a.value.compare(b.value))
    got = result("rem", a.text, b.text)
    if a.value != a.value.to_integral_value() or b.value != b.value.to_integral_value() or b.value == 0:
        assert got is None
    else:
        x, y = int(a.value), int(b.value)
        r = abs(x) % abs(y) * (1 if x >= 0 else -1)  # Go's %: sign of the dividend
        assert got == str(r)


@settings(max_examples=300, deadline=None)
@given(numbers)
def test_rounding(a: Num) -> None:
    RT("opa_heap_ptr_set", BASE)
    for op, mode in (("round", ROUND_HALF_UP), ("floor", ROUND_FLOOR), ("ceil", ROUND_CEILING)):
        want = a.value.to_integral_value(rounding=mode, context=EXACT)
        assert result(op, a.text) == canonical(want), (op, a.text)
    assert result("abs", a.text) == canonical(EXACT.abs(a.value))
    assert result("neg", a.text) == canonical(EXACT.minus(a.value))
    i = int(a.value) if a.value == a.value.to_integral_value() else None
    buf = RT("opa_malloc", 8)
    ok = RT("opa_number_try_int", num(a.text), buf)
    fits = i is not None and -(2**63) <= i < 2**63
    assert ok == int(fits)
    if fits:
        assert int.from_bytes(RT.read(buf, 8), "little", signed=True) == i


@pytest.mark.parametrize(
    "op,a,b,want",
    [
        ("div", "1000000000000000000001", "0.2", "5000000000000000000005"),  # integral, > 20 digits: exact
        ("div", "-7e30", "0.7", "-10000000000000000000000000000000"),
        ("div", "1", "3", "0.33333333333333333333"),
        ("div", "2", "3", "0.66666666666666666667"),
        ("div", "10", "4", "2.5"),
        ("div", "1e109", "1e100", "1000000000"),
        ("div", "15.3", "3", "5.1"),
        ("div", "1", "100000", "1e-05"),
        ("div", "-7", "2", "-3.5"),
        ("div", "1", "0", None),
        ("div", "0", "0.0", None),
        ("mul", "1e6", "2", "2000000"),
        ("add", "49649733057", "1", "49649733058"),
        ("add", "0.1", "0.2", "0.3"),
        ("add", "9223372036854775807", "1", "9223372036854775808"),
        ("sub", "-9223372036854775808", "1", "-9223372036854775809"),
        ("mul", "-9223372036854775808", "-1", "9223372036854775808"),
        ("add", "1.5", "1.5", "3"),
        ("add", "1e400", "1", "1" + "0" * 399 + "1"),
        ("add", "1e999999", "1", None),
        ("rem", "7", "0", None),
        ("rem", "1.1", "1", None),
        ("rem", "-7", "3", "-1"),
        ("rem", "7", "-3", "1"),
        ("rem", "1e20", "7", "2"),
        ("rem", "-9223372036854775808", "-1", "0"),
        ("round", "2.5", None, "3"),
        ("round", "-2.5", None, "-3"),
        ("round", "0.04", None, "0"),
        ("ceil", "1.01", None, "2"),
        ("ceil", "-1.99999", None, "-1"),
        ("ceil", "-0.5", None, "0"),
        ("floor", "-1.001", None, "-2"),
        ("floor", "99.99999", None, "99"),
        ("floor", "2222.2222222222", None, "2222"),
        ("abs", "-10", None, "10"),
    ],
)
def test_number_cases(op: str, a: str, b: str | None, want: str | None) -> None:
    RT("opa_heap_ptr_set", BASE)
    got = result(op, a) if b is None else result(op, a, b)
    assert got == want


def test_non_numbers_are_undefined() -> None:
    for op in ("add", "sub", "mul", "div", "rem"):
        assert RT(f"opa_number_{op}", num('"1"'), num("1")) == 0
        assert RT(f"opa_number_{op}", num("1"), num("{1}")) == 0


def test_results_are_int_when_possible() -> None:
    r = RT("opa_number_mul", num("2.5"), num("4"))
    assert RT.u8(r) == 3 and RT.u8(r + 1) == 1  # INT repr
    assert int.from_bytes(RT.read(r + 8, 8), "little", signed=True) == 10
    r = RT("opa_number_div", num("1"), num("8"))
    assert RT.u8(r + 1) == 2  # REF repr
    text = RT.read(RT.u32(r + 8), RT.u32(r + 12)).decode()
    assert text == "0.125"


def test_assign_int_and_size() -> None:
    n = RT("opa_number_ref", RT.bytes_in(b"1.5"), 3)
    RT("opa_value_number_set_int", n, -42)
    assert RT.dump(n) == "-42"
    assert RT.dump(RT("opa_number_size", 7)) == "7"


@pytest.mark.parametrize("text,ok", [("12", True), ("-1.5e+3", True), ("1e", False), ("0x10", False),
                                      (" 1", False), ("", False), ("+1", False), ("1.", False)])
def test_number_parse(text: str, ok: bool) -> None:
    data = text.encode()
    r = RT("opa_number_parse", RT.bytes_in(data or b"\0"), len(data))
    assert (r != 0) == ok
    if ok:
        assert RT.dump(r) == text
