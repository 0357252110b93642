"""`make demo` shows, under any row that differs from its case file, the expected answer and both
reasons in full (never clipped), through the real `cupcake eval` process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cupcake_py.harness.claude.demo import claude_answer
from cupcake_py.harness.demo import main
from cupcake_py.harness.examples import examples_dir

LONG = "a reason long enough that the table would clip it: " + "x" * 300


@pytest.mark.parametrize(("harness", "case", "answer"), [
    ("opencode", "bash-cat-env-denied", None), ("claude", "bash-cat-env-global-deny", claude_answer)])
def test_a_differing_row_shows_expected_and_full_reasons(harness: str, case: str, answer: object, tmp_path: Path,
                                                         capsys: pytest.CaptureFixture[str]) -> None:
    raw = json.loads((examples_dir(harness) / "cases" / f"{case}.json").read_text())
    if harness == "opencode":
        raw["expect"] = {"decision": "allow", "reason": LONG}
    else:
        raw["expect"] = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow",
                                                "permissionDecisionReason": LONG}}
    (tmp_path / f"{case}.json").write_text(json.dumps(raw))
    kwargs = {} if answer is None else {"answer": answer}
    code = main(["--cases", str(tmp_path)], harness, **kwargs)  # type: ignore[arg-type]
    out = capsys.readouterr().out
    assert code == 1 and "0/1 events answered as expected" in out
    assert f"case:     harness/{harness}/examples/cases/{case}.json" in out
    assert f"expected: allow (exit 0): {LONG}" in out
    got = next(line for line in out.splitlines() if line.strip().startswith("got:"))
    assert got.strip().startswith("got:      deny (exit 0): ") and "…" not in got and str(tmp_path) not in got
