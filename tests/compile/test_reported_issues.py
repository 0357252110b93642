"""Regression tests for issues other sessions reported against the front end:
* `with contains as mock` must parse, check and plan (contains is a plain name in terms);
* an arity error must not be followed by an unsafe compiler temporary (`__t1__`), and its
  `have:` detail counts only the arguments the user wrote;
* a METADATA block followed by a rule line ending in a comment attaches to that rule;
plus OPA behaviours the checks must not reject: repeated function arguments, import
shadowing by a local, keywords in refs."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
import typer
from typer.testing import CliRunner

from cupcake_py.cli import rego as rego_cli
from cupcake_py.rego import parse_module
from cupcake_py.rego.compile import check_modules, compile_modules, compile_query
from cupcake_py.rego.errors import RegoErrors


def check(src: str) -> list[str]:
    return [f"{e.location.row}:{e.location.col} {e.code}: {e.message}" if e.location else e.message
            for e in check_modules([parse_module(src, "m.rego")])]


MOCK = """package a
mock_false(_, _) := false
p if contains(input.x, "y")
test_m if { not p with contains as mock_false }
test_n if { p with contains as mock_false with input.x as "y" }
"""


def test_with_contains_as_mock_parses_checks_and_plans() -> None:
    module = parse_module(MOCK, "m.rego")
    w = module.rules[2].body[0].with_[0]
    assert w.target.value.name == "contains"  # type: ignore[union-attr]
    assert check_modules([module]) == []
    from cupcake_py.plan import compile_query as plan

    assert plan([MOCK], "data.a.test_m = x") is not None


@pytest.mark.parametrize("src", [
    "package a\np if { contains := 1; contains == 1 }\n",      # a local named contains
    "package a\np := input.contains\nq := data.a.contains\n",  # keyword refs
    "package a\np := x if { x := [contains(\"ab\", \"a\")] }\n",
])
def test_contains_as_a_name(src: str) -> None:
    assert check(src) == []


def test_contains_still_a_keyword_in_rule_heads() -> None:
    m = parse_module("package a\nd contains 1\n", "m.rego")
    assert m.rules[0].head.key is not None


ARITY = "package a\np if {\n\tcount(input.tool_input.command, 2) > 1\n}\n"


def test_arity_error_has_no_unsafe_temporary_follow_up() -> None:
    errors = check_modules([parse_module(ARITY, "m.rego")])
    assert [(e.code, e.message) for e in errors] == [("rego_type_error", "count: arity mismatch")]
    assert errors[0].details[0] == "have: (any, number)"  # the output operand is not counted


def test_cupcake_check_cli_shows_only_the_arity_error(tmp_path: Path) -> None:
    f = tmp_path / "m.rego"
    f.write_text(ARITY)
    app = typer.Typer()
    app.callback()(lambda: None)
    rego_cli.register(app)
    res = CliRunner().invoke(app, ["check", "--format", "json", str(f)])
    assert res.exit_code == 1
    errors = orjson.loads(res.stdout)["errors"]
    assert [e["message"] for e in errors] == ["count: arity mismatch"]
    assert errors[0]["details"][0] == "have: (any, number)"


def test_temporaries_never_named_when_only_they_are_unsafe() -> None:
    """Every user var is safe but a generated one is not: OPA says `expression is unsafe`."""
    from cupcake_py.rego.compile.safety import Safety
    from cupcake_py.rego.compile.walk import Names
    from cupcake_py.rego.errors import RegoError

    names = Names()
    s = Safety(lambda _ref: None, names)
    loc = parse_module("package a\np := 1\n", "m.rego").rules[0].location
    s._error(names.temp(), loc)
    out: list[RegoError] = []
    s.flush(out)
    assert [(e.code, e.message) for e in out] == [("rego_unsafe_var_error", "expression is unsafe")]


def test_metadata_before_rule_with_trailing_comment() -> None:
    m = parse_module("package a\n# METADATA\n# title: T\np := 1 # tail\n", "p.rego")
    assert m.rules[0].annotations[0].title == "T"


def test_repeated_function_args_unify_like_opa() -> None:
    src = "package a\nsame(x, x) := true\nr1 := same(1, 1)\nr2 if not same(1, 2)\n"
    assert check(src) == []
    compiled = compile_modules([parse_module(src, "m.rego")])
    args = compiled.groups[("a", "same")].rules[0].args or []
    assert len({a.value.name for a in args}) == 2  # type: ignore[union-attr]  # second x: a compared temp


def test_local_may_shadow_an_import_like_opa() -> None:
    assert check("package a\nimport data.lib.x\np if { x := 1; x == 1 }\n") == []


def test_package_conflicting_with_a_rule() -> None:
    a = parse_module("package a\np := 1\n", "a.rego")
    b = parse_module("package a.p\nq := 1\n", "b.rego")
    errors = check_modules([a, b])
    assert [(e.message, str(e.location)) for e in errors] == [
        ("package a.p conflicts with rule p defined at a.rego:2", "a.rego:1:1"),
        ("rule data.a.p conflicts with [data.a.p.q]", "a.rego:2:1")]


def test_query_errors_use_the_same_stages() -> None:
    c = compile_modules([parse_module("package a\np := 1\n", "m.rego")])
    from cupcake_py.rego import parse_query

    with pytest.raises(RegoErrors) as exc:
        compile_query(parse_query("count(data.a.p, 1, 2, 3); y > 1"), c)
    assert [e.message for e in exc.value.errors] == ["count: arity mismatch"]
    with pytest.raises(RegoErrors) as exc:
        compile_query(parse_query("some k; data.a.p == 1"), c)
    assert [e.message for e in exc.value.errors] == ["declared var k unused"]


@pytest.mark.parametrize(("src", "want"), [
    ("package a\np if { x := 1; y := [x | x := 2] }\n", []),  # shadowing in a new scope is fine
    ("package a\np if { some x in input.a; some x in input.b }\n", ["2:27 rego_compile_error: var x declared above"]),
    ("package a\nf(x) := x\np := f(1)\nq := f\n", []),
    ("package a\np if { every x in input.a { some y } }\n", ["2:29 rego_compile_error: declared var y unused"]),
])
def test_local_declarations(src: str, want: list[str]) -> None:
    assert check(src) == want
