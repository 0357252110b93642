"""sprintf's native fast path (opa_bi_try_sprintf in runtime.wasm): every answer it gives is
exactly the host builtin's (cupcake_py/host/builtins/sprintf.py, OPA's semantics), and every
case it does not reproduce exactly returns 0 ("ask the host"), never a different string."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cupcake_py.core import values as V
from cupcake_py.host.builtins import BuiltinContext, BuiltinError, lookup
from cupcake_py.wasm import abi

from .harness import Runtime

NOT_HANDLED = object()


def try_sprintf(rt: Runtime, fmt_addr: int, values_addr: int) -> Any:
    """The native answer as a Python string, or NOT_HANDLED for 0."""
    res = rt._fn(abi.try_symbol("sprintf"))(fmt_addr, values_addr)
    return NOT_HANDLED if res == 0 else rt.raw_string(res).decode("utf-8")


def native(rt: Runtime, fmt: str, args: str) -> Any:
    rt.reset()
    return try_sprintf(rt, rt.parse(V.dump_rego(fmt)), rt.parse(args))


def host(fmt: Any, values: Any) -> Any:
    """The host builtin's answer; NOT_HANDLED stands for its errors (undefined in a policy)."""
    b = lookup("sprintf")
    assert b is not None
    try:
        return b.fn(BuiltinContext(seed=1), fmt, values)
    except BuiltinError:
        return NOT_HANDLED


HANDLED = [
    ("no %s", '["rm"]', "no rm"),
    ("%s=%v, %d%%", '["a", "b", 12]', "a=b, 12%"),
    ("%v|%s|%v", "[true, false, null]", "true|false|null"),
    ("%d %v", "[-9223372036854775808, 9223372036854775807]", "-9223372036854775808 9223372036854775807"),
    ("", "[]", ""),
    ("100%% åäö", "[]", "100% åäö"),
    ("%s", '["ü\\u0000\\n"]', "ü\x00\n"),
    ("%s%s", '["%d", "%"]', "%d%"),
]

FALLBACK = [
    ("%s", "[5]"),  # %!s(int=5)
    ("%d", '["x"]'),  # %!d(string=x)
    ("%d", "[true]"),
    ("%v", "[1.5]"),  # float64
    ("%d", "[1.0]"),
    ("%d", "[1e3]"),
    ("%d", "[9223372036854775808]"),  # *big.Int
    ("%v", "[[1]]"),  # composite: Rego text
    ("%v", '[{"a": 1}]'),
    ("%v", "[{1}]"),
    ("%s %s", '["a"]'),  # %!s(MISSING)
    ("%s", '["a", "b"]'),  # %!(EXTRA string=b)
    ("x", "[1]"),
    ("50%", "[]"),  # %!(NOVERB)
    ("%5s", '["a"]'),
    ("%-s", '["a"]'),
    ("%.2f", "[1]"),
    ("%q", '["a"]'),
    ("%x", "[255]"),
    ("%[1]s", '["a"]'),
    ("%*d", "[3, 4]"),
    ("%é", '["a"]'),
    ("%s", '{"a"}'),  # a set of values: the host decides (type error)
    ("%s", '"a"'),
]


@pytest.mark.parametrize(("fmt", "args", "want"), HANDLED, ids=[h[0] for h in HANDLED])
def test_common_cases_are_answered_natively(rt: Runtime, fmt: str, args: str, want: str) -> None:
    got = native(rt, fmt, args)
    assert got == want
    assert host(fmt, V.parse_rego(args)) == want


@pytest.mark.parametrize(("fmt", "args"), FALLBACK, ids=[f"{f} {a}" for f, a in FALLBACK])
def test_other_cases_go_to_the_host(rt: Runtime, fmt: str, args: str) -> None:
    assert native(rt, fmt, args) is NOT_HANDLED


def test_operand_type_errors_go_to_the_host(rt: Runtime) -> None:
    rt.reset()
    assert try_sprintf(rt, rt.parse("1"), rt.parse('["a"]')) is NOT_HANDLED


def test_invalid_utf8_goes_to_the_host(rt: Runtime) -> None:
    rt.reset()
    assert try_sprintf(rt, rt.string(b"%s\xff"), rt.parse('["x"]')) is NOT_HANDLED
    arr = rt._fn("opa_array_with_cap")(1)  # ["a\xc3"]: a string argument that is not UTF-8
    rt._fn("opa_array_append")(arr, rt.string(b"a\xc3"))
    assert try_sprintf(rt, rt.parse('"%s"'), arr) is NOT_HANDLED
    assert try_sprintf(rt, rt.parse('"%s"'), rt.parse('["a"]')) == "a"


# ------------------------------------------------------------------ differential property

TOKENS = ["%", "%q", "%x", "%5s", "%-3d", "%.2f", "%[1]s", "%*d", "%é", "%!", "%+d", "%t", "%05d", "% d", "%#v",
          "%T"]
SCALARS = st.one_of(
    st.text(max_size=6),
    st.sampled_from(["", "%s", "%", "ü", "\x00", "\ufffd", "😀"]),
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.integers(min_value=-(2**66), max_value=2**66),
    st.sampled_from([-(2**63), 2**63 - 1, 2**63, -(2**63) - 1, 0, -1]),
    st.decimals(allow_nan=False, allow_infinity=False, places=3, min_value=-1000, max_value=1000),
    st.booleans(),
    st.none(),
)
VALUES = st.one_of(SCALARS, st.lists(SCALARS, max_size=2), st.dictionaries(st.text(max_size=2), SCALARS, max_size=2))
LITERAL = st.one_of(st.text(max_size=3).map(lambda s: s.replace("%", "%%")), st.just("%%"))


@st.composite
def calls(draw: st.DrawFn) -> tuple[str, list[Any]]:
    """A format with one verb per argument (mostly %s %v %d, sometimes another verb or flag),
    literal text around them; sometimes a verb too few or too many."""
    args = draw(st.lists(VALUES, max_size=4))
    verbs = st.one_of(st.sampled_from(["%s", "%v", "%d"]), st.sampled_from(TOKENS))
    parts = [draw(LITERAL)]
    for _ in args:
        parts += [draw(verbs), draw(LITERAL)]
    shift = draw(st.sampled_from([0, 0, 0, 0, -1, 1]))
    if shift < 0 and len(parts) > 1:
        parts = parts[:-2]
    elif shift > 0:
        parts += [draw(verbs)]
    return "".join(parts), args


@given(calls())
@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_native_answers_equal_the_host_builtin(rt: Runtime, call: tuple[str, list[Any]]) -> None:
    fmt, args = call
    rt.reset()
    arr = rt.parse(V.dump_rego(args))
    values = rt.dump(arr)  # the arguments as the host receives them from the module
    got = try_sprintf(rt, rt.parse(V.dump_rego(fmt)), arr)
    if got is not NOT_HANDLED:
        assert got == host(fmt, values), (fmt, values)


@given(st.lists(st.one_of(st.text(max_size=4), st.booleans(), st.none(),
                          st.integers(min_value=-(2**63), max_value=2**63 - 1)), max_size=4), st.data())
@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_strings_and_ints_under_matching_verbs_are_native(rt: Runtime, args: list[Any], data: st.DataObject) -> None:
    """The fast path really covers its cases (the property above alone would pass if it
    always answered 0)."""
    verb = {str: "%s", bool: "%v", type(None): "%s", int: "%d"}
    fmt = "".join(data.draw(LITERAL) + verb[type(a)] for a in args) + data.draw(LITERAL)
    got = native(rt, fmt, V.dump_rego(args))
    assert got is not NOT_HANDLED, (fmt, args)
    assert got == host(fmt, args)
