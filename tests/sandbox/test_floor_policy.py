"""What the reading decides around the floor, through the real `cupcake eval` of both harnesses:

- the agents' configuration is a state path for every tool (Claude Code's `.claude/`,
  `~/.claude/settings.json`, `.mcp.json`): file tools writing it are stopped;
- the `writes_outside_project` policy `cupcake init` installs asks before a write outside the
  project and the sandbox's writable roots, for file tools and shell effects alike;
- uncertainty the floor covers is no longer asked (inline interpreter code, xargs, sourced
  scripts, unknown programs) — but only where the sandbox applies: with bubblewrap unavailable
  the same commands are asked, unrewritten, and stderr says so loudly;
- `input.sandbox` tells policies which of these holds.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from cupcake_py.authoring.scaffold import template
from cupcake_py.harness.examples import cupcake_command
from tests.sandbox.floor import Project

UNCERTAIN = [
    "python3 -c \"import os; print(os.listdir('.'))\"",
    "perl -pi -e 's/demo/x/' README.md",
    "find . -name '*.py' | xargs grep -l def",
    "source ./env.sh && echo ok",
    "./tool.sh --build",
]


def _with_template(project: Project, harness: str) -> None:
    for name in ("writes_outside_project",):
        d = project.proj / ".cupcake" / "policies" / harness
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{name}.rego").write_bytes(template(f"{name}.rego", harness))
    (project.proj / "env.sh").write_text("X=1\n")
    (project.proj / "tool.sh").write_text("#!/bin/sh\necho tool\n")
    (project.proj / "tool.sh").chmod(0o755)


def _tool_event(project: Project, harness: str, tool: str, path: Path, content: str = "x") -> dict[str, object]:
    project.calls += 1
    session = f"w{project.calls}"  # a halt sticks to its session
    if harness == "claude":
        return {"hook_event_name": "PreToolUse", "session_id": session, "transcript_path": str(project.base / "t"),
                "cwd": str(project.proj), "tool_name": tool, "tool_input": {"file_path": str(path), "content": content},
                "tool_use_id": "t1"}
    return {"hook_event_name": "PreToolUse", "session_id": session, "cwd": str(project.proj), "tool": tool.lower(),
            "args": {"filePath": str(path), "content": content}}


def _decide(project: Project, harness: str, event: dict[str, object]) -> str:
    proc = subprocess.run([*cupcake_command(), "eval", "--harness", harness], input=json.dumps(event).encode(),
                          capture_output=True, cwd=project.proj, env=project.env, timeout=120)
    out = json.loads(proc.stdout)
    if harness == "claude":
        if "stopReason" in out:
            return "deny"
        return str(out.get("hookSpecificOutput", {}).get("permissionDecision", "allow"))
    return {"block": "deny"}.get(out["decision"], out["decision"])


@pytest.mark.parametrize("harness", ["claude", "opencode"])
def test_agent_configuration_is_protected_for_file_tools(tmp_path: Path, harness: str) -> None:
    project = Project(tmp_path)
    for target in (project.proj / ".claude" / "settings.local.json", project.home / ".claude" / "settings.json",
                   project.proj / ".mcp.json", project.proj / ".claude" / "hooks" / "h.sh"):
        event = _tool_event(project, harness, "Write", target, '{"disableAllHooks": true}')
        assert _decide(project, harness, event) == "deny", target
    ordinary = _tool_event(project, harness, "Write", project.proj / "src" / "new.py")
    assert _decide(project, harness, ordinary) == "allow"


@pytest.mark.parametrize("harness", ["claude", "opencode"])
def test_writes_outside_the_project_are_asked(tmp_path: Path, bwrap: str, harness: str) -> None:
    project = Project(tmp_path)
    _with_template(project, harness)
    sibling = project.sibling / "file.txt"
    assert _decide(project, harness, _tool_event(project, harness, "Write", sibling)) == "ask"
    assert _decide(project, harness, _tool_event(project, harness, "Write", project.proj / "ok.txt")) == "allow"
    assert _decide(project, harness, _tool_event(project, harness, "Write", project.scratch / "t.txt")) == "allow"
    for command in ("cp README.md ../sibling/file.txt", "sed -i s/a/b/ ../sibling/file.txt",
                    "echo x > ../sibling/file.txt"):
        assert project.evaluate(harness, command)[0] == "ask", command
    decision, runs, _ = project.evaluate(harness, "cp README.md copy.md && echo x > $TMPDIR/t")
    assert decision == "allow" and runs is not None and "--args 3" in runs


@pytest.mark.parametrize("harness", ["claude", "opencode"])
def test_uncertainty_the_floor_covers_is_allowed_sandboxed(tmp_path: Path, bwrap: str, harness: str) -> None:
    project = Project(tmp_path, project_builtins="  git_block_no_verify: {}\n  rulebook_security_guardrails: {}\n"
                      f"  protected_paths: {{paths: [{project_path(tmp_path)}/src/]}}\n",
                      global_builtins="  sensitive_data_protection: {}\n  system_protection: {}\n"
                      "  cupcake_exec_protection: {}\n")
    _with_template(project, harness)
    for command in UNCERTAIN:
        decision, runs, answer = project.evaluate(harness, command)
        assert decision == "allow" and runs is not None and "--args 3" in runs, (command, answer)


def project_path(tmp_path: Path) -> Path:
    return tmp_path / "proj"


@pytest.mark.parametrize("harness", ["claude", "opencode"])
def test_without_bubblewrap_uncertainty_is_asked_and_nothing_is_rewritten(tmp_path: Path, harness: str) -> None:
    project = Project(tmp_path, sandbox=f"  bwrap: {tmp_path / 'no-such-bwrap'}\n",
                      global_builtins="  sensitive_data_protection: {}\n  system_protection: {}\n")
    proc = subprocess.run([*cupcake_command(), "eval", "--harness", harness],
                          input=json.dumps(project.event(harness, UNCERTAIN[0])).encode(), capture_output=True,
                          cwd=project.proj, env=project.env, timeout=120)
    assert b"sandbox is enabled but cannot run" in proc.stderr
    for command in UNCERTAIN[:1] + ["python3 -c \"open('x.txt', 'w').write('1')\""]:
        decision, runs, answer = project.evaluate(harness, command)
        assert decision == "ask", (command, answer)
        assert runs is None or "bwrap" not in runs
    decision, runs, _ = project.evaluate(harness, "ls")
    assert decision == "allow" and runs == "ls"  # certain commands stay allowed, unsandboxed (and said so)


def test_input_sandbox_tells_policies(tmp_path: Path, bwrap: str) -> None:
    project = Project(tmp_path)
    d = project.proj / ".cupcake" / "policies" / "claude"
    d.mkdir(parents=True)
    (d / "show.rego").write_text(
        "package cupcake.policies.claude.show\nimport rego.v1\n"
        "# METADATA\n# custom:\n#   routing:\n#     required_events: [PreToolUse]\n#     required_tools: [Bash]\n"
        "ask contains {\"rule_id\": \"SHOW\", \"reason\": json.marshal(input.sandbox)} if "
        "input.tool_input.command == \"show\"\n")
    _, _, answer = project.evaluate("claude", "show")
    shown = json.loads(answer["hookSpecificOutput"]["permissionDecisionReason"])
    assert shown["enabled"] and shown["available"] and shown["applies"]
    assert shown["covers"] == {"state_paths": True, "system": True, "secrets": True, "protected_paths": True}
    assert str(project.proj) in shown["writable"] and str(project.scratch) in shown["writable"]
    assert "/tmp" not in shown["writable"]
    assert shutil.which("bwrap") is not None


def test_a_policy_extends_the_profile(tmp_path: Path, bwrap: str) -> None:
    """`sandbox contains {"read_only": [...], "hidden": [...]}` (docs/sandbox.md): one rulebook and
    its policies drive both the decision and the floor."""
    project = Project(tmp_path)
    (project.proj / "vendor").mkdir()
    (project.proj / "vendor" / "lib.txt").write_text("pinned\n")
    (project.proj / "notes.txt").write_text("private notes\n")
    d = project.proj / ".cupcake" / "policies" / "claude"
    d.mkdir(parents=True)
    (d / "extend.rego").write_text(
        "# METADATA\n# custom:\n#   routing:\n#     required_events: [PreToolUse]\n#     required_tools: [Bash]\n"
        "package cupcake.policies.claude.extend\nimport rego.v1\n"
        "sandbox contains {\"read_only\": [\"vendor\"], \"hidden\": [\"notes.txt\"]}\n")
    decision, done = project.agent("claude", "echo x >> vendor/lib.txt; cat notes.txt; echo ok")
    assert decision == "allow" and done is not None
    assert (project.proj / "vendor" / "lib.txt").read_text() == "pinned\n"
    assert "private" not in done.stdout and "ok" in done.stdout and "Read-only file system" in done.stderr


@pytest.mark.parametrize("harness", ["claude", "opencode"])
def test_shared_processes_relax_nothing(tmp_path: Path, bwrap: str, harness: str) -> None:
    """With `share_processes: true` a sandboxed program writes through /proc/<pid>/root of any
    process of the user, past every mount (tried by the red-team round): the floor claims no
    cover, so what the reading cannot bound is asked again (still run sandboxed when approved)."""
    project = Project(tmp_path, sandbox=f"  writable: [{tmp_path / 'scratch'}]\n  share_processes: true\n",
                      project_builtins="  git_block_no_verify: {}\n  rulebook_security_guardrails: {}\n",
                      global_builtins="  sensitive_data_protection: {}\n  system_protection: {}\n"
                      "  cupcake_exec_protection: {}\n")
    escape = ("python3 -c \"import os\nfor d in os.listdir('/proc'):\n    try: open('/proc/' + d + '/root"
              f"{project.proj}/.cupcake/rulebook.yml', 'a').write('x')\n    except OSError: pass\"")
    decision, runs, _ = project.evaluate(harness, escape)
    assert decision == "ask" and runs is not None and "--args 3" in runs, decision


SIGNAL_POLICY = """# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_signals: ["lint"]
package cupcake.policies.{harness}.lint_signal

import rego.v1

deny contains {{"rule_id": "L", "reason": "lint failed", "severity": "HIGH"}} if input.signals.lint != "ok"
"""


@pytest.mark.parametrize("harness", ["claude", "opencode"])
def test_shell_signals_run_inside_the_floor_for_every_tool(tmp_path: Path, bwrap: str, harness: str) -> None:
    """A shell signal runs project code (here the project's lint script, which the agent can
    change): with the floor enabled it runs inside the profile, for a file tool's event too."""
    project = Project(tmp_path)
    policies = project.proj / ".cupcake" / "policies" / harness
    policies.mkdir(parents=True)
    (policies / "lint_signal.rego").write_text(SIGNAL_POLICY.format(harness=harness))
    rulebook = project.proj / ".cupcake" / "rulebook.yml"
    rulebook.write_text(rulebook.read_text() + "signals:\n  lint:\n    command: sh lint.sh\n    timeout_seconds: 20\n")
    lint = project.proj / "lint.sh"
    lint.write_text("echo pwned >> .cupcake/rulebook.yml 2>/dev/null; echo pwned >> ../sibling/file.txt 2>/dev/null; "
                    "echo ok\n")
    before = (rulebook.read_bytes(), (project.sibling / "file.txt").read_bytes())
    event = _tool_event(project, harness, "Write", project.proj / "src" / "new.py")
    deadline = time.monotonic() + 300  # a cold build may outlast one evaluation's deadline
    while (decision := _decide(project, harness, event)) != "allow" and time.monotonic() < deadline:
        if rulebook.read_bytes() != before[0]:
            break
        time.sleep(1)
    assert decision == "allow"  # the signal ran and said ok
    assert (rulebook.read_bytes(), (project.sibling / "file.txt").read_bytes()) == before
