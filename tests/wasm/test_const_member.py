"""`x in {constants}` compiled by the peephole (wasm/const_member.py) answers like set
membership: random constant sets and probe values of every type (inside a loop, negated, with
duplicates); a set literal that is also used otherwise keeps the real set; the output stays
deterministic."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.host import HostOptions, PolicyModule
from cupcake_py.plan import compile_query
from cupcake_py.wasm import compile_policy, const_member

ELEMENTS = st.one_of(st.sampled_from(["a", "b", "", "é", "wipe1", "1", "true"]), st.booleans())
PROBES = st.one_of(ELEMENTS, st.integers(-1, 2), st.none(), st.just(["a"]), st.just({"a": 1}))


def _rego(v: Any) -> str:
    return json.dumps(v)


def _member(x: Any, elems: list[Any]) -> bool:
    return any(type(x) is type(e) and x == e for e in elems)


def _compile(policy: str, query: str) -> tuple[bytes, Any]:
    plan = compile_query([policy], query, entrypoint="q")
    wasm = compile_policy(plan)
    return wasm, plan


@settings(max_examples=60, deadline=None)
@given(elems=st.lists(ELEMENTS, min_size=1, max_size=5), probes=st.lists(PROBES, min_size=1, max_size=5))
def test_membership_answers_like_a_set(elems: list[Any], probes: list[Any]) -> None:
    lit = "{" + ", ".join(_rego(e) for e in elems) + "}"
    policy = (f"package t\nimport rego.v1\n"
              f"hits := [i | some i, x in input.xs; x in {lit}]\n"
              f"misses := [i | some i, x in input.xs; not x in {lit}]\n")
    wasm, plan = _compile(policy, "r = [data.t.hits, data.t.misses]")
    assert len(const_member.fusible(plan)) == 2
    inst = PolicyModule(wasm, HostOptions(cache_dir=None)).instantiate()
    got = inst.eval("q", {"xs": probes})[0]["r"]
    want = [i for i, x in enumerate(probes) if _member(x, elems)]
    assert got == [want, [i for i in range(len(probes)) if i not in want]]


def test_a_set_used_otherwise_is_built() -> None:
    policy = ('package t\nimport rego.v1\n'
              'n := count(s) if { s := {"a", "b", "a"}; input.x in s }\n'
              'm if { input.x in {"a", input.y} }\n')
    wasm, plan = _compile(policy, "r = [data.t.n, data.t.m]")
    assert not const_member.fusible(plan)  # the first set is counted, the second is not constant
    inst = PolicyModule(wasm, HostOptions(cache_dir=None)).instantiate()
    assert inst.eval("q", {"x": "a", "y": "c"})[0]["r"] == [2, True]
    assert inst.eval("q", {"x": "b", "y": "b"})[0]["r"] == [2, True]
    assert inst.eval("q", {"x": "c", "y": "c"}) == []  # n is undefined: "c" is not in s


def test_deterministic() -> None:
    policy = 'package t\nimport rego.v1\nh if { some w in split(input.s, " "); w in {"x", "y", true} }\n'
    first, _ = _compile(policy, "r = data.t.h")
    second, _ = _compile(policy, "r = data.t.h")
    assert first == second
