"""A body whose first expression is a top-level union prints parenthesized: `p if { a | b }`
would read back as a set comprehension (OPA reads a brace after `if` as a literal first)."""

from __future__ import annotations

import pytest

from cupcake_py.rego import parse_module
from cupcake_py.rego.printer import print_module


@pytest.mark.parametrize("body", ["(null | null)", "({1} | {2}) with input as 1\n\tinput.c", "(input.a | input.b)"])
def test_union_first_in_a_body_round_trips(body: str) -> None:
    m = parse_module(f"package x\n\np if {{\n\t{body}\n}}\n", "x.rego")
    printed = print_module(m)
    assert parse_module(printed, "y.rego") == m, printed
    assert "p if {\n\t(" in printed
