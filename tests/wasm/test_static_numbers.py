"""Integer constants as static values (wasm/static_numbers.py): which texts qualify, the answers
stay those of numbers built at run time (arithmetic, indexes, comparisons, set and object keys,
output text), a plan with an in-place number assignment keeps allocating, and repeated
evaluations of one instance see the same constants (nothing writes to them)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py import ir
from cupcake_py.host import HostOptions, PolicyModule
from cupcake_py.plan import compile_query
from cupcake_py.wasm import compile_policy, static_numbers


@pytest.mark.parametrize(("text", "want"), [
    ("0", 0), ("7", 7), ("-5", -5), ("9223372036854775807", 2**63 - 1), ("-9223372036854775808", -(2**63)),
    ("9223372036854775808", None), ("-0", None), ("007", None), ("1.0", None), ("1e3", None), ("+1", None),
    ("", None), (" 1", None),
])
def test_only_canonical_int64_text_is_static(text: str, want: int | None) -> None:
    assert static_numbers.int_text(text) == want


def _eval(policy: str, query: str, inp: Any, times: int = 1) -> list[Any]:
    plan = compile_query([policy], query, entrypoint="q")
    assert static_numbers.allowed(plan)
    inst = PolicyModule(compile_policy(plan), HostOptions(cache_dir=None)).instantiate()
    return [inst.eval("q", inp) for _ in range(times)]


def test_constants_behave_like_numbers() -> None:
    policy = ("package t\nimport rego.v1\n"
              "idx := input.xs[2]\n"
              "sum := input.n + 1\n"
              "big := 9223372036854775807 + 1\n"
              "keys := {1: \"one\", 2: \"two\"}[input.k]\n"
              "members := {x | some x in [3, 1, 3, 2]}\n"
              "neg := -7 * input.n\n"
              "eq if 10 == input.ten\n"
              "float_eq if 1.0 == input.one\n"
              "texts := [1.0, 1e3, -0, 12345678901234567890, 42]\n")
    got = _eval(policy, "r = [data.t.idx, data.t.sum, data.t.big, data.t.keys, data.t.members, data.t.neg, "
                        "data.t.eq, data.t.float_eq, data.t.texts]",
                {"xs": ["a", "b", "c"], "n": 41, "k": 2, "ten": 10.0, "one": 1}, times=3)
    want = [[{"r": ["c", 42, 9223372036854775808, "two", [1, 2, 3], -287, True, True,
                    [1.0, 1000, 0, 12345678901234567890, 42]]}]] * 3
    assert got == want


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=6), st.integers(-3, 3))
def test_literals_print_and_compare_like_their_values(values: list[int], probe: int) -> None:
    lits = ", ".join(str(v) for v in values)
    policy = (f"package t\nimport rego.v1\nall := [{lits}]\n"
              f"hits := [i | some i, v in [{lits}]; v == input.p]\n")
    got = _eval(policy, "r = [data.t.all, data.t.hits]", {"p": probe}, times=2)
    assert got == [[{"r": [values, [i for i, v in enumerate(values) if v == probe]]}]] * 2


def test_a_plan_that_assigns_numbers_in_place_keeps_allocating() -> None:
    assign = ir.AssignIntStmt(value=2, target=3, file=0, row=1, col=1)
    func = ir.Func(name="f", params=(0, 1), return_=2, blocks=(ir.Block(stmts=(assign,)),), path=("f",))
    policy = ir.Policy(static=ir.Static(strings=(), builtin_funcs=(), files=()), plans=(), funcs=(func,))
    assert not static_numbers.allowed(policy)
