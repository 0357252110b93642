from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cupcake_py.engine.synthesis import (
    DecisionError,
    aggregate_reason,
    deep_merge,
    parse_decision_set,
    synthesize,
)
from cupcake_py.harness.opencode.response import failure_response, response


def d(rule: str, reason: str, severity: str = "HIGH", **kw: object) -> dict[str, object]:
    return {"rule_id": rule, "reason": reason, "severity": severity, **kw}


def wrap(policy: str, value: object) -> dict[str, object]:
    return {"policy": policy, "decision": value}


def result(**lists: list[object]) -> dict[str, list[object]]:
    base: dict[str, list[object]] = {k: [] for k in ("halts", "denials", "blocks", "asks", "modifications",
                                                      "add_context")}
    base.update(lists)
    return base


@pytest.mark.parametrize(("key", "wire"), [("halts", "block"), ("denials", "deny"), ("blocks", "block"),
                                            ("asks", "ask")])
def test_each_verb_maps_to_its_wire_decision(key: str, wire: str) -> None:
    final = synthesize(parse_decision_set(result(**{key: [d("R", "why")]})))
    assert response(final) == {"decision": wire, "reason": "why", "rule_ids": ["R"]}


def test_priority_order_halt_deny_block_ask_modify_allow() -> None:
    everything = result(halts=[d("H", "h")], denials=[d("D", "d")], blocks=[d("B", "b")], asks=[d("A", "a")],
                        modifications=[d("M", "m", updated_input={"x": 1})], add_context=["c"])
    order = ["halts", "denials", "blocks", "asks", "modifications", "add_context"]
    expected = ["halt", "deny", "block", "ask", "modify", "allow"]
    for i, kind in enumerate(expected):
        r = dict(everything)
        for k in order[:i]:
            r[k] = []
        assert synthesize(parse_decision_set(r)).kind == kind


@pytest.mark.parametrize(("sevs", "reason"), [
    (["HIGH", "critical"], "Multiple high-severity policy violations detected: [R0] r0; [R1] r1"),
    (["HIGH", "LOW"], "r0"),
    (["MEDIUM", "moderate", "LOW"], "Multiple policy violations detected: [R0] r0; [R1] r1"),
    (["LOW", "INFO"], "Policy guidelines: r0; r1"),
    (["LOW", "MEDIUM", "HIGH"], "r2"),
])
def test_reason_aggregation_by_severity(sevs: list[str], reason: str) -> None:
    ds = parse_decision_set(result(denials=[d(f"R{i}", f"r{i}", s) for i, s in enumerate(sevs)]))
    assert aggregate_reason(ds.of("deny")) == reason


def test_modify_merges_by_priority_and_reports_all() -> None:
    mods = [d("LOW", "low", priority=10, updated_input={"command": "low", "timeout": 5, "env": {"A": "1"}}),
            d("HIGH", "high", priority=90, updated_input={"command": "high", "env": {"B": "2"}}),
            d("NOOP", "noop", updated_input="not an object")]
    final = synthesize(parse_decision_set(result(modifications=mods, add_context=["dropped"])))
    assert response(final) == {
        "decision": "allow",
        "reason": "Multiple modifications applied: [HIGH] high; [NOOP] noop; [LOW] low",
        "updated_args": {"command": "high", "env": {"B": "2", "A": "1"}, "timeout": 5},
        "rule_ids": ["HIGH", "NOOP", "LOW"],
    }


def test_context_only_on_allow() -> None:
    assert response(synthesize(parse_decision_set(result(add_context=["a", "b"])))) == \
        {"decision": "allow", "context": ["a", "b"]}
    assert "context" not in response(synthesize(parse_decision_set(result(asks=[d("A", "a")], add_context=["x"]))))
    assert response(synthesize(parse_decision_set(result()))) == {"decision": "allow"}


def test_routed_filter_keeps_only_routed_packages_and_bare_values() -> None:
    r = result(denials=[wrap("cupcake.policies.a", d("A", "a")), wrap("cupcake.policies.b", d("B", "b")), d("C", "c")],
               add_context=[wrap("cupcake.policies.b", "ctx-b"), wrap("cupcake.policies.a", "ctx-a")])
    ds = parse_decision_set(r, {"cupcake.policies.a"})
    assert [x.rule_id for x in ds.decisions] == ["A", "C"] and ds.context == ["ctx-a"]
    assert len(parse_decision_set(r).decisions) == 3


@pytest.mark.parametrize("bad", [
    result(denials=[{"rule_id": "X"}]),
    result(denials=[{"reason": "x"}]),
    result(denials=[{"rule_id": 1, "reason": "x"}]),
    result(denials=["just a string"]),
    result(modifications=[d("M", "m")]),
    result(modifications=[d("M", "m", updated_input={}, priority=256)]),
    result(modifications=[d("M", "m", updated_input={}, priority=True)]),
    result(add_context=[{"not": "a string"}]),
    {"denials": "nope"},
    [],
])
def test_malformed_decisions_raise(bad: object) -> None:
    with pytest.raises(DecisionError):
        parse_decision_set(bad)


def test_defaults_for_optional_fields() -> None:
    ds = parse_decision_set(result(asks=[{"rule_id": "A", "reason": "a"}],
                                   modifications=[{"rule_id": "M", "reason": "m", "updated_input": {}}]))
    assert ds.of("ask")[0].severity == "MEDIUM" and ds.of("modify")[0].priority == 50


def test_failure_response_prefix() -> None:
    assert failure_response("boom") == {"decision": "deny", "reason": "cupcake: boom"}
    assert failure_response("cupcake: x") == {"decision": "deny", "reason": "cupcake: x"}


json_obj = st.recursive(st.integers() | st.text(max_size=3),
                        lambda c: st.dictionaries(st.text(max_size=2), c, max_size=3), max_leaves=8)


@given(st.dictionaries(st.text(max_size=2), json_obj, max_size=4),
       st.dictionaries(st.text(max_size=2), json_obj, max_size=4))
def test_deep_merge_keeps_existing_values_and_adds_missing_keys(a: dict, b: dict) -> None:  # type: ignore[type-arg]
    import copy

    acc = copy.deepcopy(a)
    deep_merge(acc, copy.deepcopy(b))
    assert set(acc) == set(a) | set(b)
    for k, v in a.items():
        if not (isinstance(v, dict) and isinstance(b.get(k), dict)):
            assert acc[k] == v
