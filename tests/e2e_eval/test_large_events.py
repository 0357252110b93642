"""An event too large for the policy module's memory (issue 29) is denied fail-closed, early and in
each harness's form, through the real `cupcake eval` process: exit 2, "too large to evaluate".
A large event that fits, and ordinary events under the same cap, are decided as usual. (Time and peak memory: benches/big_event_deadline.py;
no timing is asserted here.)"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from cupcake_py.harness.examples import cupcake_command, isolated_env, run_eval

POLICY = """# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
package cupcake.policies.{harness}.rm

import rego.v1

deny contains {{"rule_id": "RM", "reason": "no rm", "severity": "HIGH"}} if startswith(input.tool_input.command, "rm")
"""
CAP = ["--wasm-max-memory", "2MB", "--timeout", "100"]  # the deadline is not the subject (a loaded machine)


def _world(tmp_path: Path, harness: str) -> tuple[Path, dict[str, str]]:
    project = tmp_path / "p"
    (project / ".cupcake" / "policies" / harness).mkdir(parents=True)
    (project / ".cupcake" / "policies" / harness / "rm.rego").write_text(POLICY.format(harness=harness))
    return project, isolated_env(tmp_path / "cache", tmp_path / "cfg")


def _event(project: Path, harness: str, tool: str, args: dict[str, Any]) -> bytes:
    call = {"tool": tool.lower(), "args": args} if harness == "opencode" else {"tool_name": tool, "tool_input": args}
    return json.dumps({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(project), **call}).encode()


def _decision(harness: str, resp: Any) -> str:
    if harness == "opencode":
        return str(resp["decision"])
    return str(resp.get("hookSpecificOutput", {}).get("permissionDecision", "allow"))


def _assert_too_large(harness: str, resp: Any, code: int, stderr: str, what: str) -> None:
    assert code == 2, (resp, stderr)
    assert _decision(harness, resp) == "deny", resp
    reason = resp["reason"] if harness == "opencode" else resp["hookSpecificOutput"]["permissionDecisionReason"]
    assert reason.startswith("cupcake: ") and f"the {what} holds at least" in reason \
        and "too large to evaluate" in reason, reason
    if harness == "claude":  # Claude Code reads the reason of an exit 2 on stderr
        assert "too large to evaluate" in stderr, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr


@pytest.mark.parametrize("harness", ["opencode", "claude"])
def test_an_event_larger_than_the_policy_memory_is_denied(tmp_path: Path, harness: str) -> None:
    project, env = _world(tmp_path, harness)
    event = _event(project, harness, "Bash", {"command": "echo " + "a" * (3 << 20)})
    resp, code, stderr = run_eval(event, project, CAP, env, harness=harness)
    _assert_too_large(harness, resp, code, stderr, "event")
    # the audit record (audit is on by default) names the call and the deny, not the refused megabytes
    export = subprocess.run([*cupcake_command(), "audit", "export"], capture_output=True, env=env, cwd=project,
                            timeout=120)
    records = [json.loads(line) for line in export.stdout.splitlines()]
    assert export.returncode == 0 and records, export.stderr
    last = records[-1]
    recorded = json.dumps(last["input"])
    assert last["decision"] == "deny" and "cupcake_omitted" in recorded and len(recorded) < 4096, last


def test_an_event_whose_enrichment_outgrows_the_policy_memory_is_denied(tmp_path: Path) -> None:
    """1.2 MB of command fits in a 2 MB cap, but the policy input holds it three times (the event's
    `args`, `tool_input`, the shell analysis's `source`): denied before it is encoded."""
    project, env = _world(tmp_path, "opencode")
    event = _event(project, "opencode", "Bash", {"command": "echo " + "a" * 1_200_000})
    resp, code, stderr = run_eval(event, project, CAP, env)
    _assert_too_large("opencode", resp, code, stderr, "enriched event")


@pytest.mark.parametrize("harness", ["opencode", "claude"])
def test_events_that_fit_are_decided_as_usual(tmp_path: Path, harness: str) -> None:
    """The same 3 MB event under the default cap (64 MB) is evaluated (the shipped policies read every
    tool call), and ordinary events under the 2 MB cap are decided as before."""
    project, env = _world(tmp_path, harness)
    todos = [{"id": "1", "content": "a" * (3 << 20), "status": "pending", "priority": "low"}]
    big = _event(project, harness, "TodoWrite", {"todos": todos})
    resp, code, stderr = run_eval(big, project, CAP[2:], env, harness=harness)
    assert code == 0 and _decision(harness, resp) == "allow", (resp, stderr)
    for command, want in (("ls -la", "allow"), ("rm -rf build", "deny")):
        resp, code, stderr = run_eval(_event(project, harness, "Bash", {"command": command}), project, CAP, env,
                                      harness=harness)
        assert code == 0 and _decision(harness, resp) == want, (command, resp, stderr)
