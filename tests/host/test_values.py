"""cupcake_py.core.values: parsing, dumping, ordering and freezing of Rego values."""

from __future__ import annotations

import json
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.core import values as V

pytestmark = pytest.mark.filterwarnings("ignore:Generating overly large repr")

# --- strategies -----------------------------------------------------------

_decimal_texts = st.builds(
    lambda m, f, e: f"{m}.{f}" + (f"e{e}" if e is not None else ""),
    st.integers(-10**20, 10**20), st.text("0123456789", min_size=1, max_size=8),
    st.none() | st.integers(-30, 30),
)
# Decimals that print with a fraction or exponent (Decimal("0.0e1") prints "0" and reads back as int).
numbers = st.integers(-(2**80), 2**80) | _decimal_texts.map(Decimal).filter(lambda d: not str(d).lstrip("-").isdigit())
# No bools next to numbers in one container: Python's True == 1 is a documented limit.
scalars = st.none() | st.text(max_size=12) | numbers
json_scalars = st.none() | st.booleans() | st.text(max_size=12) | numbers


def _json_values() -> st.SearchStrategy:
    return st.recursive(
        json_scalars,
        lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
        max_leaves=20,
    )


def _rego_values() -> st.SearchStrategy:
    def extend(inner: st.SearchStrategy) -> st.SearchStrategy:
        frozen = inner.map(V.freeze)
        return (
            st.lists(inner, max_size=4)
            | st.dictionaries(frozen, inner, max_size=4)
            | st.frozensets(frozen, max_size=4)
        )
    return st.recursive(scalars, extend, max_leaves=20)


def same(a: object, b: object) -> bool:
    """Structural equality that also checks types (int vs Decimal, list vs tuple...)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))  # type: ignore[arg-type]
    if isinstance(a, dict | V.FrozenObject):
        return len(a) == len(b) and all(k in b and same(a[k], b[k]) for k in a)  # type: ignore[index,operator]
    if isinstance(a, Decimal):
        return str(a) == str(b)
    return a == b


# --- round trips ----------------------------------------------------------

@given(_json_values())
def test_json_round_trip(v: object) -> None:
    assert same(V.parse_json(V.dump_json(v)), v)
    assert same(V.parse_json(V.dump_json(v).encode()), v)


@given(_rego_values())
def test_rego_round_trip(v: object) -> None:
    text = V.dump_rego(v)
    assert same(V.parse_rego(text), v) or V.compare(V.parse_rego(text), v) == 0
    assert V.compare(V.parse_rego(text), v) == 0


@given(_rego_values())
def test_freeze_thaw(v: object) -> None:
    frozen = V.freeze(v)
    hash(frozen)
    assert V.compare(frozen, v) == 0
    assert same(V.thaw(frozen), V.thaw(v))


@given(_json_values())
def test_parse_json_matches_stdlib_exact(v: object) -> None:
    text = V.dump_json(v)
    assert same(V.parse_json(text), json.loads(text, parse_float=Decimal))


# --- ordering -------------------------------------------------------------

@settings(max_examples=200)
@given(_rego_values(), _rego_values(), _rego_values())
def test_compare_is_a_total_order(a: object, b: object, c: object) -> None:
    assert V.compare(a, a) == 0
    assert V.compare(a, b) == -V.compare(b, a)
    if V.compare(a, b) <= 0 and V.compare(b, c) <= 0:
        assert V.compare(a, c) <= 0


def test_type_order() -> None:
    ordered = [None, False, True, -1, Decimal("0.5"), 1, "", "a", [], [1], {}, {"a": 1}, frozenset(), frozenset({1})]
    for i, a in enumerate(ordered):
        for j, b in enumerate(ordered):
            assert V.compare(a, b) == (i > j) - (i < j), (a, b)


@pytest.mark.parametrize(("a", "b", "want"), [
    (1, Decimal("1.0"), 0),
    (Decimal("1e3"), 1000, 0),
    ([1, 2], [1, 2, 0], -1),
    ({"a": 1}, {"b": 0}, -1),
    ({"a": 2}, {"a": 1, "b": 0}, 1),
    (frozenset({3}), frozenset({1, 2}), 1),
    ("B", "a", -1),
    ("é", "z", 1),
])
def test_compare_cases(a: object, b: object, want: int) -> None:
    assert V.compare(a, b) == want


# --- exact numbers and syntax -----------------------------------------------

def test_numbers_stay_exact() -> None:
    got = V.parse_json(b'[1, 1.50, 1e3, 12345678901234567890123, -0.0, 9223372036854775808]')
    assert same(got, [1, Decimal("1.50"), Decimal("1e3"), 12345678901234567890123, Decimal("-0.0"),
                      9223372036854775808])
    assert V.dump_json(got) == '[1,1.50,1E+3,12345678901234567890123,-0.0,9223372036854775808]'


def test_no_float_ever() -> None:
    def walk(x: object) -> None:
        assert not isinstance(x, float)
        if isinstance(x, list):
            for y in x:
                walk(y)
        if isinstance(x, dict):
            for y in x.values():
                walk(y)
    walk(V.parse_json('{"a": [0.1, 2e-5, {"b": 3.0}], "s": "1.5"}'))
    walk(V.parse_rego('{"a": [0.1, 2e-5, {"b": 3.0}], "s": {1.5}}'))


def test_rego_literals() -> None:
    got = V.parse_rego('{"x": {1, 2}, [1]: "a", 2: set(), {"k": 1}: {{1}}, "r": `raw\\n`}')
    assert got == {
        "x": frozenset({1, 2}), (1,): "a", 2: frozenset(),
        V.FrozenObject({"k": 1}): frozenset({frozenset({1})}), "r": "raw\\n",
    }
    assert V.dump_rego(got) == '{"x":{1,2},[1]:"a",2:set(),{"k":1}:{{1}},"r":"raw\\\\n"}'
    assert V.dump_json(got) == '{"x":[1,2],"[1]":"a","2":[],"{\\"k\\":1}":[[1]],"r":"raw\\\\n"}'
    assert V.parse_rego(" { } ") == {}
    assert V.parse_rego("set( )") == frozenset()
    assert V.parse_rego('{ "g": {"a": {"b"}, "c": [1, 2,], }, }') == {"g": {"a": frozenset({"b"}), "c": [1, 2]}}


@pytest.mark.parametrize("bad", ["{", "[,]", "{,}", "[1,,]", "{1:}", "nul", "1 2", '"\\x"', "NaN", "01", "set(1)", ""])
def test_rego_syntax_errors(bad: str) -> None:
    with pytest.raises(V.ValueParseError):
        V.parse_rego(bad)


@pytest.mark.parametrize("bad", [b"\xff", b"[1,", b"NaN", b"Infinity", b"1 2", b"", b"{1:2}", b"{1}"])
def test_json_syntax_errors(bad: bytes) -> None:
    with pytest.raises(V.ValueParseError):
        V.parse_json(bad)


def test_frozen_object_is_a_hashable_mapping() -> None:
    a = V.FrozenObject({"b": [1], "a": {"c": 2}})
    b = V.FrozenObject({"a": {"c": 2}, "b": [1]})
    assert a == b and hash(a) == hash(b)
    assert list(a) == ["a", "b"] and a["b"] == (1,)
    assert V.thaw(a) == {"a": {"c": 2}, "b": [1]}
    assert {a: 1}[b] == 1


# --- sets read through the JSON reader (parse_rego's fast path for result sets) ---------------

def _term_parser(text: str) -> object:
    parser = V._TermParser(text)
    value = parser.term()
    parser.ws()
    assert parser.i == len(text)
    return value


@settings(max_examples=300)
@given(st.frozensets(_json_values().map(V.freeze), min_size=1, max_size=5), st.sampled_from(["", " ", "\n\t"]))
def test_a_set_of_json_values_reads_as_the_term_parser_reads_it(s: frozenset[object], ws: str) -> None:
    text = ws + V.dump_rego(s) + ws
    fast, slow = V.parse_rego(text), _term_parser(text)
    assert isinstance(fast, frozenset) and isinstance(slow, frozenset)
    ordered = [sorted(x, key=V.sort_key) for x in (fast, slow)]
    assert len(ordered[0]) == len(ordered[1]) and all(same(a, b) for a, b in zip(*ordered, strict=True))


@pytest.mark.parametrize("text,want", [
    ('{{"result": true}}', frozenset({V.FrozenObject({"result": True})})),
    ("{1, 2,}", frozenset({1, 2})),  # a trailing comma: not JSON, the term parser reads it
    ('{"a", "b"}', frozenset({"a", "b"})),
    ('{[1], {"x": 1.50}}', frozenset({(1,), V.FrozenObject({"x": Decimal("1.50")})})),
    ("{}", {}),
])
def test_result_sets_and_set_literals(text: str, want: object) -> None:
    assert V.parse_rego(text) == want


@pytest.mark.parametrize("bad", ["{1] , [2}", "{{", "{1}}", "{1} x", '{"\\ud800"'])
def test_malformed_sets_are_still_errors(bad: str) -> None:
    with pytest.raises(V.ValueParseError):
        V.parse_rego(bad)
