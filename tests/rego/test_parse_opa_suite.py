"""Every module, query and input_term of OPA's Rego v1 compliance suite parses, and every
module survives print -> parse unchanged."""

from __future__ import annotations

from typing import Any

from cupcake_py.rego import parse_module, parse_query, parse_term
from cupcake_py.rego.errors import RegoErrors
from cupcake_py.rego.printer import print_body, print_module, print_term


def _failures(cases: list[dict[str, Any]]) -> tuple[int, list[str]]:
    total = 0
    failed: list[str] = []
    for case in cases:
        for i, text in enumerate(case.get("modules") or []):
            total += 1
            try:
                parse_module(text, f"{case['note']}#{i}")
            except RegoErrors as exc:
                failed.append(f"{case['note']}#{i}: {exc}")
    return total, failed


def test_all_compliance_modules_parse(cases: list[dict[str, Any]]) -> None:
    total, failed = _failures(cases)
    assert total >= 1900, f"only {total} modules found"
    assert failed == [], f"{len(failed)}/{total} modules failed:\n" + "\n".join(failed[:20])


def test_all_compliance_queries_and_input_terms_parse(cases: list[dict[str, Any]]) -> None:
    n_terms = 0
    for case in cases:
        body = parse_query(case["query"])
        assert parse_query(print_body(body)) == body, case["note"]
        if "input_term" in case:
            n_terms += 1
            term = parse_term(case["input_term"])
            assert parse_term(print_term(term)) == term, case["note"]
    assert n_terms > 50


def test_compliance_modules_round_trip_through_printer(cases: list[dict[str, Any]]) -> None:
    for case in cases:
        for text in case.get("modules") or []:
            module = parse_module(text, "a.rego")
            printed = print_module(module)
            assert parse_module(printed, "b.rego") == module, f"{case['note']}:\n{printed}"
