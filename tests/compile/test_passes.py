"""Compile passes: resolution, renaming, flattening, safety ordering and the checks."""

from __future__ import annotations

import pytest

from cupcake_py.rego import parse_module, parse_query
from cupcake_py.rego.compile import check_modules, compile_modules, compile_query
from cupcake_py.rego.compile.listing import print_compiled
from cupcake_py.rego.errors import RegoErrors
from cupcake_py.rego.printer import print_body


def compiled_text(src: str) -> str:
    return print_compiled(compile_modules([parse_module(src, "m.rego")]))


def errors(src: str) -> list[str]:
    return [f"{e.location.row}:{e.location.col} {e.code}: {e.message}" if e.location else e.message
            for e in check_modules([parse_module(src, "m.rego")])]


def test_safety_reorders_body_so_vars_are_bound_first() -> None:
    out = compiled_text("package a\np if { y = x; x = 1 }\n")
    assert "{ x = 1; y = x }" in out


def test_safety_orders_negation_after_binding() -> None:
    out = compiled_text("package a\np if { not x == 2; x = input.v }\n")
    body = out.split("if {")[1]
    assert body.index("input.v") < body.index("not")


def test_comprehension_waits_for_closed_over_var() -> None:
    out = compiled_text("package a\np := c if { c := count([v | v := xs[_]]); xs = input.a }\n")
    body = out.split("if {")[1]
    assert body.index("input.a") < body.index("count(")


@pytest.mark.parametrize(("src", "want"), [
    ("package a\np if { y > 1 }\n", "2:8 rego_unsafe_var_error: var y is unsafe"),
    ("package a\np if { not x }\n", "2:8 rego_unsafe_var_error: var x is unsafe"),
    ("package a\np := y if { true }\n", "2:1 rego_unsafe_var_error: var y is unsafe"),
    ("package a\np if { x := 1; x := 2 }\n", "2:16 rego_compile_error: var x assigned above"),
    ("package a\np if { x = 1; x := 2 }\n", "2:15 rego_compile_error: var x referenced above"),
    ("package a\np if { nosuchfn(1) }\n", "2:8 rego_type_error: undefined function nosuchfn"),
    ("package a\np if { count(1, 2, 3) }\n", "2:8 rego_type_error: count: arity mismatch"),
    ("package a\np if q\nq if p\n", "rego_recursion_error: rule data.a.p is recursive: data.a.p -> data.a.q -> data.a.p"),
    ("package a\np := 1\np contains 2\n", "rego_type_error: conflicting rules data.a.p found"),
    ("package a\ndefault p := 1\ndefault p := 2\n", "rego_type_error: multiple default rules data.a.p found"),
    ("package a\nf(x) := 1\nf(x, y) := 2\n", "rego_type_error: conflicting rules data.a.f found"),
])
def test_errors(src: str, want: str) -> None:
    got = errors(src)
    assert any(want in g for g in got), got


def test_clean_module_has_no_errors() -> None:
    assert errors("package a\nimport rego.v1\np contains x if { some x in input.xs; x > 1 }\n") == []


def test_declared_locals_are_renamed_per_scope() -> None:
    out = compiled_text("package a\np := [x, ys] if { x := 1; ys := [x | some x in input.a] }\n")
    assert "__local" in out
    # the comprehension's x is a different variable from the outer x
    inner = out[out.index("[") + 1:]
    assert out.count("__local1__") >= 2 and "__local1__ | " not in inner


def test_flatten_nested_calls_into_temporaries() -> None:
    out = compiled_text("package a\np := x if { x := count(input.a) + 1 }\n")
    assert "count(input.a, __t" in out and "plus(__t" in out


def test_import_alias_and_rule_refs_resolve_to_data() -> None:
    out = compiled_text("package a\nimport data.lib.x as z\nimport input.user\n"
                        "q := 1\np if { z.y == user; q == 1 }\n")
    assert "data.lib.x.y" in out and "input.user" in out and "data.a.q" in out


def test_some_in_and_every_lowering() -> None:
    out = compiled_text("package a\np if { some k, v in input.o; every x in input.xs { x > k } ; v }\n")
    assert "= input.o[" in out and "every " in out


def test_print_and_template_string_lowering() -> None:
    out = compiled_text('package a\np := s if { print("x", input.a); s := $"v={input.a}" }\n')
    assert "internal.print([{" in out and "internal.template_string([" in out


def test_ref_heads_group_into_one_object_document() -> None:
    out = compiled_text("package a\np[q].r := 1 if q := input.k\np.d := 2\n")
    assert out.count("object data.a.p") == 2


def test_query_keeps_user_var_names() -> None:
    c = compile_modules([parse_module("package a\np := 1\n", "m.rego")])
    body = compile_query(parse_query("data.a.p = x; y := x"), c)
    assert print_body(body) == "data.a.p = x; y = x"


def test_compile_modules_raises_all_errors() -> None:
    with pytest.raises(RegoErrors) as exc:
        compile_modules([parse_module("package a\np if { y }\nq if { z }\n", "m.rego")])
    assert [e.message for e in exc.value.errors] == ["var y is unsafe", "var z is unsafe"]


@pytest.mark.parametrize(("src", "want"), [
    ("package a\np if { count(1) > 0 }\n", "count: invalid argument(s)"),
    ('package a\np if { upper(["x"]) }\n', "upper: invalid argument(s)"),
    ("package a\np if { startswith(1, \"a\") }\n", "startswith: invalid argument(s)"),
])
def test_constant_argument_type_errors(src: str, want: str) -> None:
    assert any(want in g for g in errors(src)), errors(src)


def test_well_typed_constants_pass() -> None:
    assert errors('package a\np if { count([1]) > 0; upper("x") == "X"; concat(",", {"a"}) }\n') == []


@pytest.mark.parametrize(("src", "want"), [
    ("package a\nr := {\"s\": 1}\np if { r with data.a.r.s as 2 }\n",
     "with keyword cannot partially replace virtual document(s)"),
    ("package a\np if { true with nosuch as 2 }\n",
     "with keyword target must reference existing input, data, or a function"),
])
def test_with_target_errors(src: str, want: str) -> None:
    assert any(want in g for g in errors(src)), errors(src)
