"""A host builtin with a native fast path (sprintf → opa_bi_try_sprintf) in a compiled module:
the runtime answers its common cases without a host call, everything else still reaches the
host builtin (registered as usual), and the policy's result is the host builtin's answer
either way (undefined when the host reports an error)."""

from __future__ import annotations

import functools
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cupcake_py.host import HostOptions, PolicyInstance, PolicyModule
from cupcake_py.host.builtins import BuiltinContext, BuiltinError, lookup
from cupcake_py.host.errors import MemoryLimitExceeded
from cupcake_py.plan import compile_query
from cupcake_py.wasm import compile_policy

SRC = "package t\n\nx := sprintf(input.f, input.a)\n"
OPTS = HostOptions(cache_dir=None)


@functools.cache
def _wasm() -> bytes:
    return compile_policy(compile_query([SRC], "data.t.x = x"))


@functools.cache
def _module() -> PolicyModule:
    return PolicyModule(_wasm(), OPTS)


class Spy:
    """The real host sprintf, counting its calls."""

    def __init__(self) -> None:
        self.calls = 0
        real = lookup("sprintf")
        assert real is not None
        self.real = real.fn

    def __call__(self, ctx: Any, fmt: Any, values: Any) -> Any:
        self.calls += 1
        return self.real(ctx, fmt, values)


def _instance() -> tuple[PolicyInstance, Spy]:
    spy = Spy()
    return _module().instantiate(builtins={"sprintf": spy}), spy


def _expected(fmt: Any, values: Any) -> list[dict[str, Any]]:
    real = lookup("sprintf")
    assert real is not None
    try:
        return [{"x": real.fn(BuiltinContext(seed=1), fmt, values)}]
    except BuiltinError:
        return []


def test_sprintf_stays_a_registered_host_builtin() -> None:
    inst, _ = _instance()
    assert "sprintf" in inst.builtins.values()
    assert _wasm() == compile_policy(compile_query([SRC], "data.t.x = x"))  # byte-identical


@pytest.mark.parametrize(("fmt", "values", "want", "host_calls"), [
    ("no %s", ["rm"], "no rm", 0),
    ("%s %v %d%%", ["a", None, -3], "a null -3%", 0),
    ("%.1f", [1.25], "1.2", 1),
    ("%s", [5], "%!s(int=5)", 1),
    ("%v", [[1, {"a": "b"}]], '[1, {"a": "b"}]', 1),
    ("%s %s", ["a"], "a %!s(MISSING)", 1),
    ("x", [True], "x%!(EXTRA string=true)", 1),
])
def test_native_cases_skip_the_host_and_the_rest_reach_it(fmt: str, values: Any, want: str, host_calls: int) -> None:
    inst, spy = _instance()
    assert inst.eval("eval", {"f": fmt, "a": values}) == [{"x": want}]
    assert spy.calls == host_calls


def test_host_errors_stay_undefined() -> None:
    inst, spy = _instance()
    assert inst.eval("eval", {"f": "%s", "a": "not an array"}) == []
    assert inst.eval("eval", {"f": 1, "a": []}) == []
    assert spy.calls == 2


SCALARS = st.one_of(st.text(max_size=4), st.integers(min_value=-(2**65), max_value=2**65), st.booleans(), st.none(),
                    st.decimals(allow_nan=False, allow_infinity=False, places=2, min_value=-99, max_value=99))
FORMATS = st.lists(st.one_of(st.sampled_from(["%s", "%v", "%d", "%%", "%x", "%5s", "%"]), st.text(max_size=3)),
                   max_size=4).map("".join)


@given(FORMATS, st.lists(st.one_of(SCALARS, st.lists(SCALARS, max_size=2)), max_size=3))
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
def test_policy_result_is_the_host_builtins_answer(fmt: str, values: list[Any]) -> None:
    inst, _ = _instance()
    got = inst.eval("eval", {"f": fmt, "a": values})
    assert got == _expected(fmt, values)


def test_native_output_past_the_memory_cap_fails_closed() -> None:
    """An input that makes the native path build a string larger than the memory cap: the
    evaluation fails with MemoryLimitExceeded, and the instance answers again afterwards."""
    src = ('package t\n\nimport rego.v1\n\nx := sprintf(concat("", ["%s" | some _ in numbers.range(1, 100)]), '
           '[input.s | some _ in numbers.range(1, 100)])\n')
    opts = HostOptions(cache_dir=None, memory_limit=16 * 1024 * 1024)
    inst = PolicyModule(compile_policy(compile_query([src], "data.t.x = x")), opts).instantiate()
    with pytest.raises(MemoryLimitExceeded):
        inst.eval("eval", {"s": "a" * 1_000_000})
    assert inst.eval("eval", {"s": "ab"}) == [{"x": "ab" * 100}]
