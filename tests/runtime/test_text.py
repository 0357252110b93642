"""JSON and Rego-literal parsing and dumping (opa_json_parse, opa_value_parse,
opa_json_dump, opa_value_dump)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings

from tests.runtime.model import dump_json, dump_rego, json_values, literal, rego_values
from tests.runtime.runtime_host import Runtime

RT = Runtime(max_pages=16384)


def _reset() -> None:
    RT("opa_heap_ptr_set", RT.base)


RT.base = RT("opa_heap_ptr_get")  # type: ignore[attr-defined]


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_json_round_trip(v: object) -> None:
    _reset()
    text = dump_json(v)
    addr = RT.parse(text)
    assert addr, text
    assert RT.dump(addr) == text
    # Python's json agrees it is JSON with the same structure (numbers kept as text).
    assert json.loads(RT.dump(addr), parse_float=str, parse_int=str) == json.loads(
        text, parse_float=str, parse_int=str
    )


@settings(max_examples=150, deadline=None)
@given(rego_values)
def test_rego_round_trip(v: object) -> None:
    _reset()
    for order in (0, 1):
        addr = RT.parse(literal(v, order), rego=True)
        assert addr, literal(v, order)
        assert RT.dump(addr, rego=True) == dump_rego(v)
        assert RT.dump(addr) == dump_json(v)
    again = RT.parse(dump_rego(v), rego=True)
    assert again and RT.dump(again, rego=True) == dump_rego(v)


@pytest.mark.parametrize(
    "text,expected",
    [
        ('{"b":1,"a":2}', '{"a":2,"b":1}'),
        ("  [ 1 , 2 ]\n", "[1,2]"),
        ('"\\u00e9\\ud83d\\ude00\\/\\b\\f\\n\\r\\t"', '"é😀/\\b\\f\\n\\r\\t"'),
        ('"<a & b>"', '"\\u003ca \\u0026 b\\u003e"'),
        ('"\\u2028\\u0001\\u007f"', '"\\u2028\\u0001\x7f"'),
        ('"\\ud800x"', '"\ufffdx"'),
        ('{"a":1,"a":2}', '{"a":2}'),
        ("1E5", "1E5"),
        ("-0", "-0"),
        ("-0.0e-0", "-0.0e-0"),
        ("12345678901234567890123456789", "12345678901234567890123456789"),
        ("1.50", "1.50"),
        ("9223372036854775807", "9223372036854775807"),
        ("-9223372036854775809", "-9223372036854775809"),
    ],
)
def test_json_cases(text: str, expected: str) -> None:
    _reset()
    addr = RT.parse(text)
    assert addr
    assert RT.dump(addr) == expected


def test_invalid_utf8_is_dumped_as_replacement() -> None:
    _reset()
    data = b'"a\xffb"'
    addr = RT("opa_json_parse", RT.bytes_in(data), len(data))
    assert RT.dump(addr) == '"a\\ufffdb"'


@pytest.mark.parametrize(
    "text",
    ["", " ", "{", "[1,]", '{"a":1,}', "{1,2}", "set()", '{1:"a"}', "01", "-", "1.", ".5", "1e", "+1",
     "tru", "nul", '"abc', '"\\x"', '"\\u12"', '"a\nb"', "[1 2]", '{"a" 1}', "1 2", "`raw`", "NaN"],
)
def test_json_rejects(text: str) -> None:
    _reset()
    assert RT.parse(text) == 0


@pytest.mark.parametrize(
    "text,rego,js",
    [
        ("{1, 2, 3}", "{1, 2, 3}", "[1,2,3]"),
        ("set( )", "set()", "[]"),
        ('{[1]: "a", 2: {3}}', '{2: {3}, [1]: "a"}', '{"2":[3],"[1]":"a"}'),
        ('{"x": {"a", {"x": 1}, {"y": 2}},}', '{"x": {"a", {"x": 1}, {"y": 2}}}', '{"x":["a",{"x":1},{"y":2}]}'),
        ("[1, 2, ]", "[1, 2]", "[1,2]"),
        ("`a\\b`", '"a\\\\b"', '"a\\\\b"'),
        ('{"<": "&"}', '{"<": "&"}', '{"\\u003c":"\\u0026"}'),
        ('{{1}: 2}', "{{1}: 2}", '{"[1]":2}'),
        ("{1, 1.0, 1e0}", "{1}", "[1]"),
    ],
)
def test_rego_cases(text: str, rego: str, js: str) -> None:
    _reset()
    addr = RT.parse(text, rego=True)
    assert addr
    assert RT.dump(addr, rego=True) == rego
    assert RT.dump(addr) == js


@pytest.mark.parametrize("text", ["{1, }x", "{1: }", "set(1)", "{,}", "[,]", "`abc"])
def test_rego_rejects(text: str) -> None:
    _reset()
    assert RT.parse(text, rego=True) == 0


def test_deep_nesting_is_rejected_not_crashing() -> None:
    _reset()
    assert RT.parse("[" * 2000 + "]" * 2000) == 0
    assert RT.parse("[" * 500 + "]" * 500) != 0
