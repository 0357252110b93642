"""Shared helpers for the Rego front-end tests: the compliance corpus and an s-expression view
of AST nodes for compact, table-driven assertions."""

from __future__ import annotations

import json
from typing import Any

import pytest

from cupcake_py.rego import ast as A
from cupcake_py.rego.printer import Printer
from tests.compliance.suite import DEFAULT_SUITE

COMPLIANCE = DEFAULT_SUITE  # $CUPCAKE_COMPLIANCE_SUITE or <repo>/../shared/rego-compliance/v1


def compliance_cases() -> list[dict[str, Any]]:
    cases = []
    for f in sorted(COMPLIANCE.rglob("*.json")):
        cases.extend(json.loads(f.read_text())["cases"])
    return cases


@pytest.fixture(scope="session")
def cases() -> list[dict[str, Any]]:
    found = compliance_cases()
    if not found:
        pytest.fail(f"compliance suite not found at {COMPLIANCE}")
    return found


class SExprPrinter(Printer):
    """The s-expression view: calls as `(op a b)` (structure visible), numbers as `#text`, strings
    as JSON (ASCII escapes), collections space-separated, `not`/`with`/`some`/`every` kept.
    A mode of the one Rego printer: only the spellings that differ are overridden."""

    def __init__(self) -> None:
        super().__init__(inline=True)

    def string(self, v: A.String, min_prec: int) -> str:
        return json.dumps(v.value)

    def number(self, v: A.Number, min_prec: int) -> str:
        return "#" + v.text

    def ref(self, r: A.Ref) -> str:
        out = self.term(r.terms[0])
        for t in r.terms[1:]:
            v = t.value
            out += f".{v.value}" if isinstance(v, A.String) and v.value.isidentifier() else f"[{self.term(t)}]"
        return out

    def call_term(self, c: A.Call, min_prec: int) -> str:
        return "(" + " ".join([c.name or self.ref(c.operator), *(self.term(a) for a in c.args)]) + ")"

    def items(self, terms: list[A.Term]) -> str:
        return " ".join(self.term(x) for x in terms)

    def set(self, v: A.Set, min_prec: int) -> str:
        return "{" + self.items(v.items) + "}"

    def pair(self, k: A.Term, v: A.Term, min_prec: int = 0) -> str:
        return f"{self.term(k)}:{self.term(v)}"

    def object(self, v: A.Object, min_prec: int) -> str:
        return "{" + " ".join(self.pair(k, x) for k, x in v.items) + "}"

    def template(self, v: A.TemplateString, min_prec: int) -> str:
        return "$(" + " ".join(self.expr(p, 0) if isinstance(p, A.Expr) else self.term(p) for p in v.parts) + ")"

    def some(self, s: A.SomeDecl, depth: int = 0) -> str:
        return "(some " + " ".join(self.term(x) for x in s.symbols) + ")"

    def every(self, t: A.Every, depth: int) -> str:
        key = self.term(t.key) + " " if t.key else ""
        return f"(every {key}{self.term(t.value)} {self.term(t.domain)} {self.inline_body(t.body)})"

    def call_expr(self, terms: list[A.Term]) -> str:
        return "(" + " ".join([A.operator_name(terms[0]) or self.term(terms[0]), *(self.term(x) for x in terms[1:])]) + ")"

    def expr(self, e: A.Expr, depth: int, opens_block: bool = False) -> str:
        return super().expr(e, depth)  # no parentheses for a leading `|`: calls show their structure

    def negated(self, text: str) -> str:
        return f"(not {text})"

    def with_modifier(self, w: A.With) -> str:
        return f" with {self.term(w.target)}={self.term(w.value)}"


_SX = SExprPrinter()


def sx(node: Any) -> str:
    """The s-expression view of a body (list), expression, term or term value."""
    if isinstance(node, list):
        return _SX.inline_body(node)
    if isinstance(node, A.Expr):
        return _SX.expr(node, 0)
    return _SX.term(node if isinstance(node, A.Term) else A.Term(node))
