"""AST shapes for every Rego v1 construct, table-driven via the s-expression view (conftest.sx)."""

from __future__ import annotations

from decimal import Decimal

import pytest

from cupcake_py.core.errors import Location
from cupcake_py.rego import ast as A
from cupcake_py.rego import parse_module, parse_query, parse_term

from .conftest import sx

QUERIES = [
    # assignment, unification, comparison
    ("x := 1", "(assign x #1)"),
    ("x = y", "(eq x y)"),
    ("a == b; a != b; a < b; a <= b; a > b; a >= b",
     "(equal a b); (neq a b); (lt a b); (lte a b); (gt a b); (gte a b)"),
    # arithmetic precedence and associativity
    ("x := 1 + 2 * 3", "(assign x (plus #1 (mul #2 #3)))"),
    ("x := (1 + 2) * 3", "(assign x (mul (plus #1 #2) #3))"),
    ("x := 1 - 2 - 3", "(assign x (minus (minus #1 #2) #3))"),
    ("x := 8 / 2 % 3", "(assign x (rem (div #8 #2) #3))"),
    ("x := a | b & c", "(assign x (or a (and b c)))"),
    ("a + 1 == b * 2", "(equal (plus a #1) (mul b #2))"),
    ("x := a < b == true", "(assign x (equal (lt a b) true))"),
    # unary minus
    ("x := -1", "(assign x #-1)"),
    ("x := - 2.5e3", "(assign x #-2.5e3)"),
    ("x := -y", "(assign x (minus #0 y))"),
    ("x := -input.n", "(assign x (minus #0 input.n))"),
    ("x := 1 - -1", "(assign x (minus #1 #-1))"),
    # membership
    ("x in xs", "(internal.member_2 x xs)"),
    ("k, v in xs", "(internal.member_3 k v xs)"),
    ("x := 1 in [1] == true", "(assign x (internal.member_2 #1 (equal [#1] true)))"),
    ("f(1, 2 in xs)", "(f #1 (internal.member_2 #2 xs))"),
    ("[1, 2 in xs]", "[#1 (internal.member_2 #2 xs)]"),
    # some / every / not / with
    ("some x", "(some x)"),
    ("some x, y", "(some x y)"),
    ("some x in xs", "(some (internal.member_2 x xs))"),
    ("some k, v in xs", "(some (internal.member_3 k v xs))"),
    ("some [a, b] in xs", "(some (internal.member_2 [a b] xs))"),
    ("every x in xs { x > 0 }", "(every x xs (gt x #0))"),
    ("every k, v in {1: 2} { k < v; true }", "(every k v {#1:#2} (lt k v); true)"),
    ("not p", "(not p)"),
    ("not x == 1", "(not (equal x #1))"),
    ("p with input as 1", "p with input=#1"),
    ("f(x) with input.a as 1 with data.b.c as {\"k\": [1]}",
     "(f x) with input.a=#1 with data.b.c={\"k\":[#1]}"),
    ("x := y\n  with input as 1", "(assign x y) with input=#1"),
    # calls and refs
    ("count(x) > 0", "(gt (count x) #0)"),
    ("x := time.now_ns()", "(assign x (time.now_ns))"),
    ("print(\"a\", x)", "(print \"a\" x)"),
    ("x := split(s, \".\")[0]", "(assign x (split s \".\")[#0])"),
    ("a.b[c].d[\"e f\"]", "a.b[c].d[\"e f\"]"),
    ("input.if; data.x.contains; input.not.in", "input.if; data.x.contains; input.not.in"),
    ("contains(\"fireplace\", \"repl\")", "(contains \"fireplace\" \"repl\")"),
    ("not.foo == 1", "(equal not.foo #1)"),
    ("x := [1, 2][0]", "(assign x [#1 #2][#0])"),
    ("x := {\"a\": 1}.a", "(assign x {\"a\":#1}.a)"),
    # collections and comprehensions
    ("x := []; y := {}; z := set()", "(assign x []); (assign y {}); (assign z {})"),
    ("x := {1, 2,}", "(assign x {#1 #2})"),
    ("x := {\"a\": 1, 2: [3],}", "(assign x {\"a\":#1 #2:[#3]})"),
    ("x := [y | y := xs[_]]", "(assign x [y | (assign y xs[_])])"),
    ("x := {y | some y in xs; y > 1}", "(assign x {y | (some (internal.member_2 y xs)); (gt y #1)})"),
    ("x := {k: v | some k, v in o}", "(assign x {k:v | (some (internal.member_3 k v o))})"),
    ("x := [a | b, c]", "(assign x [(or a b) c])"),
    ("x := {a | b, c}", "(assign x {(or a b) c})"),
    ("x := {a + 1: 2}", "(assign x {(plus a #1):#2})"),
    ("x := [y |\n  some y in xs\n  y > 1\n]", "(assign x [y | (some (internal.member_2 y xs)); (gt y #1)])"),
    # template strings
    ('x := $"a {y} b"', '(assign x $("a " y " b"))'),
    ('x := $"{1 + a}"', "(assign x $((plus #1 a)))"),
    ('x := $"\\{42} {$"{a}"}"', '(assign x $("{42} " $(a)))'),
    ('x := $`multi\n{y}`', '(assign x $("multi\\n" y))'),
    ('x := $"{a with input as 1}"', "(assign x $(a with input=#1))"),
]


@pytest.mark.parametrize(("src", "want"), QUERIES, ids=[q for q, _ in QUERIES])
def test_query_shapes(src: str, want: str) -> None:
    assert sx(parse_query(src)) == want


TERMS = [
    ("null", "null"), ("true", "true"), ("false", "false"),
    ("123456789012345678901234567890", "#123456789012345678901234567890"),
    ("1.50", "#1.50"), ("1e-3", "#1e-3"), ("-0", "#-0"),
    ('"\\"\\\\\\/\\b\\f\\n\\r\\t"', '"\\"\\\\/\\b\\f\\n\\r\\t"'),
    ('"\\u00e9\\ud83d\\ude00"', '"\\u00e9\\ud83d\\ude00"'),
    ("`raw \\n {x}`", '"raw \\\\n {x}"'),
    ('{"a": {1, set()}, "b": [null]}', '{"a":{#1 {}} "b":[null]}'),
]


@pytest.mark.parametrize(("src", "want"), TERMS, ids=[t for t, _ in TERMS])
def test_terms(src: str, want: str) -> None:
    assert sx(parse_term(src)) == want


def test_number_values_exact() -> None:
    assert A.Number("12345678901234567890123").value == 12345678901234567890123
    assert A.Number("0.1").value == Decimal("0.1")
    assert A.Number("1e400").value == Decimal("1e400")


def rules(src: str) -> list[A.Rule]:
    return parse_module("package p\n" + src, "m.rego").rules


def test_complete_rules_and_flags() -> None:
    a, b, c, d = rules("a := 1\nb = 2\nc if { x }\nd := 3 if x\n")
    assert (sx(a.head.ref), sx(a.head.value), a.head.assign, sx(a.body)) == ("a", "#1", True, "true")
    assert a.body[0].generated
    assert (sx(b.head.value), b.head.assign) == ("#2", False)
    assert (sx(c.head.value), c.head.assign, sx(c.body), c.body[0].generated) == ("true", False, "x", False)
    assert (sx(d.head.value), sx(d.body)) == ("#3", "x")
    assert all(r.head.kind == "single_value" for r in (a, b, c, d))


def test_default_else_functions() -> None:
    dflt, p, f1, f2 = rules(
        "default p := false\n"
        "p := 1 if { a } else := 2 if { b } else = 3\n"
        "f(x) := y if { y := x + 1 }\n"
        "f(x, [a, _]) if x == a\n"
    )
    assert dflt.default and sx(dflt.head.value) == "false"
    chain = []
    r: A.Rule | None = p
    while r is not None:
        chain.append((sx(r.head.value), r.head.assign, sx(r.body)))
        r = r.else_
    assert chain == [("#1", True, "a"), ("#2", True, "b"), ("#3", False, "true")]
    assert p.else_ is not None and p.else_.head.ref == p.head.ref and p.else_.head.ref is not p.head.ref
    assert f1.head.kind == "function" and [sx(x) for x in f1.head.args or []] == ["x"]
    assert sx(f1.head.value) == "y" and f1.head.assign
    assert [sx(x) for x in f2.head.args or []] == ["x", "[a _]"] and sx(f2.head.value) == "true"


def test_else_without_value() -> None:
    (p,) = rules("p if { a } else if { b }\n")
    assert p.else_ is not None and sx(p.else_.head.value) == "true" and sx(p.else_.body) == "b"


def test_multi_value_and_ref_heads() -> None:
    s, o, deep, kc = rules(
        "s contains x if { some x in input }\n"
        "o[k] := v if { some k, v in input }\n"
        "a.b[c].d := v if { c := 1; v := 2 }\n"
        "a.b contains 1\n"
    )
    assert (s.head.kind, sx(s.head.key), s.head.value, sx(s.head.ref)) == ("multi_value", "x", None, "s")
    assert (o.head.kind, sx(o.head.ref), sx(o.head.value), o.head.key) == ("single_value", "o[k]", "v", None)
    assert sx(deep.head.ref) == "a.b[c].d" and deep.head.name == "a"
    assert sx(kc.head.ref) == "a.b" and sx(kc.head.key) == "#1"


def test_single_value_ref_head_without_value() -> None:
    (r,) = rules("a[x] if q[x]\n")
    assert sx(r.head.ref) == "a[x]" and sx(r.head.value) == "true"


def test_bodies_newlines_semicolons_and_indices() -> None:
    (r,) = rules("p if {\n  a; b\n  c\n\n  d\n}\n")
    assert sx(r.body) == "a; b; c; d"
    assert [e.index for e in r.body] == [0, 1, 2, 3]


def test_package_imports() -> None:
    m = parse_module(
        "package a.b[\"c-d\"]\nimport rego.v1\nimport future.keywords\nimport future.keywords.in\n"
        "import data.x.y as z\nimport input.foo\n", "m.rego")
    assert sx(m.package.path) == 'data.a.b["c-d"]' and m.package.dotted() == "a.b.c-d"
    assert [(sx(i.path), i.alias) for i in m.imports] == [
        ("rego.v1", None), ("future.keywords", None), ("future.keywords.in", None), ("data.x.y", "z"),
        ("input.foo", None)]


def test_locations() -> None:
    m = parse_module("package p\n\nq := x if {\n\tx := 1 + y\n}\n", "f.rego")
    r = m.rules[0]
    assert r.location == Location("f.rego", 3, 1)
    e = r.body[0]
    assert e.location == Location("f.rego", 4, 2)
    assert isinstance(e.terms, list)
    assert e.terms[2].location == Location("f.rego", 4, 7)
    plus = e.terms[2].value
    assert isinstance(plus, A.Call) and plus.args[1].location == Location("f.rego", 4, 11)


def test_template_hole_locations() -> None:
    t = parse_term('$"ab {x}"', "t")
    assert isinstance(t.value, A.TemplateString)
    hole = t.value.parts[1]
    assert isinstance(hole, A.Expr) and hole.location == Location("t", 1, 7)


def test_comments_collected() -> None:
    m = parse_module("# head\npackage p # trailing\np := 1 # x\n", "c.rego")
    assert [(c.text, c.location.row) for c in m.comments] == [(" head", 1), (" trailing", 2), (" x", 3)]


def test_equality_ignores_locations() -> None:
    a = parse_module("package p\np := [1,2]\n", "a")
    b = parse_module("package   p\n\n\np :=   [1,\n 2]\n", "b")
    assert a == b
    c = parse_module("package p\np := [1,3]\n", "a")
    assert a != c
