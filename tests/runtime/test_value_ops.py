"""Values: total order, hashing, containers, iteration order, copies, merge."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.runtime.model import Num, Obj, RSet, dump_rego, literal, rcmp, rego_values
from tests.runtime.runtime_host import Runtime

RT = Runtime(max_pages=16384)
BASE = RT("opa_heap_ptr_get")


def _sign(x: int) -> int:
    return (x > 0) - (x < 0)


def _cmp(a: int, b: int) -> int:
    c = RT("opa_value_compare", a, b)
    return _sign(c)


@settings(max_examples=150, deadline=None)
@given(rego_values, rego_values)
def test_compare_matches_reference(a: object, b: object) -> None:
    RT("opa_heap_ptr_set", BASE)
    va, vb = RT.val(literal(a)), RT.val(literal(b))
    expected = rcmp(a, b)
    assert _cmp(va, vb) == expected
    assert _cmp(vb, va) == -expected
    if expected == 0:
        assert RT("opa_value_hash", va) == RT("opa_value_hash", vb)


def _respell(v: object) -> object:
    """An equal value written differently (number spellings)."""
    if isinstance(v, Num):
        t = v.text
        return Num(t + "e0") if "e" not in t else Num(t.replace("e", "0e") if "." in t else t)
    if isinstance(v, list):
        return [_respell(x) for x in v]
    if isinstance(v, Obj):
        return Obj(tuple((k, _respell(x)) for k, x in v.pairs))
    if isinstance(v, RSet):
        return RSet(tuple(_respell(x) for x in v.elems))
    return v


@settings(max_examples=100, deadline=None)
@given(rego_values)
def test_equal_values_hash_equal(v: object) -> None:
    RT("opa_heap_ptr_set", BASE)
    a = RT.val(literal(v, 0))
    b = RT.val(literal(_respell(v), 1))  # reversed insertion order, respelled numbers
    assert _cmp(a, b) == 0
    assert RT("opa_value_hash", a) == RT("opa_value_hash", b)
    c = RT("opa_value_deep_copy", a)
    shared = v is None or isinstance(v, bool)  # null, true and false are shared static values
    assert (c == a) == shared and _cmp(a, c) == 0 and RT.dump(c, True) == dump_rego(v)


@pytest.mark.parametrize(
    "lo,hi",
    [
        ("null", "false"), ("false", "true"), ("true", "-100"), ("-1e400", "-5"), ("1", "1.000001"),
        ("99", '""'), ('"a"', '"b"'), ('"ab"', '"b"'), ('"Z"', '"a"'), ('"é"', '"😀"'), ('"z"', "[]"),
        ("[1]", "[1, 0]"), ("[1, 2]", "[2]"), ("[9]", "{}"), ('{"a": 2}', '{"b": 1}'),
        ('{"a": 1}', '{"a": 2}'), ('{"a": 1}', '{"a": 1, "b": 0}'), ('{"z": 0}', "set()"),
        ("{1, 3}", "{2}"), ("{1}", "{1, 2}"), ("28857836529306024611912", "28857836529306024611913"),
        ("0.1", "0.10000000000000000000000000001"),
    ],
)
def test_order_cases(lo: str, hi: str) -> None:
    a, b = RT.val(lo), RT.val(hi)
    assert _cmp(a, b) == -1 and _cmp(b, a) == 1


def test_set_and_object_semantics() -> None:
    s = RT("opa_set")
    for t in ["3", "1", "2", "1.0", "3e0", '"x"', "[1]", "[1.0]"]:
        RT("opa_set_add", s, RT.val(t))
    assert RT("opa_value_length", s) == 5
    assert RT.dump(s, True) == '{1, 2, 3, "x", [1]}'
    assert RT("opa_set_contains", s, RT.val("2.00"))
    assert not RT("opa_set_contains", s, RT.val("4"))
    assert RT("opa_set_remove", s, RT.val("2")) == 1
    assert RT.dump(s, True) == '{1, 3, "x", [1]}'

    o = RT("opa_object")
    RT("opa_object_insert", o, RT.val('"b"'), RT.val("1"))
    RT("opa_object_insert", o, RT.val("1"), RT.val("2"))
    RT("opa_object_insert", o, RT.val('"a"'), RT.val("3"))
    RT("opa_object_insert", o, RT.val("1.0"), RT.val("4"))  # overwrites key 1
    assert RT.dump(o, True) == '{1: 4, "a": 3, "b": 1}'
    assert RT.dump(RT("opa_value_get", o, RT.val("1e0"))) == "4"
    assert RT("opa_value_get", o, RT.val('"c"')) == 0
    assert RT("opa_object_remove", o, RT.val('"a"')) == 1
    assert RT("opa_object_remove", o, RT.val('"a"')) == 0
    assert RT.dump(o, True) == '{1: 4, "b": 1}'


def _iterate(v: int) -> list[tuple[str, str]]:
    out, k = [], 0
    while True:
        k = RT("opa_value_iter", v, k)
        if not k:
            return out
        out.append((RT.dump(k, True), RT.dump(RT("opa_value_get", v, k), True)))


def test_iteration_orders() -> None:
    assert _iterate(RT.val('["a", "b", "c"]')) == [("0", '"a"'), ("1", '"b"'), ("2", '"c"')]
    assert _iterate(RT.val('{"b": 1, "a": 2, 3: 0}')) == [("3", "0"), ('"a"', "2"), ('"b"', "1")]
    assert _iterate(RT.val('{"b", "a", null}')) == [("null", "null"), ('"a"', '"a"'), ('"b"', '"b"')]
    assert _iterate(RT.val("[]")) == [] and _iterate(RT.val("{}")) == [] and _iterate(RT.val('"s"')) == []


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(-50, 50), max_size=60))
def test_large_set_iteration_sorted(xs: list[int]) -> None:
    RT("opa_heap_ptr_set", BASE)
    s = RT("opa_set")
    o = RT("opa_object")
    for x in xs:
        RT("opa_set_add", s, RT("opa_number_int", x))
        RT("opa_object_insert", o, RT.string(f"k{x + 100:03d}"), RT("opa_number_int", x))
    assert [int(k) for k, _ in _iterate(s)] == sorted(set(xs))
    assert [int(v) for _, v in _iterate(o)] == sorted(set(xs))
    # interleaved lookups keep working after the lazy sort
    for x in xs:
        assert RT("opa_set_contains", s, RT("opa_number_int", x))


def test_get_on_arrays_and_scalars() -> None:
    arr = RT.val('[10, 20, 30]')
    assert RT.dump(RT("opa_value_get", arr, RT.val("1"))) == "20"
    assert RT.dump(RT("opa_value_get", arr, RT.val("2.0"))) == "30"
    for bad in ["3", "-1", "1.5", '"1"']:
        assert RT("opa_value_get", arr, RT.val(bad)) == 0
    assert RT("opa_value_get", RT.val('"abc"'), RT.val("0")) == 0
    assert RT("opa_value_length", RT.val('"åäö"')) == 3
    assert [RT("opa_value_type", RT.val(t)) for t in ["null", "true", "1", '""', "[]", "{}", "set()"]] == [
        1, 2, 3, 4, 5, 6, 7]


def test_shallow_copy_is_independent_at_top_level() -> None:
    o = RT.val('{"a": {"x": 1}}')
    c = RT("opa_value_shallow_copy", o)
    RT("opa_object_insert", c, RT.val('"b"'), RT.val("2"))
    assert RT.dump(o) == '{"a":{"x":1}}' and RT.dump(c) == '{"a":{"x":1},"b":2}'
    s = RT.val("{1}")
    sc = RT("opa_value_shallow_copy", s)
    RT("opa_set_add", sc, RT.val("0"))
    assert RT.dump(s) == "[1]" and RT.dump(sc) == "[0,1]"
    num = RT.val("5")
    assert RT("opa_value_shallow_copy", num) == num


@pytest.mark.parametrize(
    "a,b,expected",
    [
        ('{"a": 1}', '{"b": 2}', '{"a": 1, "b": 2}'),
        ('{"a": {"x": 1}}', '{"a": {"y": 2}, "c": 3}', '{"a": {"x": 1, "y": 2}, "c": 3}'),
        ('{"a": 1}', '{"a": 2}', '{"a": 1}'),
        ('{"a": {"x": 1}}', '{"a": 5}', '{"a": {"x": 1}}'),
        ("[1]", '{"a": 1}', "[1]"),
        ('{"a": 1}', "[1]", '{"a": 1}'),
    ],
)
def test_merge(a: str, b: str, expected: str) -> None:
    va, vb = RT.val(a), RT.val(b)
    before = RT.dump(va, True)
    assert RT.dump(RT("opa_value_merge", va, vb), True) == expected
    assert RT.dump(va, True) == before
    assert RT("opa_value_merge", 0, vb) == vb


def test_value_free_releases_blocks() -> None:
    rt = Runtime()
    text = b'{"a": [1, "two", 3.5, {"b": {4}}, 12345678901234567890123]}'
    buf = rt.bytes_in(text)
    before = rt("opa_heap_ptr_get")
    v = rt("opa_value_parse", buf, len(text))
    top = rt("opa_heap_ptr_get")
    assert top > before
    rt("opa_value_free", v)
    again = rt("opa_value_parse", buf, len(text))  # fits in the freed blocks
    assert rt("opa_heap_ptr_get") <= top
    assert rt.dump(again) == '{"a":[1,"two",3.5,{"b":[4]},12345678901234567890123]}'
