"""Shared helpers for the Rego front-end tests: the compliance corpus and an s-expression view
of AST nodes for compact, table-driven assertions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from cupcake_py.rego import ast as A

COMPLIANCE = Path(__file__).resolve().parents[2].parent / "shared" / "rego-compliance" / "v1"


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


def sx(node: Any) -> str:
    """Compact rendering: calls as `(op a b)`, refs as `a.b[c]`, strings quoted, `not`/`with` kept."""
    if isinstance(node, A.Term):
        return sx(node.value)
    if isinstance(node, A.Var):
        return node.name
    if isinstance(node, A.String):
        return json.dumps(node.value)
    if isinstance(node, A.Number):
        return "#" + node.text
    if isinstance(node, A.Boolean):
        return "true" if node.value else "false"
    if isinstance(node, A.Null):
        return "null"
    if isinstance(node, A.Ref):
        out = sx(node.terms[0])
        for t in node.terms[1:]:
            v = t.value
            out += f".{v.value}" if isinstance(v, A.String) and v.value.isidentifier() else f"[{sx(t)}]"
        return out
    if isinstance(node, A.Call):
        return "(" + " ".join([node.name or sx(node.operator), *(sx(a) for a in node.args)]) + ")"
    if isinstance(node, A.Array):
        return "[" + " ".join(sx(x) for x in node.items) + "]"
    if isinstance(node, A.Set):
        return "{" + " ".join(sx(x) for x in node.items) + "}"
    if isinstance(node, A.Object):
        return "{" + " ".join(f"{sx(k)}:{sx(v)}" for k, v in node.items) + "}"
    if isinstance(node, A.ArrayComprehension):
        return f"[{sx(node.term)} | {sx(node.body)}]"
    if isinstance(node, A.SetComprehension):
        return f"{{{sx(node.term)} | {sx(node.body)}}}"
    if isinstance(node, A.ObjectComprehension):
        return f"{{{sx(node.key)}:{sx(node.value)} | {sx(node.body)}}}"
    if isinstance(node, A.TemplateString):
        return "$(" + " ".join(sx(p) for p in node.parts) + ")"
    if isinstance(node, A.SomeDecl):
        return "(some " + " ".join(sx(s) for s in node.symbols) + ")"
    if isinstance(node, A.Every):
        key = sx(node.key) + " " if node.key else ""
        return f"(every {key}{sx(node.value)} {sx(node.domain)} {sx(node.body)})"
    if isinstance(node, A.Expr):
        t = node.terms
        if isinstance(t, list):
            text = "(" + " ".join([A.operator_name(t[0]) or sx(t[0]), *(sx(x) for x in t[1:])]) + ")"
        else:
            text = sx(t)
        if node.negated:
            text = f"(not {text})"
        for w in node.with_:
            text += f" with {sx(w.target)}={sx(w.value)}"
        return text
    if isinstance(node, list):
        return "; ".join(sx(x) for x in node)
    raise TypeError(type(node))
