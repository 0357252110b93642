"""The compliance judge follows OPA's Wasm e2e rules (it must be able to fail)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from cupcake_py.host.errors import AbortError, TrapError

from .judge import judge, same_result_sets

CONFLICT = AbortError("module-0.rego:4:1: var assignment conflict")


@pytest.mark.parametrize(("got", "want", "kw", "same"), [
    ([{"x": 1}, {"x": 2}], [{"x": 2}, {"x": 1}], {}, True),  # a set of bindings: order is free
    ([{"x": 1}, {"x": 1}], [{"x": 1}], {}, True),  # duplicates collapse
    ([{"x": [2, 1]}], [{"x": [1, 2]}], {}, False),  # arrays keep order...
    ([{"x": [2, 1]}], [{"x": [1, 2]}], {"sort_bindings": True}, True),  # ...unless sort_bindings
    ([{"x": frozenset({2, 1})}], [{"x": [1, 2]}], {}, True),  # sets round-trip to sorted arrays
    ([{"x": Decimal("1.0")}], [{"x": 1}], {}, True),  # Rego number equality
    ([{"x": 1, "__local0__": 5}], [{"x": 1}], {"ignore_generated": True}, True),
    ([{"x": 1, "__local0__": 5}], [{"x": 1}], {}, False),
    ([{"x": True}], [{"x": 1}], {}, False),
    ([], [{"x": 1}], {}, False),
])
def test_same_result_sets(got: list, want: list, kw: dict, same: bool) -> None:
    assert same_result_sets(got, want, **kw) is same


@pytest.mark.parametrize(("case", "rows", "error", "ok", "category"), [
    ({"want_result": [{"x": 1}]}, [{"x": 1}], None, True, "pass"),
    ({"want_result": [{"x": 1}]}, [{"x": 2}], None, False, "wrong-result"),
    ({"want_result": [{"x": 1}]}, None, TrapError("wasm trap: unreachable"), False, "unexpected-error"),
    ({"want_result": [{"x": 1}], "strict_error": True}, [{"x": 1}], None, True, "pass"),
    ({"want_error_code": "eval_type_error", "strict_error": True}, [], None, True, "pass"),
    ({"want_error_code": "eval_type_error", "strict_error": True}, [{"x": 1}], None, False, "wrong-result"),
    ({"want_error_code": "eval_conflict_error"}, None, CONFLICT, True, "pass"),
    ({"want_error_code": "eval_conflict_error"}, [{"x": 1}], None, False, "missing-error"),
    ({"want_error_code": "eval_conflict_error"}, None, TrapError("wasm trap: unreachable"), False, "unexpected-error"),
    ({"want_error_code": "eval_type_error"}, None, CONFLICT, False, "unsupported-expectation"),
    ({"want_defined": True}, [{"x": 1}], None, True, "pass"),
    ({"want_defined": False}, [{"x": 1}], None, False, "wrong-result"),
])
def test_judge(case: dict, rows: list | None, error: Exception | None, ok: bool, category: str) -> None:
    v = judge(case, rows, error)
    assert (v.ok, v.category) == (ok, category)
