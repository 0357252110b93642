"""The host on modules from our own backend (runtime.wasm + generated code): both eval
protocols agree, sets survive the Rego-format path, host builtins dispatch, conflicts
abort with their location."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from cupcake_py.core import values
from cupcake_py.host import UNDEFINED, HostOptions, PolicyModule
from cupcake_py.host import errors as E
from tests.compliance.suite import DEFAULT_SUITE

SUITE = DEFAULT_SUITE  # $CUPCAKE_COMPLIANCE_SUITE or <repo>/../shared/rego-compliance/v1
OPTS = HostOptions(cache_dir=None)

pytestmark = pytest.mark.skipif(not SUITE.is_dir(), reason=f"compliance suite not found at {SUITE}")


@functools.cache
def _cases() -> dict[str, dict[str, Any]]:
    return {c["note"]: c for path in sorted(SUITE.rglob("*.json"))
            for c in values.parse_json(path.read_bytes())["cases"]}


def _case(note: str) -> dict[str, Any]:
    return _cases()[note]


def _module(case: dict[str, Any]) -> PolicyModule:
    from cupcake_py import ir
    from cupcake_py.wasm import compile_policy

    return PolicyModule(compile_policy(ir.load(case["plan"])), OPTS)


def _input(case: dict[str, Any]) -> Any:
    if "input_term" in case:
        return values.parse_rego(case["input_term"])
    return case.get("input", UNDEFINED)


@pytest.mark.parametrize("note", [
    "aggregates/count virtual",
    "sets/set_diff",
    "sprintf/big_int",
    "inputvalues/input set",
])
def test_fast_and_ctx_paths_agree(note: str) -> None:
    case = _case(note)
    module = _module(case)
    fast = module.instantiate(case.get("data", UNDEFINED))
    ctx = module.instantiate(case.get("data", UNDEFINED))
    ctx._fast = False
    assert fast._fast
    for keep_sets in (False, True):
        a = fast.eval("eval", _input(case), keep_sets=keep_sets)
        b = ctx.eval("eval", _input(case), keep_sets=keep_sets)
        assert values.compare(a, b) == 0, (keep_sets, a, b)
    assert values.compare(values.parse_json(values.dump_json(fast.eval("eval", _input(case), keep_sets=True))),
                          values.parse_json(values.dump_json(case["want_result"]))) == 0 or \
        case.get("sort_bindings")


def test_sets_are_kept_in_rego_format() -> None:
    case = _case("sets/set_diff")
    got = _module(case).instantiate(case.get("data", UNDEFINED)).eval("eval", keep_sets=True)
    assert any(isinstance(v, frozenset) for row in got for v in row.values())


def test_conflict_aborts_with_location() -> None:
    from cupcake_py.plan import compile_query
    from cupcake_py.wasm import compile_policy

    src = "package t\n\np := 1 if { input.a }\np := 2 if { input.b }\n"
    policy = compile_query([src], "data.t.p = x")
    p = PolicyModule(compile_policy(policy), OPTS).instantiate()
    assert p.eval("eval", {"a": True}) == [{"x": 1}]
    with pytest.raises(E.AbortError) as info:
        p.eval("eval", {"a": True, "b": True})
    assert info.value.is_conflict and info.value.file == "module-0.rego" and info.value.row in (3, 4)
    assert p.eval("eval", {"b": True}) == [{"x": 2}]  # rebuilt after the abort
