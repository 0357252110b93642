"""Host builtin arguments and results on modules from our own backend: values read straight
from linear memory equal what the module's own dump + `values.parse_rego` gives (types,
key order, sets, big and decimal numbers, non-string keys, invalid UTF-8), and every
value survives a round trip through a host builtin."""

from __future__ import annotations

import functools
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cupcake_py.core import values as V
from cupcake_py.host import HostOptions, PolicyInstance, PolicyModule
from cupcake_py.host.value_reader import PROBE, NeedsDump, is_json_number, probe_value, read_value

from .test_values import _rego_values, same

OPTS = HostOptions(cache_dir=None)
SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@functools.cache
def _module(src: str) -> PolicyModule:
    from cupcake_py.plan import compile_query
    from cupcake_py.wasm import compile_policy

    return PolicyModule(compile_policy(compile_query([src], "data.t.x = x")), OPTS)


# strings.render_template is a host builtin with no native fast path (sprintf has one,
# opa_bi_try_sprintf, which answers some calls without the host); overridden below
ECHO = 'package t\n\nx := strings.render_template("", input.v)\n'


class Echo:
    def __init__(self) -> None:
        self.received: list[Any] = []

    def __call__(self, ctx: Any, fmt: Any, arg: Any) -> Any:
        self.received.append(arg)
        return arg


def _echo() -> tuple[PolicyInstance, Echo]:
    echo = Echo()
    return _module(ECHO).instantiate(builtins={"strings.render_template": echo}), echo


def _parsed(p: PolicyInstance, text: bytes) -> int:
    """Address of the module's own opa_value_parse of `text` (on the heap after data)."""
    p.set_data({})
    addr = p._fn["opa_malloc"](p._ctx, len(text))
    assert p._mem is not None
    p._mem.write(p._ctx, addr, text)
    value = p._fn["opa_value_parse"](p._ctx, addr, len(text))
    assert value, text
    return value


def _via_dump(p: PolicyInstance, addr: int) -> Any:
    assert p._mem is not None
    return V.parse_rego(p._mem.read_cstr(p._ctx, p._fn["opa_value_dump"](p._ctx, addr)))


def _key_orders(v: Any) -> list[Any]:
    """Every object's key sequence, depth first (frozen parts included)."""
    if isinstance(v, dict | V.FrozenObject):
        return [list(v)] + [o for k, x in v.items() for o in _key_orders(k) + _key_orders(x)]
    if isinstance(v, list | tuple | frozenset):
        return [o for x in (sorted(v, key=V.sort_key) if isinstance(v, frozenset) else v) for o in _key_orders(x)]
    return []


def _check_reader(v: Any) -> None:
    p, _ = _echo()
    addr = _parsed(p, V.dump_rego(v).encode("utf-8", "surrogatepass"))
    assert p._mem is not None
    got, want = read_value(p._mem.view(p._ctx), addr), _via_dump(p, addr)
    assert same(got, want), (got, want)
    assert _key_orders(got) == _key_orders(want)  # the dump's key order


@given(_rego_values())
@SETTINGS
def test_memory_reader_equals_dump_and_parse(v: Any) -> None:
    _check_reader(v)


@pytest.mark.parametrize("v", [
    {"b": 1, "a": {"z": [1, {"y": 2, "x": 3}], "c": None}},
    {3: "n", "s": 1, (2,): True, 1: False},
    [frozenset({V.FrozenObject({"q": 1, "p": 2})})],
])
def test_memory_reader_keeps_the_dump_key_order(v: Any) -> None:
    _check_reader(v)


def test_reader_defers_invalid_utf8_to_the_dump() -> None:
    p, echo = _echo()
    addr = _parsed(p, b'["ok", `bad \xff\xfe bytes`]')
    assert p._mem is not None
    with pytest.raises(NeedsDump):
        read_value(p._mem.view(p._ctx), addr)
    assert _via_dump(p, addr) == ["ok", "bad \ufffd\ufffd bytes"]


def test_probe_recognises_our_runtime() -> None:
    p, _ = _echo()
    assert p.eval("eval", {"v": [1]}) == [{"x": [1]}]
    assert p._dispatcher._direct is True
    assert same(read_value(p._mem.view(p._ctx), _parsed(p, PROBE)), probe_value())  # type: ignore[union-attr]


@given(_rego_values())
@SETTINGS
def test_values_round_trip_through_a_host_builtin(v: Any) -> None:
    p, echo = _echo()
    got = p.eval("eval", {"v": v}, keep_sets=True)
    assert len(echo.received) == 1 and same(echo.received[0], v), (echo.received, v)
    assert len(got) == 1 and V.compare(got[0]["x"], V.thaw(v)) == 0, (got, v)


@pytest.mark.parametrize("v", [
    10**40, -(10**40), Decimal("1.5e-7"), Decimal("2e308"), frozenset(), frozenset({1, "a", (1, 2)}),
    {(1,): "array key", 2: "number key", V.FrozenObject({"k": 1}): "object key"},
    {"big": "x" * 5000}, [""] * 300, "\u2028<&>\x00\x1f",
])
def test_edge_values_round_trip(v: Any) -> None:
    p, echo = _echo()
    got = p.eval("eval", {"v": v}, keep_sets=True)
    assert same(echo.received[0], v)
    assert V.compare(got[0]["x"], V.thaw(v)) == 0


def test_many_results_in_one_evaluation_do_not_share_memory() -> None:
    src = 'package t\n\nx := [y | some i in numbers.range(1, input.n); y := sprintf("%d", [i])]\n'
    p = _module(src).instantiate()
    n = 300  # results outgrow the first scratch block several times
    assert p.eval("eval", {"n": n}) == [{"x": [str(i) for i in range(1, n + 1)]}]
    long = _module('package t\n\nx := [concat("", [y, y]) | some i in numbers.range(1, input.n); '
                   'y := sprintf("%s%d", [input.pad, i])]\n').instantiate()
    pad = "p" * 700
    assert long.eval("eval", {"n": 20, "pad": pad}) == [{"x": [f"{pad}{i}" * 2 for i in range(1, 21)]}]


def test_memory_access_is_bounds_checked() -> None:
    from cupcake_py.host.errors import ABIError

    p, _ = _echo()
    mem = p._mem
    assert mem is not None
    size = len(mem.view(p._ctx))
    mem.write(p._ctx, size - 3, b"ab\0")
    assert mem.read_cstr(p._ctx, size - 3) == b"ab"
    mem.write(p._ctx, size - 2, b"zz")  # no NUL before the end of memory
    for bad in (lambda: mem.read_cstr(p._ctx, size - 2), lambda: mem.read_cstr(p._ctx, size),
                lambda: mem.read(p._ctx, size - 1, 2), lambda: read_value(mem.view(p._ctx), size)):
        with pytest.raises(ABIError):
            bad()
    # a string value whose bytes would run past the end of memory
    view = mem.view(p._ctx)
    view[64:76] = bytes([4, 0, 0, 0]) + (100).to_bytes(4, "little") + (size - 10).to_bytes(4, "little")
    with pytest.raises(ABIError):
        read_value(view, 64)


JSON_NUMBER = rb"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?"


@settings(max_examples=3000)
@given(st.binary(max_size=12).map(lambda b: bytes(b"0123456789-+.eE x"[c % 17] for c in b)))
def test_number_texts_are_checked_as_the_json_grammar(text: bytes) -> None:
    """A number in text form (big or decimal) is checked without `re` (value_reader.is_json_number)."""
    import re

    assert is_json_number(text) == (re.fullmatch(JSON_NUMBER, text) is not None)
