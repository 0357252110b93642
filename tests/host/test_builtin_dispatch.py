"""Host builtin dispatch through env.opa_builtinN (mock module, test builtins)."""

from __future__ import annotations

from typing import Any

import pytest

from cupcake_py.host import HostOptions, PolicyModule
from cupcake_py.host import errors as E
from cupcake_py.host.builtins import BuiltinError

from .abi_mock import mock_module

OPTS = HostOptions(cache_dir=None)
STRICT = HostOptions(cache_dir=None, strict=True)


def _double(ctx: Any, x: Any) -> Any:
    if isinstance(x, bool) or not isinstance(x, int):
        raise BuiltinError("test.double: operand 1 must be an integer")
    return x * 2


def _keys(ctx: Any, x: Any) -> Any:
    ctx.calls = getattr(ctx, "calls", 0) + 1
    if isinstance(x, dict):
        return frozenset(x)  # a set comes back through opa_value_parse as a Rego literal
    raise RuntimeError("bug in the builtin")


TEST_BUILTINS = {"test.double": _double, "test.keys": _keys}


def _module(name: str, options: HostOptions = OPTS) -> PolicyModule:
    return PolicyModule(mock_module(builtins={name: 7}), options)  # sparse id, like OPA's


def test_builtin_result_and_undefined() -> None:
    p = _module("test.double").instantiate(builtins=TEST_BUILTINS)
    assert p.builtins == {7: "test.double"}
    assert p.eval("builtin", 21) == [{"result": 42}]
    assert p.eval("builtin", 10**30) == [{"result": 2 * 10**30}]
    assert p.eval("builtin", "x") == []  # BuiltinError → undefined


def test_strict_mode_turns_builtin_errors_into_eval_errors() -> None:
    p = _module("test.double", STRICT).instantiate(builtins=TEST_BUILTINS)
    with pytest.raises(E.BuiltinEvalError, match="operand 1 must be an integer") as info:
        p.eval("builtin", "x")
    assert info.value.builtin == "test.double"
    assert p.eval("builtin", 2) == [{"result": 4}]


def test_set_results_and_context_per_evaluation() -> None:
    p = _module("test.keys").instantiate(builtins=TEST_BUILTINS)
    assert p.eval_raw("builtin", {"b": 1, "a": 2}) == b'[{"result":{"a","b"}}]'
    first = p.builtin_context
    assert first is not None and first.calls == 1
    p.eval_raw("builtin", {"c": 1})
    assert p.builtin_context is not first and p.builtin_context.calls == 1


def test_unexpected_exception_fails_the_evaluation() -> None:
    p = _module("test.keys").instantiate(builtins=TEST_BUILTINS)
    with pytest.raises(E.BuiltinEvalError, match="internal error: RuntimeError: bug in the builtin"):
        p.eval("builtin", [1])
    assert p.eval_raw("builtin", {"k": 1}) == b'[{"result":{"k"}}]'


def test_missing_builtin_is_reported_at_load() -> None:
    module = _module("test.not_anywhere")
    with pytest.raises(E.MissingBuiltinError, match="test.not_anywhere") as info:
        module.instantiate(builtins=TEST_BUILTINS)
    assert info.value.names == ["test.not_anywhere"]
    assert module.summary().builtins == {7: "test.not_anywhere"}  # inspection does not need it
