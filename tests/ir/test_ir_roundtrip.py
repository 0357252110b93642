from __future__ import annotations

import copy
from typing import Any

import pytest

from cupcake_py import ir
from tests.ir.suite import plans


def _normalize(plan: dict[str, Any]) -> dict[str, Any]:
    """OPA writes an empty WithStmt.path sometimes as null, sometimes as []; `dump` always writes []."""
    plan = copy.deepcopy(plan)

    def walk(block: dict[str, Any]) -> None:
        for s in block["stmts"]:
            st = s["stmt"]
            if s["type"] == "WithStmt" and st["path"] is None:
                st["path"] = []
            for b in st.get("blocks") or ():
                walk(b)
            if st.get("block"):
                walk(st["block"])

    for p in plan["plans"]["plans"]:
        for b in p["blocks"]:
            walk(b)
    for f in plan["funcs"]["funcs"] or ():
        for b in f["blocks"]:
            walk(b)
    return plan


def test_suite_is_present() -> None:
    assert len(plans()) > 1000


def test_roundtrip_every_suite_plan() -> None:
    for note, plan in plans():
        policy = ir.load(plan)
        assert ir.dump(policy) == _normalize(plan), note
        assert ir.load(ir.dump(policy)) == policy, note


def test_all_statement_types_seen_in_suite() -> None:
    seen: set[type] = set()

    def walk(blocks: tuple[ir.Block, ...]) -> None:
        for b in blocks:
            for s in b.stmts:
                seen.add(type(s))
                if isinstance(s, ir.BlockStmt):
                    walk(s.blocks)
                elif isinstance(s, ir.ScanStmt | ir.NotStmt | ir.WithStmt):
                    walk((s.block,))

    for _, plan in plans():
        policy = ir.load(plan)
        for p in policy.plans:
            walk(p.blocks)
        for f in policy.funcs:
            walk(f.blocks)
    assert set(ir.STATEMENTS) - seen == {ir.NopStmt}


def test_make_number_ref_uses_capital_index() -> None:
    s = ir.MakeNumberRefStmt(index=3, target=4, file=1, row=2, col=5)
    doc = ir.dump(ir.Policy(ir.Static(strings=("1", "2", "3", "4.5")), (ir.Plan("p", (ir.Block((s,)),)),)))
    body = doc["plans"]["plans"][0]["blocks"][0]["stmts"][0]["stmt"]
    assert body == {"Index": 3, "target": 4, "file": 1, "col": 5, "row": 2}
    assert ir.load(doc).plans[0].blocks[0].stmts[0] == s


def test_optional_fields_absent_or_null() -> None:
    doc = {
        "static": {"strings": [], "files": []},
        "plans": {"plans": [{"name": "x", "blocks": [{"stmts": [
            {"type": "CallStmt", "stmt": {"func": "f", "args": None, "result": 2}},
            {"type": "WithStmt", "stmt": {"local": 0, "value": {"type": "bool", "value": True},
                                          "block": {"stmts": []}}},
            {"type": "BlockStmt", "stmt": {"blocks": None}},
        ]}]}]},
        "funcs": None,
    }  # fmt: skip
    policy = ir.load(doc)
    call, with_, block = policy.plans[0].blocks[0].stmts
    assert call == ir.CallStmt(func="f", args=(), result=2)
    assert isinstance(with_, ir.WithStmt) and with_.path == () and with_.value == ir.Bool(True)
    assert block == ir.BlockStmt(blocks=())
    assert policy.funcs == () and policy.static.builtin_funcs == ()


@pytest.mark.parametrize(
    ("doc", "message"),
    [
        ({"plans": {"plans": [{"name": "x", "blocks": [{"stmts": [{"type": "FooStmt", "stmt": {}}]}]}]}},
         "unknown statement type 'FooStmt'"),
        ({"plans": {"plans": [{"name": "x", "blocks": [{"stmts": [{"type": "ResetLocalStmt", "stmt": {}}]}]}]}},
         "missing field 'target'"),
        ({"plans": {"plans": [{"name": "x", "blocks": [{"stmts": [
            {"type": "AssignVarStmt", "stmt": {"source": {"type": "weird", "value": 1}, "target": 2}}]}]}]}},
         "unknown operand type 'weird'"),
        ({"plans": {"plans": [{"name": "x", "blocks": [{"stmts": [
            {"type": "BreakStmt", "stmt": {"index": "1"}}]}]}]}},
         "expected an integer"),
    ],
)  # fmt: skip
def test_malformed_plans_raise_ir_error(doc: dict[str, Any], message: str) -> None:
    with pytest.raises(ir.IRError, match=message):
        ir.load(doc)


def test_format_policy_renders_every_suite_statement() -> None:
    for note, plan in plans()[:300]:
        text = ir.format_policy(ir.load(plan))
        assert "plan eval:" in text, note
    doc = next(p for n, p in plans() if n == "ir/call-dynamic with mixed partial rules")
    text = ir.format_policy(ir.load(doc))
    assert "func g0.data.test.a.b.c(L0, L1) -> L2  path g0.test.a.b.c:" in text
    assert 'L5 := dynamic ["g0", "test", "a", L4, "c"](L0, L1)  @module-0.rego:3:6' in text
    assert "    L3 :=once \"C\"  @module-0.rego:5:1" in text
