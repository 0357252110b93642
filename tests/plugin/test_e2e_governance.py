"""Governance end to end inside a REAL OpenCode with the REAL engine (docs/governance.md): a scripted agent
that keeps getting denied is put in timeout by the shipped `escalation` builtin and told until when, the
timeout holds for the next call, and `cupcake audit list` shows the session (including the plugin's
session.created lifecycle record). One `opencode run` (~30-60 s on the loaded 2-core machine)."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e_opencode.driver import DURATIONS, OpenCodeE2E, RunResult, Scenario


@pytest.fixture(scope="module")
def governed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[OpenCodeE2E, RunResult, Path]]:
    root = tmp_path_factory.mktemp("e2e-gov")
    scenario = Scenario(policies=("e2e_pre.rego",), protected_paths=(),
                        rulebook={"builtins": {"escalation": {"max_denials": 2, "window_minutes": 5,
                                                              "timeout_minutes": 10}},
                                  "audit": {"mode": "required"}})
    t0 = time.monotonic()
    with OpenCodeE2E(root, scenario) as e2e:
        assert e2e.warm_up() == {"decision": "allow"}
        victim = e2e.project / "victim"
        victim.mkdir()
        (victim / "keep.txt").write_text("precious\n")
        run = e2e.run(" ;; ".join([f"CMD: rm -rf {victim}", f"CMD: rm -rf {victim}/keep.txt",
                                   "CMD: echo after-denials", "CMD: echo still-in-timeout"]))
        DURATIONS.append(f"governance world: {time.monotonic() - t0:.1f} s total, opencode run {run.seconds:.1f} s")
        yield e2e, run, victim


def test_denied_agent_is_put_in_timeout_and_told_until_when(governed: tuple[OpenCodeE2E, RunResult, Path]) -> None:
    e2e, run, victim = governed
    assert run.returncode == 0, run.stderr[-3000:]
    bash = [t for t in run.tools if t.tool == "bash"]
    assert [t.status for t in bash] == ["error"] * 4, [(t.input, t.status, t.error) for t in bash]
    assert (victim / "keep.txt").read_text() == "precious\n"
    for t in bash[:2]:
        assert "[rule E2E-NO-RM-RF]" in run.tool_message(t.call_id)
    third = run.tool_message(bash[2].call_id)
    assert "[rule BUILTIN-ESCALATION]" in third, third
    m = re.search(r"escalation: 2 denied calls within 5 min\): this session is now in timeout for 10 min, "
                  r"until (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ)", third)
    assert m, third
    fourth = run.tool_message(bash[3].call_id)
    assert f"this session is in timeout until {m.group(1)}" in fourth, fourth
    assert "echo" not in (bash[2].output or "") and bash[3].output is None


def test_audit_list_shows_the_session(governed: tuple[OpenCodeE2E, RunResult, Path]) -> None:
    e2e, _run, _ = governed
    sessions = {r["session_id"] for r in e2e.telemetry() if r["session_id"] != "ses_e2e_warmup"}
    assert len(sessions) == 1, sessions
    session = sessions.pop()
    listed = e2e.cupcake_run("audit", "list", "--session", session, "--json")
    records = [json.loads(line) for line in listed.stdout.splitlines()]
    pre = [r for r in reversed(records) if r["event"] == "PreToolUse"]
    assert [(r["decision"], r["rule_ids"]) for r in pre] == [
        ("deny", ["E2E-NO-RM-RF"]), ("deny", ["E2E-NO-RM-RF"]),
        ("halt", ["BUILTIN-ESCALATION"]), ("halt", ["BUILTIN-ESCALATION"])]
    assert any(r["event"] == "SessionStart" for r in records), "the plugin's session.created record is missing"
    table = e2e.cupcake_run("audit", "list", "--session", session).stdout
    assert session in table and "BUILTIN-ESCALATI" in table
    assert e2e.cupcake_run("audit", "verify").returncode == 0
