"""String builtins: OPA documentation examples, Go strings semantics, error -> undefined."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from .harness import Runtime
from .tables import UNDEFINED, Row, check, row_id

ROWS: list[Row] = [
    ("concat", ('", "', '["a", "b"]'), "a, b"),
    ("concat", ('"-"', '{"b", "a", "c"}'), "a-b-c"),
    ("concat", ('"-"', "[]"), ""),
    ("concat", ('"-"', '["a", 1]'), UNDEFINED),
    ("concat", ("1", '["a"]'), UNDEFINED),
    ("contains", ('"abc"', '"bc"'), True),
    ("contains", ('"abc"', '""'), True),
    ("contains", ('"abc"', '"x"'), False),
    ("contains", ('"abc"', "1"), UNDEFINED),
    ("startswith", ('"abc"', '"ab"'), True),
    ("startswith", ('"abc"', '"abcd"'), False),
    ("endswith", ('"abc"', '"bc"'), True),
    ("endswith", ("[]", '"c"'), UNDEFINED),
    ("indexof", ('"abcb"', '"b"'), 1),
    ("indexof", ('"åäö"', '"ö"'), 2),
    ("indexof", ('"abc"', '""'), UNDEFINED),
    ("indexof", ('"abc"', '"z"'), -1),
    ("substring", ('"abcdef"', "1", "2"), "bc"),
    ("substring", ('"abcdef"', "1", "-5"), "bcdef"),
    ("substring", ('"åäöü"', "1", "2"), "äö"),
    ("substring", ('"abc"', "-1", "1"), UNDEFINED),
    ("substring", ('"abc"', "1.5", "1"), UNDEFINED),
    ("substring", ('"abc"', "9", "1"), ""),
    ("lower", ('"ÀÉÎ ΣΑΣ ПРИВЕТ ǄX"',), "àéî σασ привет ǆx"),
    ("upper", ('"straße àéî σας привет ǆ ᾀ"',), "STRAßE ÀÉÎ ΣΑΣ ПРИВЕТ Ǆ ᾈ"),
    ("upper", ('"ﬀ ǰ"',), "ﬀ ǰ"),  # no multi-rune special casing (Go's unicode.ToUpper)
    ("lower", ("1",), UNDEFINED),
    ("split", ('"a,b,,c"', '","'), ["a", "b", "", "c"]),
    ("split", ('"abc"', '"x"'), ["abc"]),
    ("split", ('"åb"', '""'), ["å", "b"]),
    ("split", ('""', '""'), []),
    ("split", ('""', '","'), [""]),
    ("replace", ('"aaa"', '"a"', '"bb"'), "bbbbbb"),
    ("replace", ('"abc"', '""', '"-"'), "-a-b-c-"),
    ("replace", ('"abc"', '"b"', "1"), UNDEFINED),
    ("strings.replace_n", ('{"a": "1", "b": "2"}', '"abcab"'), "12c12"),
    ("strings.replace_n", ('{"": "-", "b": "B"}', '"ab"'), "-a-B-"),
    ("strings.replace_n", ('{"a": 1}', '"abc"'), UNDEFINED),
    ("strings.replace_n", ('{1: "a"}', '"abc"'), UNDEFINED),
    ("strings.reverse", ('"abcå"',), "åcba"),
    ("strings.reverse", ('""',), ""),
    ("format_int", ("255", "2"), "11111111"),
    ("format_int", ("255", "8"), "377"),
    ("format_int", ("255.9", "10"), "255"),
    ("format_int", ("-255.9", "16"), "-ff"),
    ("format_int", ("0", "16"), "0"),
    ("format_int", ("340282366920938463463374607431768211456", "16"), "1" + "0" * 32),
    ("format_int", ("1", "3"), UNDEFINED),
    ("format_int", ('"1"', "10"), UNDEFINED),
    ("trim", ('"  xx  "', '" "'), "xx"),
    ("trim", ('"åxå"', '"å"'), "x"),
    ("trim", ('"abc"', '""'), "abc"),
    ("trim_left", ('"aabca"', '"a"'), "bca"),
    ("trim_right", ('"aabca"', '"a"'), "aabc"),
    ("trim_prefix", ('"foobar"', '"foo"'), "bar"),
    ("trim_prefix", ('"foobar"', '"bar"'), "foobar"),
    ("trim_suffix", ('"foobar"', '"bar"'), "foo"),
    ("trim_space", ('"\\t\\n x y \\u00a0\\u3000"',), "x y"),
    ("trim_space", ("1",), UNDEFINED),
    ("trim", ("1", '"a"'), UNDEFINED),
]


@pytest.mark.parametrize("row", ROWS, ids=row_id)
def test_string_builtin(rt: Runtime, row: Row) -> None:
    check(rt, row)


def test_invalid_utf8_reads_as_replacement_runes(rt: Runtime) -> None:
    bad = rt.string(b"a\xffb\xc3")
    rt_count = rt.dump(rt.call_addr("count", bad))
    assert rt_count == 4
    assert rt.raw_string(rt.call_addr("upper", bad)) == "A\ufffdB\ufffd".encode()
    assert [rt.raw_string(a) for a in rt.array_items(rt.call_addr("split", bad, rt.parse('""')))] == [
        b"a", b"\xff", b"b", b"\xc3"]



TEXT = st.text("abå", max_size=12)


@settings(max_examples=300, deadline=None)
@given(hay=TEXT, needle=TEXT)
def test_substring_search_answers_like_python(rt: Runtime, hay: str, needle: str) -> None:
    """contains, indexof and split share one search (bi_util.h bi_find): partial matches,
    repeats, a needle at the very end, longer than the text, empty, and multi-byte runes."""
    h, n = rt.string(hay.encode()), rt.string(needle.encode())
    assert rt.dump(rt.call_addr("contains", h, n)) == (needle in hay)
    if needle:
        assert rt.dump(rt.call_addr("indexof", h, n)) == hay.find(needle)
        assert [rt.raw_string(a) for a in rt.array_items(rt.call_addr("split", h, n))] == [
            p.encode() for p in hay.split(needle)]
