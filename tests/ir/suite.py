"""Access to the OPA compliance plans (read from <repo>/../shared/rego-compliance/v1)."""

from __future__ import annotations

import functools
import json
from typing import Any

from tests.compliance.suite import DEFAULT_SUITE

SUITE = DEFAULT_SUITE  # $CUPCAKE_COMPLIANCE_SUITE or <repo>/../shared/rego-compliance/v1


@functools.cache
def plans() -> tuple[tuple[str, dict[str, Any]], ...]:
    """(note, plan JSON) of every suite case that carries a plan, in a stable order."""
    out = []
    for path in sorted(SUITE.rglob("*.json")):
        for case in json.loads(path.read_text())["cases"]:
            if case.get("plan") is not None:
                out.append((case["note"], case["plan"]))
    return tuple(out)
