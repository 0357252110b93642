"""rego.parse_module: our front end's AST in OPA's AST JSON shape."""

from __future__ import annotations

import base64
from decimal import Decimal
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from tests.host_builtins.calls import call, fails


def var(n: str) -> dict[str, Any]:
    return {"type": "var", "value": n}


def s(x: str) -> dict[str, Any]:
    return {"type": "string", "value": x}


def num(n: Any) -> dict[str, Any]:
    return {"type": "number", "value": n}


def ref(*ts: dict[str, Any]) -> dict[str, Any]:
    return {"type": "ref", "value": list(ts)}


def call_terms(op: str, *args: dict[str, Any]) -> list[dict[str, Any]]:
    first, *rest = op.split(".")
    return [ref(var(first), *(s(r) for r in rest)), *args]


TRUE = {"type": "boolean", "value": True}


def parse(src: str) -> dict[str, Any]:
    return call("rego.parse_module", "p.rego", "package a.b\n" + src)  # type: ignore[no-any-return]


def rule(src: str, i: int = 0) -> dict[str, Any]:
    return parse(src)["rules"][i]  # type: ignore[no-any-return]


def test_package_and_imports() -> None:
    m = parse("import rego.v1\nimport data.x as y\nimport input.z\n")
    assert m["package"] == {"path": [var("data"), s("a"), s("b")]}
    assert m["imports"] == [
        {"path": ref(var("rego"), s("v1"))},
        {"path": ref(var("data"), s("x")), "alias": "y"},
        {"path": ref(var("input"), s("z"))},
    ]
    assert "rules" not in m and "comments" not in m


def test_rule_kinds_heads() -> None:
    assert rule("p if { x = 1 }") == {
        "head": {"name": "p", "ref": [var("p")], "value": TRUE},
        "body": [{"index": 0, "terms": call_terms("eq", var("x"), num(1))}],
    }
    assert rule("default q := 1")["default"] is True
    assert rule("default q := 1")["head"] == {"name": "q", "ref": [var("q")], "value": num(1), "assign": True}
    assert rule("s contains x if x := 1")["head"] == {"name": "s", "ref": [var("s")], "key": var("x")}
    assert rule("f(x, y) := x")["head"]["args"] == [var("x"), var("y")]
    deep = rule('a.b[k] := 1 if k := "c"')["head"]
    assert "name" not in deep and deep["ref"] == [var("a"), s("b"), var("k")]
    chain = rule("f(x) := 1 if x > 0 else := 2")
    assert chain["else"]["head"]["value"] == num(2) and chain["else"]["body"] == [{"index": 0, "terms": TRUE}]


def test_expressions() -> None:
    body = rule("""p if {
        not x with input.a as 1
        some k, v in [1]
        every y in z { y > 0 }
        _ = 1
        [_, _] = [1, 2]
        count(x) > 1
    }""")["body"]
    assert body[0] == {"index": 0, "terms": var("x"), "negated": True,
                       "with": [{"target": ref(var("input"), s("a")), "value": num(1)}]}  # fmt: skip
    assert body[1]["terms"] == {"symbols": [{"type": "call", "value": call_terms(
        "internal.member_3", var("k"), var("v"), {"type": "array", "value": [num(1)]})}]}  # fmt: skip
    assert body[2]["terms"] == {"value": var("y"), "domain": var("z"),
                                "body": [{"index": 0, "terms": call_terms("gt", var("y"), num(0))}]}  # fmt: skip
    assert body[3]["terms"][1] == var("$0")  # wildcards numbered in source order
    assert body[4]["terms"][1]["value"] == [var("$1"), var("$2")]
    assert body[5]["terms"] == call_terms(
        "gt", {"type": "call", "value": call_terms("count", var("x"))}, num(1)
    )
    assert [e["index"] for e in body] == list(range(6))


def test_composite_terms() -> None:
    head = rule(
        'p := [{"k": 1.5, 2: null}, {3, 1, "a", 1}, set(), [x | x := 1], {k: v | k := v}, {x | x := 1}]'
    )
    arr = head["head"]["value"]["value"]
    assert arr[0] == {
        "type": "object",
        "value": [[s("k"), num(1.5)], [num(2), {"type": "null", "value": None}]],
    }
    assert arr[1] == {"type": "set", "value": [num(1), num(3), s("a")]}  # sorted, duplicates dropped
    assert arr[2] == {"type": "set", "value": []}
    assert arr[3]["type"] == "arraycomprehension" and arr[3]["value"]["term"] == var("x")
    assert arr[4]["type"] == "objectcomprehension" and set(arr[4]["value"]) == {"key", "value", "body"}
    assert arr[5]["type"] == "setcomprehension"


def test_comments_and_annotations() -> None:
    m = parse("# METADATA\n# title: T\n# custom:\n#   n: 1.5\np := 1\nq := 2 # tail\n")
    assert m["rules"][0]["annotations"] == [{"scope": "rule", "title": "T", "custom": {"n": Decimal("1.5")}}]
    assert m["annotations"] == m["rules"][0]["annotations"]
    texts = [base64.b64decode(c["Text"]).decode() for c in m["comments"]]
    assert texts[0] == " METADATA" and texts[-1] == " tail"
    assert m["comments"][-1]["Location"] == {"file": "p.rego", "row": 7, "col": 8}


def test_parse_errors_are_builtin_errors() -> None:
    msg = fails(
        "rego.parse_module",
        "x.rego",
        "package a\np := ",
        match="rego.parse_module: 1 error occurred: x.rego:2",
    )
    assert "rego_parse_error" in msg
    fails("rego.parse_module", 1, "package a", match="operand 1 must be string but got number")


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(-1000, 1000) | st.text("abc", max_size=3), max_size=6))
def test_set_literals_sort_like_opa(items: list[int | str]) -> None:
    lit = (
        "{" + ", ".join(repr(x) if isinstance(x, int) else f'"{x}"' for x in items) + "}"
        if items
        else "set()"
    )
    got = rule(f"p := {lit}")["head"]["value"]["value"]
    ints = sorted({x for x in items if isinstance(x, int)})
    strs = sorted({x for x in items if isinstance(x, str)})
    assert got == [num(i) for i in ints] + [s(x) for x in strs]
