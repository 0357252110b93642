"""Syntax corners OPA 1.x accepts (issue 16): `k, v in xs` wherever OPA parses a term with
its key-value form, a brace term right after a rule's `if`, function heads with neither body
nor value, imports after rules, and number literals. Shapes via the s-expression view."""

from __future__ import annotations

import pytest

from cupcake_py.rego import parse_module, parse_query
from cupcake_py.rego.errors import RegoErrors

from .conftest import sx

# OPA parses a term with the key-value `in` form at the top of an expression, in parentheses,
# ref brackets, rule values, `contains` keys, `else` values and `with` values; list items
# (arrays, sets, objects, call arguments) take the plain form only.
MEMBERSHIP = [
    ("x := (0, 2 in [2])", "(assign x (internal.member_3 #0 #2 [#2]))"),
    ("x := (0, 2 in [2]) in [true]", "(assign x (internal.member_2 (internal.member_3 #0 #2 [#2]) [true]))"),
    ("x := [(1, 2 in xs), 3]", "(assign x [(internal.member_3 #1 #2 xs) #3])"),
    ("x := 0, 2 in xs", "(assign x (internal.member_3 #0 #2 xs))"),
    ("0, 2 in xs", "(internal.member_3 #0 #2 xs)"),
    ("f((0, 2 in xs))", "(f (internal.member_3 #0 #2 xs))"),
    ("f(0, 2 in xs)", "(f #0 (internal.member_2 #2 xs))"),
    ("x := {(0, 1 in xs), 2 in ys}", "(assign x {(internal.member_3 #0 #1 xs) (internal.member_2 #2 ys)})"),
    ("x := a in b in c", "(assign x (internal.member_2 (internal.member_2 a b) c))"),
    ("x := (0, 2 in xs == ys)", "(assign x (internal.member_3 #0 #2 (equal xs ys)))"),
    ("x := xs[(0, 1 in ys)]", "(assign x xs[(internal.member_3 #0 #1 ys)])"),
]


@pytest.mark.parametrize(("src", "want"), MEMBERSHIP, ids=[s for s, _ in MEMBERSHIP])
def test_key_value_membership_positions(src: str, want: str) -> None:
    assert "; ".join(sx(e) for e in parse_query(src)) == want


def _rules(body: str) -> list[str]:
    return [sx(r) for r in parse_module("package p\n" + body, "t.rego").rules]


def test_with_value_and_rule_values_take_the_key_value_form() -> None:
    (q,) = parse_query("p with input.v as 0, 1 in xs")
    assert sx(q.with_[0].value) == "(internal.member_3 #0 #1 xs)"
    m = parse_module("package p\na := 0, 1 in xs\nb contains 0, 1 in xs\n", "t.rego")
    assert [sx(r.head.value if r.head.value is not None else r.head.key) for r in m.rules] == [
        "(internal.member_3 #0 #1 xs)", "(internal.member_3 #0 #1 xs)"]


@pytest.mark.parametrize(("rule", "body"), [
    ("f(x) := 1 if {k: v | some k, v in x}", "{k:v | (some (internal.member_3 k v x))}"),
    ('p if {"a": 1}', '{"a":#1}'),
    ("p if {x | some x in xs}", "{x | (some (internal.member_2 x xs))}"),
    ("p if {}", "{}"),
    ("p if {input.x}", "input.x"),  # a bare set literal: the braces are the body
    ("p if {a == 1}", "(equal a #1)"),
])
def test_brace_after_if_is_a_literal_unless_a_bare_set(rule: str, body: str) -> None:
    r = parse_module("package p\n" + rule + "\n", "t.rego").rules[0]
    assert "; ".join(sx(e) for e in r.body) == body


@pytest.mark.parametrize("src", [
    "p := 1 if { false } else := 2 if {x: 1 | x := 1}",  # `else ... if {` is always a body
    "p if {1, 2}",  # a set literal: re-read as a body, where `1, 2` is no expression
])
def test_brace_bodies_that_do_not_parse(src: str) -> None:
    with pytest.raises(RegoErrors):
        parse_module("package p\n" + src + "\n", "t.rego")


def test_bodiless_function_heads_are_true_functions() -> None:
    m = parse_module('package p\nparse_bool("1")\nf(_)\ng(x) if x > 1\n', "t.rego")
    heads = [(r.head.name, [sx(a) for a in r.head.args or []], sx(r.head.value)) for r in m.rules]
    assert [(n, v) for n, _, v in heads] == [("parse_bool", "true"), ("f", "true"), ("g", "true")]
    assert heads[0][1] == ['"1"']
    assert [sx(e) for e in m.rules[0].body] == ["true"]


@pytest.mark.parametrize(("src", "message"), [
    ("count(x)", "rule name conflicts with built-in function"),
    ("a.b.c", "needs a value or a body"),
    ("p", "needs a value or a body"),
])
def test_bodiless_heads_that_are_errors(src: str, message: str) -> None:
    with pytest.raises(RegoErrors) as info:
        parse_module("package p\n" + src + "\n", "t.rego")
    assert message in str(info.value)


def test_imports_anywhere_at_the_top_level() -> None:
    m = parse_module("package p\na := 1\nimport data.x\nb := 2\nimport data.y as z\n", "t.rego")
    assert [(sx(i.path), i.alias) for i in m.imports] == [("data.x", None), ("data.y", "z")]
    assert [r.head.name for r in m.rules] == ["a", "b"]


@pytest.mark.parametrize(("text", "want"), [(".5", "#0.5"), ("-.5", "#-0.5"), ("0.5", "#0.5"), ("0e5", "#0e5"),
                                            ("1E3", "#1E3")])
def test_number_literals(text: str, want: str) -> None:
    (e,) = parse_query(f"x := {text}")
    assert sx(e) == f"(assign x {want})"


@pytest.mark.parametrize(("text", "message"), [
    ("01", "expected number without leading zero"), ("-007", "expected number without leading zero"),
    ("00.5", "expected number without leading zero"),
    ("1e30103", "number too big"), ("-1e400000", "number too big"),  # |binary exponent| > 1e5, as OPA
])
def test_numbers_opa_rejects(text: str, message: str) -> None:
    with pytest.raises(RegoErrors) as info:
        parse_query(f"x := {text}")
    assert message in str(info.value)


def test_large_but_allowed_exponents() -> None:
    assert sx(parse_query("x := 1e30102")[0]) == "(assign x #1e30102)"
    assert sx(parse_query("x := 1e-30103")[0]) == "(assign x #1e-30103)"


@pytest.mark.parametrize("src", [
    "p := 1 else := 2",  # `else` follows a body only (OPA reads a bodiless rule as a statement)
    "f(1) else := 2",
    "f(x) := 1 if x > 1 else := 2 else := 3",  # a bodiless `else` ends the chain
])
def test_else_needs_a_body_before_it(src: str) -> None:
    with pytest.raises(RegoErrors) as info:
        parse_module("package p\n" + src + "\n", "t.rego")
    assert "else" in str(info.value)


def test_printer_keeps_the_body_an_else_follows() -> None:
    from cupcake_py.rego.printer import print_module

    src = "package p\n\nf(x) := 1 if { true } else := 2 if { true } else := 3\n"
    m = parse_module(src, "t.rego")
    printed = print_module(m)
    assert parse_module(printed, "u.rego") == m
    assert "else := 2 if" in printed


def test_chained_rule_bodies_are_rules_with_the_same_head() -> None:
    m = parse_module("package p\nq := 1 if { false } { true }\nf(x) if x > 1\n{ x < 0 }\n", "t.rego")
    assert [(r.head.name, sx(r.head.value), [sx(e) for e in r.body]) for r in m.rules] == [
        ("q", "#1", ["false"]), ("q", "#1", ["true"]), ("f", "true", ["(gt x #1)"]), ("f", "true", ["(lt x #0)"])]


@pytest.mark.parametrize("src", [
    "p := 1 if { false } else := 2 if { true } { true }",  # after an else chain: `else` expected
    "p := 1\n{ true }",  # a rule without a body has nothing to chain to
])
def test_chained_bodies_that_are_errors(src: str) -> None:
    with pytest.raises(RegoErrors):
        parse_module("package p\n" + src + "\n", "t.rego")


def test_unpaired_surrogate_escapes_become_replacement_characters() -> None:
    """Go's JSON decoder (OPA's string literals) turns an unpaired `\\uD800` into U+FFFD."""
    (e,) = parse_query('x := ["\\ud800", "a\\udc00", "\\ud83d\\ude00"]')
    assert sx(e) == r'(assign x ["\ufffd" "a\ufffd" "\ud83d\ude00"])'  # sx escapes as JSON does


@pytest.mark.parametrize(("hole", "what"), [
    ("some x", "'some'"), ("every x in [1] { true }", "'every'"), ("not true", "negation ('not')"),
    ("x := 1", "assignment (':=')"), ("x = 1", "unification ('=')"),
])
def test_template_holes_refuse_what_opa_refuses(hole: str, what: str) -> None:
    with pytest.raises(RegoErrors) as info:
        parse_query(f'x := $"a{{{hole}}}b"')
    assert f"unexpected {what} in template-string expression" in str(info.value)
