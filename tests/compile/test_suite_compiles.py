"""Every module and query of OPA's compliance suite compiles and plans without error (no
case expects a rego_* error)."""

from __future__ import annotations

import json

import pytest

from tests.compliance.suite import DEFAULT_SUITE

SUITE = DEFAULT_SUITE  # $CUPCAKE_COMPLIANCE_SUITE or <repo>/../shared/rego-compliance/v1


def _cases() -> list[tuple[str, dict]]:
    out = []
    for f in sorted(SUITE.glob("*/*.json")):
        for c in json.loads(f.read_text())["cases"]:
            out.append((f.parent.name, c))
    return out


@pytest.mark.skipif(not SUITE.is_dir(), reason="compliance suite not present next to the repo")
def test_every_suite_case_compiles_and_plans() -> None:
    from cupcake_py.plan import compile_query

    failures = []
    cases = _cases()
    for topic, c in cases:
        try:
            compile_query(c["modules"], c["query"])
        except Exception as e:  # noqa: BLE001 - collect every failure with its case
            failures.append(f"{topic}: {c['note']}: {type(e).__name__}: {str(e)[:200]}")
    assert len(cases) > 1000
    assert failures == []
