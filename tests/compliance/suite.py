"""The OPA v1 compliance cases, read from <repo>/../shared/rego-compliance/v1 (never copied);
$CUPCAKE_COMPLIANCE_SUITE names another place (a git worktree one level deeper)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from cupcake_py.core import values

DEFAULT_SUITE = Path(os.environ.get("CUPCAKE_COMPLIANCE_SUITE")
                     or Path(__file__).resolve().parents[2].parent / "shared" / "rego-compliance" / "v1")

# OPA's own Wasm run skips these (OPA test/cases exceptions.yaml), with OPA's reasons.
OPA_EXCEPTIONS: dict[str, str] = {
    "functions/default": "default functions are not supported by OPA's topdown/wasm",
    "data/toplevel integer": "base data keyed by \"2\" looked up with the number 2 (OPA issue 3711)",
    "data/nested integer": "base data keyed by \"2\" looked up with the number 2 (OPA issue 3711)",
    "withkeyword/function: indirect call, arity 1, replacement is value that needs eval (array comprehension)":
        "OPA issue 5311",
    "withkeyword/builtin: indirect call, arity 1, replacement is value that needs eval (array comprehension)":
        "OPA issue 5311",
}


def iter_cases(suite: Path, substr: str | None = None) -> Iterator[dict[str, Any]]:
    """Every case (numbers exact: ints and Decimals), in file order, optionally filtered by note."""
    for path in sorted(suite.rglob("*.json")):
        doc = values.parse_json(path.read_bytes())
        for case in doc.get("cases") or []:
            if substr is None or substr in case.get("note", ""):
                case["_file"] = str(path.relative_to(suite))
                yield case
