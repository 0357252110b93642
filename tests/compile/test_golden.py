"""Golden compile errors: every `golden/<name>.rego` is an erroneous policy; the errors the
front end reports for it (parse errors, else the compile checks) must equal
`golden/<name>.expected.json` exactly: [{code, message, file, row, col[, details]}].

Messages, codes and locations follow OPA's compiler; see golden/README.md for the source of
each message. Regenerate (after checking every diff by hand!) with
`CUPCAKE_GOLDEN_UPDATE=1 .venv/bin/pytest tests/compile/test_golden.py`."""

from __future__ import annotations

import os
from pathlib import Path

import orjson
import pytest

from cupcake_py.rego import parse_module
from cupcake_py.rego.compile import check_modules
from cupcake_py.rego.errors import CODES, MAX_ERRORS, RegoError, RegoErrors

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p.stem for p in GOLDEN.glob("*.rego"))


def reported(name: str) -> list[dict[str, object]]:
    text = (GOLDEN / f"{name}.rego").read_text()
    try:
        errors: list[RegoError] = check_modules([parse_module(text, f"{name}.rego")])
    except RegoErrors as exc:
        errors = list(exc.errors)
    out: list[dict[str, object]] = []
    for e in errors:
        assert e.location is not None, e
        d: dict[str, object] = {"code": e.code, "message": e.message, "file": e.location.file,
                                "row": e.location.row, "col": e.location.col}
        if e.details:
            d["details"] = list(e.details)
        out.append(d)
    return out


@pytest.mark.parametrize("name", CASES)
def test_golden(name: str) -> None:
    got = reported(name)
    expected_file = GOLDEN / f"{name}.expected.json"
    if os.environ.get("CUPCAKE_GOLDEN_UPDATE"):
        expected_file.write_bytes(orjson.dumps(got, option=orjson.OPT_INDENT_2) + b"\n")
    assert got == orjson.loads(expected_file.read_bytes())


def test_golden_set_is_complete() -> None:
    """At least 30 cases, each with its expectation, each with 1..10 errors of known codes."""
    assert len(CASES) >= 30
    for name in CASES:
        expected = orjson.loads((GOLDEN / f"{name}.expected.json").read_bytes())
        assert 1 <= len(expected) <= MAX_ERRORS, name
        assert all(e["code"] in CODES for e in expected), name
    assert not [p for p in GOLDEN.glob("*.expected.json") if p.name.removesuffix(".expected.json") not in CASES]
