"""time.*: Go reference layouts, ns precision, IANA zones, durations."""

from __future__ import annotations

from decimal import Decimal

import pytest

from tests.host_builtins.calls import call, fails

T = 1670006453141828752  # 2022-12-02T18:40:53.141828752Z, a Friday


@pytest.mark.parametrize(
    ("layout", "want"),
    [
        (None, "2022-12-02T18:40:53.141828752Z"),
        ("RFC1123Z", "Fri, 02 Dec 2022 18:40:53 +0000"),
        ("RFC850", "Friday, 02-Dec-22 18:40:53 UTC"),
        ("Kitchen", "6:40PM"),
        ("StampMilli", "Dec  2 18:40:53.141"),
        ("2006-01-02 15:04:05.000000", "2022-12-02 18:40:53.141828"),
        ("Jan _2 __2 002 pm Z07:00 -07 -0700 -07:00:00", "Dec  2 336 336 pm Z +00 +0000 +00:00:00"),
        ("3:4:5 .9 ,999 .000", "6:40:53 .1 ,141 .141"),
        ("January Monday Mon Jan", "December Friday Fri Dec"),
        ("Janet", "Janet"),  # "Jan" followed by a lower-case letter is literal
    ],
)
def test_format_utc(layout: str | None, want: str) -> None:
    arg = T if layout is None else [T, "UTC", layout]
    assert call("time.format", arg) == want


def test_format_zones() -> None:
    assert call("time.format", [T, "Asia/Kolkata"]) == "2022-12-03T00:10:53.141828752+05:30"
    assert call("time.format", [T, "Asia/Kolkata", "Mon Jan 02 15:04:05 MST -0700 2006"]) == (
        "Sat Dec 03 00:10:53 IST +0530 2022"
    )
    assert call("time.format", [0, "America/New_York", "2006-01-02 15:04 MST"]) == "1969-12-31 19:00 EST"
    fails("time.format", [T, "Mars/Olympus"], match="unknown time zone Mars/Olympus")
    fails("time.format", Decimal("1.5829776E+22"), match="timestamp too big")


@pytest.mark.parametrize(
    ("layout", "value", "want"),
    [
        ("2006-01-02", "2020-02-29", 1582934400000000000),
        ("RFC3339", "2017-06-02T19:00:00-07:00", 1496455200000000000),
        ("2006-01-02T15:04:05Z07:00", "1970-01-01T00:00:00.5Z", 500000000),  # fraction after seconds
        ("2006-01-02 15:04:05.000", "2001-02-03 04:05:06.789", 981173106789000000),
        ("Jan _2 2006 3:04PM", "Feb  3 2001 4:05PM", 981216300000000000),
        ("02 Jan 06 15:04 MST", "03 Feb 01 04:05 XYZ", 981173100000000000),  # unknown abbrev: offset 0
        ("2006-002", "2020-060", 1582934400000000000),  # day of year
        ("06-1-2", "69-1-2", -31449600000000000),  # two-digit years: 69..99 → 19xx
    ],
)
def test_parse_ns(layout: str, value: str, want: int) -> None:
    assert call("time.parse_ns", layout, value) == want


@pytest.mark.parametrize(
    ("layout", "value", "msg"),
    [
        ("2006-01-02", "2020-02-30", "day out of range"),
        ("2006-01-02", "2020-13-01", "month out of range"),
        ("2006-01-02", "2020-01-02x", 'extra text: "x"'),
        ("2006-01-02", "20-01-02", 'cannot parse "20-01-02" as "2006"'),
        ("15:04", "25:00", "hour out of range"),
    ],
)
def test_parse_ns_errors(layout: str, value: str, msg: str) -> None:
    fails("time.parse_ns", layout, value, match=msg)


def test_rfc3339_range() -> None:
    assert call("time.parse_rfc3339_ns", "2262-04-11T23:47:16.854775807Z") == 2**63 - 1
    assert call("time.parse_rfc3339_ns", "1677-09-21T00:12:43.145224192-00:00") == -(2**63)
    fails("time.parse_rfc3339_ns", "2262-04-11T23:47:16.854775808Z", match="time outside of valid range")


@pytest.mark.parametrize(
    ("text", "want"),
    [("100ms", 10**8), ("1h15m30.918273645s", 4530918273645), ("-1.5h", -5400 * 10**9), ("0", 0),
     ("1µs", 1000), ("1μs", 1000), ("3ns", 3), (".5s", 5 * 10**8)],
)  # fmt: skip
def test_parse_duration(text: str, want: int) -> None:
    assert call("time.parse_duration_ns", text) == want


@pytest.mark.parametrize(
    ("text", "msg"),
    [("", 'invalid duration ""'), ("1", 'missing unit in duration "1"'), ("1x", 'unknown unit "x" in duration "1x"'),
     ("9999999999h", "invalid duration"), (".s", "invalid duration")],
)  # fmt: skip
def test_parse_duration_errors(text: str, msg: str) -> None:
    fails("time.parse_duration_ns", text, match=msg)


def test_calendar_builtins() -> None:
    ns = 1517814000 * 10**9  # 2018-02-05T07:00:00Z
    assert call("time.date", ns) == [2018, 2, 5]
    assert call("time.date", [ns, "America/Los_Angeles"]) == [2018, 2, 4]
    assert call("time.clock", [ns, ""]) == [7, 0, 0]
    assert call("time.weekday", ns) == "Monday"
    assert call("time.date", -1) == [1969, 12, 31]
    assert call("time.add_date", 1585852421593912000, 3, 9, 12) == 1705257221593912000
    assert call("time.add_date", 1585852421593912000, -1, -1, -1) == 1551465221593912000
    fails("time.add_date", 0, 2262, 1, 1, match="time outside of valid range")


def test_diff() -> None:
    p = lambda s: call("time.parse_ns", "2006-01-02", s)  # noqa: E731
    assert call("time.diff", p("2020-02-02"), p("2020-03-01")) == [0, 0, 28, 0, 0, 0]
    assert call("time.diff", p("2021-03-01"), p("2021-02-02")) == [0, 0, 27, 0, 0, 0]
    assert call("time.diff", p("2004-02-29"), p("2005-03-01")) == [1, 0, 1, 0, 0, 0]
    assert call("time.diff", [61 * 10**9, "UTC"], [0, "Asia/Shanghai"]) == [0, 0, 0, 0, 1, 1]
