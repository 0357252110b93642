"""Safety of variables bound only by a ref position (OPA's ref output vars): in `x == input.xs[x]`
the ref iterates and binds x, wherever the ref sits in the expression and wherever the
expression sits in the body; a variable no ref or unification binds stays unsafe."""

from __future__ import annotations

import pytest

from cupcake_py.rego import parse_module
from cupcake_py.rego.compile import check_modules
from cupcake_py.rego.errors import UNSAFE_VAR


def _unsafe(body: str) -> list[str]:
    module = parse_module(f"package p\n\nr contains x if {{\n\t{body}\n}}\n", "p.rego")
    return [e.message for e in check_modules([module]) if e.code == UNSAFE_VAR]


@pytest.mark.parametrize("body", [
    "some x; x == input.xs[x]",
    "x == input.xs[x]",
    "input.xs[x] == x",
    "x != input.m[x][0]",
    "x < count(input.m[x])",
    "[x, input.xs[x]]",
    "{\"k\": x} == {\"k\": input.xs[x]}",
    "y := x + 1; x == input.xs[x]",  # reordered: the ref binds x first
    "z := [w | w := x]; x = input.xs[x]",  # a closure needing x waits for the ref
    "x = input.xs[x]",
])
def test_ref_position_binds(body: str) -> None:
    assert _unsafe(body) == []


@pytest.mark.parametrize(("body", "var"), [
    ("x == y", "x"),
    ("x == input.xs[y]; y == 1", "x"),  # the ref binds y, not x
    ("not input.xs[x]", "x"),  # negation binds nothing
])
def test_unbound_stays_unsafe(body: str, var: str) -> None:
    assert f"var {var} is unsafe" in _unsafe(body)
