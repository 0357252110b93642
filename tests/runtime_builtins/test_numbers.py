"""Arithmetic, rounding, comparison, numbers.range, to_number and bits.*: exact on big and
decimal numbers; errors (type, division by zero, non-integers) are undefined."""

from __future__ import annotations

from decimal import Decimal

import pytest

from .harness import Runtime
from .tables import UNDEFINED, Row, check, row_id

BIG = "123456789012345678901234567890"

ROWS: list[Row] = [
    ("plus", ("0.1", "0.2"), Decimal("0.3")),
    ("plus", (BIG, "1"), int(BIG) + 1),
    ("plus", ('"1"', "1"), UNDEFINED),
    ("minus", ("1", "2.5"), Decimal("-1.5")),
    ("minus", ("{1, 2, 3}", "{2}"), [1, 3]),
    ("minus", ("{1}", "1"), UNDEFINED),
    ("mul", (BIG, BIG), int(BIG) ** 2),
    ("mul", ("1.5", "4"), 6),
    ("div", ("10", "4"), Decimal("2.5")),
    ("div", ("1e109", "1e100"), 1000000000),
    ("div", ("1", "0"), UNDEFINED),
    ("div", ("1", "0.0"), UNDEFINED),
    ("rem", ("7", "3"), 1),
    ("rem", ("-7", "3"), -1),
    ("rem", ("7", "0"), UNDEFINED),
    ("rem", ("1.1", "1"), UNDEFINED),
    ("abs", ("-1.5",), Decimal("1.5")),
    ("abs", ("null",), UNDEFINED),
    ("round", ("2.5",), 3),
    ("round", ("-2.5",), -3),
    ("round", ("2.4999",), 2),
    ("ceil", ("-1.5",), -1),
    ("floor", ("-1.5",), -2),
    ("floor", ("1e-20",), 0),
    ("equal", ("1", "1.0"), True),
    ("equal", ("[1, {2: 3}]", "[1.0, {2.0: 3e0}]"), True),
    ("neq", ("1", '"1"'), True),
    ("lt", ("null", "false"), True),
    ("lt", ("1", '"a"'), True),
    ("lt", ("[1, 2]", "[1, 2, 0]"), True),
    ("gt", ("{1}", '{"a": 1}'), True),
    ("lte", ("2", "2.0"), True),
    ("gte", ('"b"', '"a"'), True),
    ("numbers.range", ("1", "3"), [1, 2, 3]),
    ("numbers.range", ("3", "1"), [3, 2, 1]),
    ("numbers.range", ("1.0", "2"), [1, 2]),
    ("numbers.range", ("1.5", "2"), UNDEFINED),
    ("numbers.range", ("1e20", "100000000000000000001"), [10**20, 10**20 + 1]),
    ("to_number", ('"10"',), 10),
    ("to_number", ('"-1.5e3"',), -1500),
    ("to_number", ('"+5"',), 5),
    ("to_number", ('".5"',), Decimal("0.5")),
    ("to_number", ('"007"',), 7),
    ("to_number", ("true",), 1),
    ("to_number", ("null",), 0),
    ("to_number", ("1.25",), Decimal("1.25")),
    ("to_number", ('"1e400"',), UNDEFINED),
    ("to_number", ('"NaN"',), UNDEFINED),
    ("to_number", ('" 1"',), UNDEFINED),
    ("to_number", ('"1_000"',), UNDEFINED),
    ("to_number", ("[]",), UNDEFINED),
    ("bits.and", ("12", "10"), 8),
    ("bits.or", ("12", "10"), 14),
    ("bits.xor", ("12", "10"), 6),
    ("bits.and", ("-1", BIG), int(BIG)),
    ("bits.or", ("-" + BIG, "255"), -int(BIG) | 255),
    ("bits.xor", (BIG, "-2"), int(BIG) ^ -2),
    ("bits.negate", ("0",), -1),
    ("bits.negate", (BIG,), ~int(BIG)),
    ("bits.lsh", ("1", "100"), 1 << 100),
    ("bits.lsh", ("-3", "2"), -12),
    ("bits.rsh", ("-7", "1"), -4),
    ("bits.rsh", ("-" + BIG, "64"), -int(BIG) >> 64),
    ("bits.rsh", ("5", "200"), 0),
    ("bits.lsh", ("1", "-1"), UNDEFINED),
    ("bits.and", ("1.5", "1"), UNDEFINED),
    ("bits.negate", ('"1"',), UNDEFINED),
]


@pytest.mark.parametrize("row", ROWS, ids=row_id)
def test_number_builtin(rt: Runtime, row: Row) -> None:
    check(rt, row)
