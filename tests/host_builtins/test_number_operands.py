"""Integer operands as OPA reads them: IntOperand (the number's text must be an int64, so
`1e3`/`2.0` fail) versus exact conversions (any integral value is accepted)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.host_builtins.calls import call, fails

FLOAT_MSG = "must be integer number but got floating-point number"


@pytest.mark.parametrize(
    ("name", "args", "pos"),
    [
        ("rand.intn", ("k", Decimal("1E+1")), 2),
        ("rand.intn", ("k", Decimal("10.0")), 2),
        ("regex.find_n", ("a", "aaa", Decimal("2.0")), 3),
        ("regex.find_all_string_submatch_n", ("a", "aaa", Decimal("1e0")), 3),
        ("strings.split_n", ("a,b", ",", Decimal("-1.0")), 3),
        ("time.add_date", (0, Decimal("1.0"), 0, 0), 2),
        ("rand.intn", ("k", 1 << 63), 2),  # beyond int64
    ],
)  # fmt: skip
def test_int_operand_rejects_fraction_or_exponent_text(name: str, args: tuple[object, ...], pos: int) -> None:
    fails(name, *args, match=f"{name}: operand {pos} {FLOAT_MSG}")


def test_int_operand_accepts_integer_text() -> None:
    assert call("regex.find_n", "a", "aaa", 2) == ["a", "a"]
    assert call("strings.split_n", "a,b,c", ",", 2) == ["a", "b,c"]
    assert call("time.add_date", 0, 1, 0, 0) == 365 * 86400 * 10**9


@pytest.mark.parametrize("n", [Decimal("1E+9"), Decimal("1000000000.0"), 1_000_000_000])
def test_exact_conversions_accept_integral_values_however_written(n: object) -> None:
    assert call("time.date", n) == [1970, 1, 1]
    assert call("time.add_date", n, 0, 0, 1) == 86_401_000_000_000
    assert call("numbers.range_step", 0, Decimal("4e0"), Decimal("2.0")) == [0, 2, 4]


def test_exact_conversions_reject_fractions() -> None:
    fails("time.date", Decimal("1.5"), match="time.date: timestamp too big")
    fails("numbers.range_step", 0, Decimal("4.5"), 1, match=f"operand 2 {FLOAT_MSG}")


def test_sigv4_timestamp_must_be_an_int64_literal() -> None:
    """OPA reads time_ns with Number.Int64 (text based): -1e9 as written in a policy fails."""
    req = {"method": "GET", "url": "https://example.com"}
    cfg = {
        "aws_access_key": "a",
        "aws_secret_access_key": "s",
        "aws_service": "s3",
        "aws_region": "us-east-1",
    }
    for bad in (Decimal("-1E+9"), Decimal("1.0"), Decimal("1E+18")):
        fails(
            "providers.aws.sign_req",
            req,
            cfg,
            bad,
            match="operand 3 could not convert time_ns value into a unix timestamp",
        )
    assert (
        call("providers.aws.sign_req", req, cfg, 1_451_311_705_000_000_000)["headers"]["x-amz-date"]
        == "20151228T140825Z"
    )


@pytest.mark.parametrize(
    ("fmt", "arg", "out"),
    [
        ("%v", Decimal("2E+308"), "2e308"),  # beyond float64: its text (OPA)
        ("%v", Decimal("-1e400"), "-1e400"),
        ("%v", Decimal("1E+3"), "1000"),  # float64
        ("%d", Decimal("1E+3"), "%!d(float64=1000)"),
        ("%d", 10**30, "1000000000000000000000000000000"),  # *big.Int
    ],
)
def test_sprintf_number_kinds(fmt: str, arg: object, out: str) -> None:
    assert call("sprintf", fmt, [arg]) == out
