"""strings.*, indexof_n, casts, object/array/numbers helpers, graph, template, print, trace, runtime."""

from __future__ import annotations

from decimal import Decimal

import pytest

from cupcake_py.host.builtins import BuiltinContext
from tests.host_builtins.calls import call, fails

CASES = [
    ("indexof_n", ("aaaa", "aa"), [0, 1, 2]),
    ("indexof_n", ("héllo hé", "hé"), [0, 6]),  # code points, not bytes
    ("indexof_n", ("abc", "z"), []),
    ("strings.count", ("cheese", "e"), 3),
    ("strings.count", ("aaaa", "aa"), 2),  # non-overlapping like Go
    ("strings.count", ("five", ""), 5),  # Go: rune count + 1
    ("strings.any_prefix_match", ("foo.bar", ["x", "foo"]), True),
    ("strings.any_prefix_match", (["a", "b"], frozenset({"c"})), False),
    ("strings.any_suffix_match", (frozenset({"a.txt"}), ".txt"), True),
    ("strings.split_n", ("a,b,c", ",", 2), ["a", "b,c"]),
    ("strings.split_n", ("a,b,c", ",", -1), ["a", "b", "c"]),
    ("strings.split_n", ("a,b,c", ",", 0), []),
    ("cast_array", (frozenset({3, 1}),), [1, 3]),
    ("cast_set", ([1, 1, 2],), frozenset({1, 2})),
    ("cast_string", ("x",), "x"),
    ("cast_boolean", (False,), False),
    ("cast_null", (None,), None),
    ("cast_object", ({"a": 1},), {"a": 1}),
    ("array.flatten", ([1, [2, [3, []]], 4],), [1, 2, [3, []], 4]),  # one level only, as OPA
    ("array.flatten", ([[], "a", [[1]], [2, 3]],), ["a", [1], 2, 3]),
    ("numbers.range_step", (0, 10, 3), [0, 3, 6, 9]),
    ("numbers.range_step", (5, 1, 2), [5, 3, 1]),
    ("object.subset", ({"a": {"b": 1, "c": 2}, "d": 3}, {"a": {"b": 1}}), True),
    ("object.subset", ([1, 2, 3, 4], [2, 3]), True),
    ("object.subset", ([1, 2, 3, 4], [2, 4]), False),  # arrays: contiguous
    ("object.subset", ([1, 2, 3], frozenset({3, 1})), True),
    ("object.subset", (frozenset({1, 2}), frozenset({2})), True),
]


@pytest.mark.parametrize(("name", "args", "want"), CASES)
def test_table(name: str, args: tuple[object, ...], want: object) -> None:
    assert call(name, *args) == want


@pytest.mark.parametrize(
    ("name", "args", "msg"),
    [
        ("indexof_n", ("a", ""), "empty search character"),
        ("strings.count", (1, "a"), "operand 1 must be string but got number"),
        ("cast_string", (1,), "operand 1 must be string but got number"),
        ("numbers.range_step", (0, 10, 0), "step must be a positive integer"),
        ("numbers.range_step", (0, Decimal("1.5"), 1), "operand 2 must be integer"),
        ("object.subset", (frozenset({1}), [1]), "object.subset"),
        ("strings.any_prefix_match", ([1], "a"), "array of strings"),
    ],
)
def test_errors(name: str, args: tuple[object, ...], msg: str) -> None:
    fails(name, *args, match=msg)


def test_reachable_paths_siblings_block_later_branches() -> None:
    g = {"a": ["b", "c"], "b": ["c"], "c": []}
    assert call("graph.reachable_paths", g, frozenset({"a"})) == frozenset({("a", "b", "c"), ("a", "c")})
    cyc = {"x": frozenset({"y"}), "y": frozenset({"x"})}
    assert call("graph.reachable_paths", cyc, ["x"]) == frozenset({("x", "y")})
    assert call("graph.reachable_paths", {"a": ["missing"]}, ["a", "zz"]) == frozenset({("a",)})
    fails("graph.reachable_paths", 1, ["a"], match="operand 1 must be object")


def test_template_string_parts() -> None:
    parts = [
        "n=",
        frozenset({42}),
        " s=",
        frozenset({"str"}),
        " o=",
        frozenset({(1, "a")}),
        " u=",
        frozenset(),
    ]
    assert call("internal.template_string", parts) == 'n=42 s=str o=[1, "a"] u=<undefined>'
    assert call("internal.template_string", [frozenset({frozenset()})]) == "set()"
    fails("internal.template_string", [frozenset({1, 2})], match="multiple outputs")


def test_print_cross_product_and_trace() -> None:
    lines: list[str] = []
    ctx = BuiltinContext(print_hook=lines.append)
    assert call("internal.print", [frozenset({"a", "b"}), frozenset(), frozenset({1})], ctx=ctx) is None
    assert lines == ["a <undefined> 1", "b <undefined> 1"]
    assert call("trace", "note", ctx=ctx) is True and ctx.traces == ["note"]


def test_opa_runtime_env_only_when_given() -> None:
    rt = call("opa.runtime")
    assert set(rt) == {"version", "commit"}
    rt = call("opa.runtime", ctx=BuiltinContext(env={"HOME": "/h"}))
    assert rt["env"] == {"HOME": "/h"}
