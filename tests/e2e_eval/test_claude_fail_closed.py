"""`cupcake eval --harness claude` fails closed the way Claude Code needs it (exit 2 + reason on stderr;
never exit 1, which Claude Code treats as "run the tool"), within `--hard-timeout` even when the
evaluation deadline alone would come too late."""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from cupcake_py.harness.examples import cupcake_command, isolated_env, run_eval

SLOW_POLICY = """# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_signals: ["slow"]
package cupcake.policies.claude.slow

import rego.v1

deny contains {"rule_id": "S", "reason": "slow says no", "severity": "HIGH"} if input.signals.slow != "ok"
"""


def _project(tmp: Path) -> Path:
    p = tmp / "p"
    (p / ".cupcake" / "policies" / "claude").mkdir(parents=True)
    (p / ".cupcake" / "policies" / "claude" / "slow.rego").write_text(SLOW_POLICY)
    (p / ".cupcake" / "rulebook.yml").write_text('signals:\n  slow:\n    command: "sleep 20; echo ok"\n'
                                                  "    timeout_seconds: 30\n")
    return p


def _bash(p: Path) -> bytes:
    return json.dumps({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(p), "tool_name": "Bash",
                       "tool_input": {"command": "ls"}}).encode()


def test_hard_timeout_answers_before_the_evaluation_deadline(tmp_path: Path) -> None:
    p = _project(tmp_path)
    env = isolated_env(tmp_path / "cache", tmp_path / "cfg")
    run_eval(_bash(p), p, ["--timeout", "60", "--hard-timeout", "120"], env, harness="claude")  # builds the bundle
    t0 = time.monotonic()
    out, code, err = run_eval(_bash(p), p, ["--timeout", "30", "--hard-timeout", "1.5"], env, harness="claude")
    took = time.monotonic() - t0
    assert code == 2 and err.startswith("cupcake:") and "deadline" in err, err
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert took < 10, took


def test_unknown_harness_fails_closed(tmp_path: Path) -> None:
    env = isolated_env(tmp_path / "cache", tmp_path / "cfg")
    proc = subprocess.run([*cupcake_command(), "eval", "--harness", "windsurf"], input=b"{}", capture_output=True,
                          cwd=tmp_path, env=env, timeout=120)
    assert proc.returncode == 2
    assert json.loads(proc.stdout)["decision"] == "deny"
    assert "unknown harness 'windsurf'" in proc.stderr.decode()


def test_no_configuration_fails_closed_for_claude(tmp_path: Path) -> None:
    env = isolated_env(tmp_path / "cache", tmp_path / "cfg")
    out, code, err = run_eval(_bash(tmp_path), tmp_path, [], env, harness="claude")
    assert code == 2 and "no .cupcake directory" in err
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"


def test_policies_of_the_other_harness_are_not_loaded(tmp_path: Path) -> None:
    """`.cupcake/policies/<harness>/` is per harness: a Claude Code policy never answers OpenCode."""
    p = _project(tmp_path)
    env = isolated_env(tmp_path / "cache", tmp_path / "cfg")
    event = json.dumps({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(p), "tool": "bash",
                        "args": {"command": "ls"}}).encode()
    out, code, _ = run_eval(event, p, ["--timeout", "5"], env)
    assert (out, code) == ({"decision": "allow"}, 0)


def test_hard_timeout_also_bounds_a_bundle_build(tmp_path: Path) -> None:
    p = _project(tmp_path)
    env = isolated_env(tmp_path / "cache", tmp_path / "cfg")
    t0 = time.monotonic()
    out, code, err = run_eval(_bash(p), p, ["--no-cache", "--hard-timeout", "0.3"], env, harness="claude")
    assert code == 2 and "deadline" in err and out["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert time.monotonic() - t0 < 10


def test_a_bad_command_line_answers_in_the_harness_it_names(tmp_path: Path) -> None:
    env = isolated_env(tmp_path / "cache", tmp_path / "cfg")
    for args in (["--bogus"], ["--timeout", "x"]):
        for harness in (["--harness", "claude"], ["--harness=claude"]):
            proc = subprocess.run([*cupcake_command(), "eval", *harness, *args], input=b"{}", capture_output=True,
                                  cwd=tmp_path, env=env, timeout=120)
            assert proc.returncode == 2
            assert json.loads(proc.stdout) == {"decision": "block", "reason": json.loads(proc.stdout)["reason"]}
            assert "cupcake: bad command line" in proc.stderr.decode()
