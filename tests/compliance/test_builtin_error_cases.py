"""Our own compliance-format cases for issue 16's builtin-error class (tests/compliance/cases/
builtin_errors/): a builtin that fails at run time makes its call undefined (OPA's default, and
`opa test`'s), in negations, comprehensions, defaults and `every`. Run from source."""

from __future__ import annotations

from pathlib import Path

from .run import run_suite

CASES = Path(__file__).parent / "cases" / "builtin_errors"


def test_builtin_error_cases_pass_from_source() -> None:
    results = run_suite(CASES, "source", jobs=1)
    assert len(results) >= 4
    assert [(r.note, r.reason) for r in results if r.status != "passed"] == []
