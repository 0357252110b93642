"""Numbers stay exact on the eval path: the engine's JSON (cupcake_py.core.jsonio) reads a fraction
or exponent as a Decimal, writes it back with its own text, and the policy runtime keeps it; so
an input number comes out of a policy with the same value and digits (no double in between:
0.1 stays 0.1, 1e400 does not overflow, -0.0 keeps its sign, 31 significant digits stay 31).
The steps are those of engine/evaluator.py: jsonio.dumps(input) -> eval_raw -> jsonio.loads."""

from __future__ import annotations

import functools
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cupcake_py.core import jsonio
from cupcake_py.host import HostOptions, PolicyInstance, PolicyModule

ECHO = 'package t\n\nx := {"v": input.v, "in_array": [input.v], "self_equal": input.v == input.v}\n'


@functools.cache
def _instance() -> PolicyInstance:
    from cupcake_py.plan import compile_query
    from cupcake_py.wasm import compile_policy

    return PolicyModule(compile_policy(compile_query([ECHO], "data.t.x = x")), HostOptions(cache_dir=None)).instantiate()


def _through_policy(number_text: str) -> Any:
    event = jsonio.loads(b'{"v": ' + number_text.encode() + b"}")  # what the harness reads from stdin
    raw = _instance().eval_raw(0, input_json=jsonio.dumps(event))
    (row,) = jsonio.loads(raw)
    return row["x"]


@pytest.mark.parametrize("text", ["0.1", "1e400", "-0.0", "123456789012345678901234567890.5", "1E-400", "2.50",
                                  "-5e-3", "0.30000000000000004", "1e-7", "9007199254740993.0"])
def test_named_numbers_come_back_exactly(text: str) -> None:
    out = _through_policy(text)
    want = Decimal(text)
    assert repr(out["v"]) == repr(want) and repr(out["in_array"][0]) == repr(want)
    assert out["self_equal"] is True
    assert jsonio.dumps(out["v"]).decode() == str(want)  # and the answer writes the same text


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.decimals(allow_nan=False, allow_infinity=False).filter(lambda d: "." in str(d) or "E" in str(d)))
def test_any_fraction_comes_back_exactly(d: Decimal) -> None:
    out = _through_policy(str(d))
    assert repr(out["v"]) == repr(d), (str(d), out)


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=-(10 ** 40), max_value=10 ** 40))
def test_integers_stay_integers(n: int) -> None:
    out = _through_policy(str(n))
    assert type(out["v"]) is int and out["v"] == n
