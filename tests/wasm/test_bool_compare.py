"""`x == true`, `x != false` and the planner's `check x != false` compiled inline
(codegen.compare_bool): the same answers as opa_value_compare for values of every type, for an
undefined x, and for booleans built at run time."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.host import HostOptions, PolicyModule
from cupcake_py.plan import compile_query
from cupcake_py.wasm import compile_policy

VALUES = st.one_of(st.booleans(), st.none(), st.integers(-2, 2), st.sampled_from(["", "true", "false", "x"]),
                   st.just([]), st.just([False]), st.just({}), st.just({"a": True}), st.floats(0, 1))

POLICY = """package t
import rego.v1
eq_true := [i | some i, x in input.xs; x == true]
eq_false := [i | some i, x in input.xs; x == false]
ne_true := [i | some i, x in input.xs; x != true]
ne_false := [i | some i, x in input.xs; x != false]
truthy := [i | some i, x in input.xs; x]
built := [i | some i, x in input.xs; y := x == 1; y]
missing_ne if input.nothing != false
missing_eq if input.nothing == false
"""
_INST: list[Any] = []


def _instance() -> Any:
    if not _INST:
        plan = compile_query([POLICY], "r = [data.t.eq_true, data.t.eq_false, data.t.ne_true, data.t.ne_false, "
                                       "data.t.truthy, data.t.built]", entrypoint="q")
        _INST.append(PolicyModule(compile_policy(plan), HostOptions(cache_dir=None)).instantiate())
    return _INST[0]


def _is(x: Any, b: bool) -> bool:
    return x is b


@settings(max_examples=80, deadline=None)
@given(st.lists(VALUES, max_size=8))
def test_inline_boolean_compares_answer_like_the_runtime(xs: list[Any]) -> None:
    got = _instance().eval("q", {"xs": xs})[0]["r"]
    idx = range(len(xs))
    assert got == [[i for i in idx if _is(xs[i], True)], [i for i in idx if _is(xs[i], False)],
                   [i for i in idx if not _is(xs[i], True)], [i for i in idx if not _is(xs[i], False)],
                   [i for i in idx if not _is(xs[i], False)],
                   [i for i in idx if type(xs[i]) in (int, float) and xs[i] == 1]]


def test_an_undefined_operand_is_unequal() -> None:
    plan = compile_query([POLICY], "r = [x | x := data.t.missing_ne]; s = [x | x := data.t.missing_eq]", entrypoint="q")
    inst = PolicyModule(compile_policy(plan), HostOptions(cache_dir=None)).instantiate()
    assert inst.eval("q", {})[0] == {"r": [], "s": []}
