"""Shared pure builtin calls (plan/shared_calls.py): a pure call on input refs and constants
appearing in two or more places runs once per evaluation through one memoized function, with
exactly the semantics of the direct call (undefined arguments, builtin errors in default and
strict mode, `with input` scopes), and the output stays deterministic."""

from __future__ import annotations

from typing import Any

import pytest

from cupcake_py import ir
from cupcake_py.plan import compile_query
from cupcake_py.wasm import compile_policy

host = pytest.importorskip("cupcake_py.host")

TWO_POLICIES = [
    'package a\nimport rego.v1\np if { some w in split(input.cmd, " "); w == "rm" }\n',
    'package b\nimport rego.v1\nq contains w if { some w in split(input.cmd, " "); startswith(w, "-") }\n',
]


def shared(policy: ir.Policy) -> list[str]:
    return sorted(f.name for f in policy.funcs if f.name.startswith("shared."))


def calls(policy: ir.Policy, name: str) -> int:
    """How many CallStmts of `name` the policy holds."""
    n = 0

    def walk(stmts: tuple[ir.Stmt, ...]) -> None:
        nonlocal n
        for s in stmts:
            if isinstance(s, ir.CallStmt) and s.func == name:
                n += 1
            for b in getattr(s, "blocks", ()) or ():
                walk(b.stmts)
            if (b := getattr(s, "block", None)) is not None:
                walk(b.stmts)

    for f in policy.funcs:
        for b in f.blocks:
            walk(b.stmts)
    for p in policy.plans:
        for b in p.blocks:
            walk(b.stmts)
    return n


def run(modules: list[str], query: str, inp: Any, strict: bool = False) -> list[Any]:
    wasm = compile_policy(compile_query(modules, query))
    opts = host.HostOptions(strict=strict) if strict else None
    return list(host.load_policy(wasm, {}, options=opts).eval("eval", inp))


def test_a_call_in_two_policies_is_planned_once() -> None:
    p = compile_query(TWO_POLICIES, "x = [data.a.p, data.b.q]")
    assert shared(p) == ["shared.0.split"]
    assert calls(p, "split") == 1 and calls(p, "shared.0.split") == 2
    f = next(f for f in p.funcs if f.name == "shared.0.split")
    assert f.params == (0, 1) and f.path == ()  # memoized by the runtime, never a data document
    assert run(TWO_POLICIES, "x = [data.a.p, data.b.q]", {"cmd": "rm -rf x"}) == [{"x": [True, ["-rf"]]}]


def test_a_call_in_one_place_stays_direct() -> None:
    p = compile_query(TWO_POLICIES[:1], "x = data.a.p")
    assert shared(p) == [] and calls(p, "split") == 1


def test_different_arguments_are_different_calls() -> None:
    mods = ['package a\np := split(input.cmd, " ")\nq := split(input.cmd, ",")\nr := split(input.other, " ")\n'
            's := split(input.cmd, " ")\n']
    p = compile_query(mods, "x = data.a")
    assert shared(p) == ["shared.0.split"]
    got = run(mods, "x = data.a", {"cmd": "a b,c", "other": "d e"})
    assert got == [{"x": {"p": ["a", "b,c"], "q": ["a b", "c"], "r": ["d", "e"], "s": ["a", "b,c"]}}]


def test_with_input_inside_a_rule_sees_the_replaced_input() -> None:
    mods = ['package a\nimport rego.v1\nw := split(input.cmd, " ")\n'
            'v := split(input.cmd, " ")\n'
            'm := y if { y := split(input.cmd, " ") with input as {"cmd": "x y z"} }\n'
            'n := y if { y := split(input.cmd, " ") with input.cmd as "p q" }\n'
            'o := [w, v, m, n, split(input.cmd, " ")]\n']
    p = compile_query(mods, "x = data.a.o")
    assert shared(p) == ["shared.0.split"]
    assert run(mods, "x = data.a.o", {"cmd": "a b"}) == [
        {"x": [["a", "b"], ["a", "b"], ["x", "y", "z"], ["p", "q"], ["a", "b"]]}]


def test_an_undefined_argument_makes_every_use_undefined() -> None:
    mods = ['package a\nimport rego.v1\ndefault p := "none"\np := concat("-", split(input.cmd, " "))\n'
            'default q := "none"\nq := count(split(input.cmd, " "))\n']
    p = compile_query(mods, "x = data.a")
    assert shared(p) == ["shared.0.split"]
    assert run(mods, "x = [data.a.p, data.a.q]", {"other": 1}) == [{"x": ["none", "none"]}]
    assert run(mods, "x = [data.a.p, data.a.q]", {"cmd": "a b"}) == [{"x": ["a-b", 2]}]


ERRORING = ['package a\nimport rego.v1\ndefault p := "fallback"\np := regex.split(input.re, "a b")\n'
            'default q := "fallback"\nq := count(regex.split(input.re, "a b"))\n']


def test_a_builtin_error_is_undefined_by_default() -> None:
    assert shared(compile_query(ERRORING, "x = data.a")) == ["shared.0.regex.split"]
    assert run(ERRORING, "x = [data.a.p, data.a.q]", {"re": "("}) == [{"x": ["fallback", "fallback"]}]
    assert run(ERRORING, "x = [data.a.p, data.a.q]", {"re": " "}) == [{"x": [["a", "b"], 2]}]


def test_a_builtin_error_raises_in_strict_mode_as_the_direct_call_does() -> None:
    from cupcake_py.host import errors as E

    direct = [ERRORING[0].split("default q")[0]]  # one place: planned as a direct call
    assert shared(compile_query(direct, "x = data.a")) == []
    with pytest.raises(E.HostError) as want:
        run(direct, "x = data.a.p", {"re": "("}, strict=True)
    with pytest.raises(E.HostError) as got:
        run(ERRORING, "x = [data.a.p, data.a.q]", {"re": "("}, strict=True)
    assert type(got.value) is type(want.value) and str(got.value) == str(want.value)


def test_a_type_error_is_still_reported_at_compile_time() -> None:
    from cupcake_py.rego.errors import RegoErrors

    mods = ['package a\np := split(input.cmd, 5)\nq := split(input.cmd, 5)\n']
    with pytest.raises(RegoErrors, match="rego_type_error"):
        compile_query(mods, "x = data.a")


@pytest.mark.parametrize("call", ["time.now_ns()", "rand.intn(input.s, 10)", "uuid.rfc4122(input.s)",
                                  'contains(input.s, "a")', "count(input.s)"])
def test_impure_and_cheap_builtins_are_not_shared(call: str) -> None:
    mods = [f"package a\np := {call}\nq := {call}\n"]
    p = compile_query(mods, "x = data.a")
    assert shared(p) == []


def test_calls_on_local_vars_or_data_are_not_shared() -> None:
    mods = ['package a\nimport rego.v1\np if { s := input.cmd; split(s, " ") }\nq if { s := input.cmd; split(s, " ") }\n'
            'r := split(data.c.s, " ")\ns := split(data.c.s, " ")\n']
    assert shared(compile_query(mods, "x = data.a")) == []


def test_output_is_byte_identical_across_compiles() -> None:
    mods = TWO_POLICIES + ['package c\nimport rego.v1\nr := lower(input.cmd)\ns := lower(input.cmd)\n'
                           't := trim_space(input.cmd)\nu := trim_space(input.cmd)\n']
    q = "x = [data.a.p, data.b.q, data.c]"
    first = compile_policy(compile_query(mods, q))
    assert shared(compile_query(mods, q)) == ["shared.0.split", "shared.1.lower", "shared.2.trim_space"]
    for _ in range(2):
        assert compile_policy(compile_query(mods, q)) == first


def test_a_mocked_builtin_is_called_as_mocked_and_the_rest_stay_shared() -> None:
    mods = ['package a\nimport rego.v1\np := lower(input.s)\nq := lower(input.s)\n'
            'm := y if { y := p with lower as upper }\n'
            'v := y if { y := q with lower as "fixed" }\n'
            'o := [p, m, v, q]\n']
    assert shared(compile_query(mods, "x = data.a.o")) == ["shared.0.lower"]
    assert run(mods, "x = data.a.o", {"s": "Ab"}) == [{"x": ["ab", "AB", "fixed", "ab"]}]
