"""cupcake_py.core.jsonio: strict JSON on CPython's _json (the eval path's only JSON)."""

from __future__ import annotations

import decimal
import json
import math
import subprocess
import sys
from decimal import Decimal as D

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cupcake_py.core import jsonio

# (input, needle of the JSONError message)
REJECTED: list[tuple[bytes | str, str]] = [
    (b"", "empty input"),
    (b" \n\t", "empty input"),
    (b"NaN", "NaN is not valid JSON"),
    (b"[Infinity]", "Infinity is not valid JSON"),
    (b'{"a": -Infinity}', "-Infinity is not valid JSON"),
    (b'"\xff"', "invalid UTF-8 at byte 1"),
    (b'"\xed\xa0\x80"', "invalid UTF-8"),  # an encoded surrogate
    (b'\xef\xbb\xbf{"a": 1}', "byte order mark"),
    (b'{"a":\x00}', "expecting a JSON value: line 1 column 6 (char 5)"),
    (b'"\\ud800"', "lone UTF-16 surrogate \\ud800"),
    (b'["ok", {"k\\uDC00": 1}]', "lone UTF-16 surrogate \\udc00"),
    (b'"\\udc00\\ud800"', "lone UTF-16 surrogate"),  # low before high is no pair
    (b'"\\ud83dx"', "lone UTF-16 surrogate \\ud83d"),
    (b'"a\tb"', "Invalid control character at: line 1 column 3 (char 2)"),
    (b"[1,]", "line 1 column 4 (char 3)"),
    (b'{"a" 1}', "Expecting ':' delimiter: line 1 column 6 (char 5)"),
    (b"{}\n x", "extra data after the JSON value: line 2 column 2 (char 4)"),
    (b"[" * 5000 + b"]" * 5000, "nested too deeply"),
    (b"1" * 5000, "digits"),
    (b"hello", "expecting a JSON value: line 1 column 1 (char 0)"),
    ("\ufeff{}", "byte order mark"),
]


@pytest.mark.parametrize(("data", "needle"), REJECTED, ids=[repr(d)[:40] for d, _ in REJECTED])
def test_rejects_what_is_not_strict_json(data: bytes | str, needle: str) -> None:
    with pytest.raises(jsonio.JSONError) as info:
        jsonio.loads(data)
    assert needle in str(info.value)
    assert isinstance(info.value, ValueError)


ACCEPTED: list[tuple[bytes | str, object]] = [
    (b' {"a": [1, 2.5, true, false, null, "x"]} \n', {"a": [1, D("2.5"), True, False, None, "x"]}),
    (b"18446744073709551616", 18446744073709551616),  # beyond 64 bits: every digit kept
    (b"-123456789012345678901234567890", -123456789012345678901234567890),
    (b"-0", 0),
    (b"1E5", D("1E5")),
    (b"1e-400", D("1e-400")),  # exact: no underflow to 0.0
    (b"1e400", D("1e400")),  # exact: no overflow
    (b"[-1e999]", [D("-1e999")]),
    (b"0.1", D("0.1")),  # not the double nearest to 0.1
    (b"-0.0", D("-0.0")),
    (b"123456789012345678901234567890.5", D("123456789012345678901234567890.5")),
    (b'{"a": 1, "a": 2}', {"a": 2}),  # the last duplicate wins (as orjson)
    (b'"\\ud83d\\ude00"', "\U0001f600"),  # a surrogate pair is one character
    (b'"\\\\ud800"', "\\ud800"),  # an escaped backslash, no surrogate escape
    ('"é\\u00e9"', "éé"),
    (bytearray(b"[1]"), [1]),
    (memoryview(b"[2]"), [2]),
]


@pytest.mark.parametrize(("data", "want"), ACCEPTED, ids=[repr(d)[:40] for d, _ in ACCEPTED])
def test_accepts_strict_json(data: bytes | str, want: object) -> None:
    got = jsonio.loads(data)
    assert got == want and type(got) is type(want)
    assert repr(got) == repr(want)  # Decimals: the same digits and exponent, -0.0 keeps its sign


def test_key_order_is_kept() -> None:
    assert list(jsonio.loads(b'{"b": 1, "a": 2, "c": 3}')) == ["b", "a", "c"]
    assert jsonio.dumps({"b": 1, "a": 2}) == b'{"b":1,"a":2}'


NOT_JSON: list[object] = [
    {1: "int key"}, {"a": {None: 1}}, [{True: 1}], {(1, 2): 3}, {1, 2}, b"bytes",
    float("nan"), [float("inf")], "\ud800", {"\udc00": 1}, object(),
    D("NaN"), [D("Infinity")], {"a": [D("-Infinity")]}, [D("1.5"), {1}], [D("1.5"), "\ud800"],
    {"a": [1, "x", {"b": ({2.5: 1},)}]}, ({"ok": 1, 7: 2},), {"a": {"b": {"c": {"d": [[{False: 0}]]}}}},
]


@pytest.mark.parametrize("value", NOT_JSON, ids=[repr(v)[:30] for v in NOT_JSON])
def test_dumps_rejects_what_json_cannot_hold(value: object) -> None:
    with pytest.raises(TypeError):
        jsonio.dumps(value)


def test_dumps_rejects_circular_containers_but_not_shared_ones() -> None:
    loop: list[object] = []
    loop.append(loop)
    with pytest.raises(TypeError, match="Circular"):
        jsonio.dumps(loop)
    shared = {"x": 1}
    assert jsonio.dumps([shared, shared]) == b'[{"x":1},{"x":1}]'


def test_dumps_compact_utf8_and_default() -> None:
    assert jsonio.dumps({"a": ["é", None, True, 1.5, 2 ** 70], "b": (1, 2)}) == \
        '{"a":["é",null,true,1.5,1180591620717411303424],"b":[1,2]}'.encode()
    assert jsonio.dumps("x") == b'"x"'
    assert jsonio.dumps({"s": {1, 2}}, default=sorted) == b'{"s":[1,2]}'


def test_dumps_writes_decimals_exactly_beside_everything_else() -> None:
    value = {"a": ["é", None, True, 1.5, 2 ** 70, D("0.10"), D("-0.0")], "b": (D("1E+400"),), "c": {"d": D("7")}}
    assert jsonio.dumps(value) == '{"a":["é",null,true,1.5,1180591620717411303424,0.10,-0.0],"b":[1E+400],' \
        '"c":{"d":7}}'.encode()
    assert jsonio.dumps({"s": {D("0.5")}}, default=sorted) == b'{"s":[0.5]}'
    assert jsonio.dumps(D("2.5"), default=str) == b"2.5"  # a number, not the default's string
    assert jsonio.dumps({"s": {1}, "x": D("0.5")}, default=sorted) == b'{"s":[1],"x":0.5}'


def test_decimal_is_imported_only_for_a_fraction() -> None:
    code = ("import sys; from cupcake_py.core import jsonio\n"
            "jsonio.dumps(jsonio.loads(b'{\"a\": [1, -20, true, \"0.5\"]}'))\n"
            "print('decimal' in sys.modules)\n"
            "jsonio.loads(b'[0.5]')\n"
            "print('decimal' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True"]


def test_dumps_pretty_is_indented_sorted_and_total() -> None:
    text = jsonio.dumps_pretty({"b": 1, "a": {"d": [], "c": decimal.Decimal("2")}})
    assert text == '{\n  "a": {\n    "c": "2",\n    "d": []\n  },\n  "b": 1\n}'


def test_json_errors_without_the_json_package_loaded() -> None:
    """On Python 3.11 the C scanner raises its error only when json.decoder is imported;
    jsonio must still report the real error (and not import json for valid input)."""
    code = ("import sys; from cupcake_py.core import jsonio\n"
            "assert jsonio.loads(b'[1]') == [1] and 'json' not in sys.modules and 're' not in sys.modules\n"
            "try:\n    jsonio.loads(b'[1 2]')\nexcept jsonio.JSONError as e:\n    print(e)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "Expecting ',' delimiter: line 1 column 4 (char 3)"


# --------------------------------------------------------------------------- properties

_text = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)  # no lone surrogates
_json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.integers(min_value=2 ** 64, max_value=2 ** 200) | _text
    # written with a fraction or exponent (Decimal("7") is written 7, which reads back as an int)
    | st.decimals(allow_nan=False, allow_infinity=False).filter(lambda d: "." in str(d) or "E" in str(d)),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(_text, inner, max_size=5),
    max_leaves=25,
)


def _same(a: object, b: object) -> bool:
    """Equal, and every number of the same type with the same text (Decimal('1.0') != '1')."""
    return a == b and repr(a) == repr(b)


@given(_json_values)
def test_round_trip(value: object) -> None:
    raw = jsonio.dumps(value)
    assert _same(jsonio.loads(raw), value)
    assert _same(jsonio.loads(raw.decode()), value)
    # the same bytes as the stdlib's compact UTF-8 encoding (Decimals as json.dumps writes floats)
    if "Decimal" not in repr(value):
        assert raw == json.dumps(value, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


@given(_json_values)
def test_loads_agrees_with_the_stdlib_on_valid_json(value: object) -> None:
    for text in (json.dumps(value, default=str), json.dumps(value, ensure_ascii=False, indent=1, default=str)):
        assert _same(jsonio.loads(text.encode()), json.loads(text, parse_float=D))


@given(st.floats(allow_nan=False))
def test_floats_are_written_as_repr_and_read_back_exactly(f: float) -> None:
    if math.isinf(f):
        with pytest.raises(TypeError):
            jsonio.dumps(f)
    else:
        got = jsonio.loads(jsonio.dumps(f))
        assert got == (D(repr(f)) if "." in repr(f) or "e" in repr(f) else int(repr(f)))
        assert float(got) == f


@given(st.integers(min_value=0xD800, max_value=0xDFFF), st.booleans())
def test_every_lone_surrogate_escape_is_rejected(cp: int, upper: bool) -> None:
    esc = f"\\u{cp:04X}" if upper else f"\\u{cp:04x}"
    with pytest.raises(jsonio.JSONError, match="lone UTF-16 surrogate"):
        jsonio.loads(f'{{"k": ["a{esc}b"]}}'.encode())


# --------------------------------------------------------------------------- no state between calls


def test_a_failed_or_decimal_encoding_leaves_nothing_behind() -> None:
    """Issue 29: one shared C encoder kept the `markers` entries of every encoding a Decimal (or
    NaN, or a bad key) interrupted; a later value whose id was reused was then reported as a
    "Circular reference". Many fresh values in a row, each interrupted, then plain ones."""
    import gc

    event = {"args": {"command": "ls", "timeout": D("1.5")}}
    for _ in range(3):  # the same object again (the eval path encodes an event more than once)
        assert jsonio.dumps(event) == b'{"args":{"command":"ls","timeout":1.5}}'
    for i in range(2000):
        assert jsonio.dumps({"args": {"command": "ls", "timeout": D("1.5")}, "n": [i]}) == \
            b'{"args":{"command":"ls","timeout":1.5},"n":[%d]}' % i
        with pytest.raises(TypeError):
            jsonio.dumps({"x": [float("nan")], "i": i})
        gc.collect() if i % 500 == 0 else None
        assert jsonio.dumps({"plain": [i, {"k": "v"}]}) == b'{"plain":[%d,{"k":"v"}]}' % i


def test_decimal_values_of_any_depth_are_written() -> None:
    value: object = D("0.7")
    for _ in range(5000):
        value = [value]
    text = jsonio.dumps(value)
    assert text == b"[" * 5000 + b"0.7" + b"]" * 5000
    loop: list[object] = [D("0.5")]
    loop.append(loop)
    with pytest.raises(TypeError, match="Circular"):
        jsonio.dumps(loop)


def test_default_must_return_json() -> None:
    with pytest.raises(TypeError, match="not JSON either"):
        jsonio.dumps([D("0.5"), object()], default=lambda v: v)


def _containers(value: object) -> list[int]:
    out, stack = [], [value]
    while stack:
        v = stack.pop()
        if isinstance(v, dict | list):
            out.append(id(v))
            stack.extend(v.values() if isinstance(v, dict) else v)
    return out


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(_json_values)
def test_copy_is_a_deep_copy_and_size_floor_a_lower_bound(value: object) -> None:
    """`copy` (the harnesses' private copy of an event's arguments) equals the value, shares none of
    its containers and makes no text; `size_floor` never exceeds the encoded size (issue 29)."""
    dup = jsonio.copy(value)
    assert _same(dup, value)
    assert not set(_containers(dup)) & set(_containers(value))
    assert jsonio.size_floor(value) <= len(jsonio.dumps(value))


def test_copy_keeps_large_strings_and_handles_depth_and_circles() -> None:
    big = "x" * (1 << 20)
    value = {"a": [big, {"b": big}], "t": (1, 2)}
    dup = jsonio.copy(value)
    assert dup == {"a": [big, {"b": big}], "t": [1, 2]} and dup["a"][0] is big  # a tuple becomes a list
    deep: list[object] = []
    cur = deep
    for _ in range(100_000):
        nxt: list[object] = []
        cur.append(nxt)
        cur = nxt
    assert jsonio.size_floor(jsonio.copy(deep)) == 200_002
    circle: list[object] = []
    circle.append(circle)
    with pytest.raises(TypeError, match="Circular"):
        jsonio.copy(circle)
