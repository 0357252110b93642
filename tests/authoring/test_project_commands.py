"""`cupcake init`, `verify` and `inspect` through the CLI, on temporary projects."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from cupcake_py.authoring.scaffold import BUILTINS, PLUGIN, rulebook_text
from cupcake_py.cli.app import app
from cupcake_py.engine.rulebook import Builtins, parse_rulebook

runner = CliRunner()


@pytest.fixture()
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    proj = tmp_path / "proj"
    proj.mkdir()
    r = runner.invoke(app, ["init", "--harness", "opencode", "--dir", str(proj)])
    assert r.exit_code == 0, r.output
    return proj


def test_init_creates_the_layout(project: Path) -> None:
    cc = project / ".cupcake"
    assert stat.S_IMODE(cc.stat().st_mode) == 0o700
    for rel in ("rulebook.yml", "system/evaluate.rego", "system/commands.rego", "policies/opencode/example.rego",
                "tests/opencode/example_test.rego"):
        assert (cc / rel).is_file(), rel
    assert (project / ".opencode/plugin/cupcake.js").read_bytes() == PLUGIN.read_bytes()


def test_rulebook_template_is_valid_and_describes_every_builtin() -> None:
    for scope in ("project", "global"):
        text = rulebook_text(scope)  # type: ignore[arg-type]
        parse_rulebook(text, Path("rulebook.yml"))
        yaml.safe_load(text)
    assert set(BUILTINS) == set(Builtins.model_fields)
    both = rulebook_text("project") + rulebook_text("global")
    for name in Builtins.model_fields:
        assert f"{name}:" in both, name


def test_init_is_idempotent_and_keeps_user_files(project: Path) -> None:
    r = runner.invoke(app, ["init", "--harness", "opencode", "--dir", str(project)])
    # the project's 15 files (rulebook.schema.json included); the global config made by the first init exists now and is left alone
    assert r.exit_code == 0 and "created" not in r.output and r.output.count("unchanged") == 15
    example = project / ".cupcake/policies/opencode/example.rego"
    example.write_text(example.read_text() + "\n# my change\n")
    r = runner.invoke(app, ["init", "--harness", "opencode", "--dir", str(project)])
    assert "kept" in r.output and example.read_text().endswith("# my change\n")
    r = runner.invoke(app, ["init", "--harness", "opencode", "--dir", str(project), "--force"])
    assert "overwritten" in r.output and not example.read_text().endswith("# my change\n")


def test_fresh_init_enables_safe_defaults_and_says_so(project: Path, tmp_path: Path) -> None:
    """A fresh `cupcake init` (no global config yet) protects what a new user assumes, through
    the real `cupcake eval`: hooks cannot be skipped, .env is unreadable, cupcake's own state is
    protected; and its one screen says what is on and how to relax it."""
    glob = tmp_path / "config/cupcake"
    assert (glob / "rulebook.yml").is_file()
    assert not (tmp_path / "config/opencode/plugin/cupcake.js").exists()  # one plugin: the project's
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "config")}

    def decide(tool: str, args: dict[str, str]) -> str:
        event = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(project), "tool": tool, "args": args}
        proc = subprocess.run([sys.executable, "-m", "cupcake_py", "eval", "--harness", "opencode"], cwd=project,
                              input=json.dumps(event), capture_output=True, text=True, env=env, timeout=120)
        return str(json.loads(proc.stdout)["decision"])

    assert decide("bash", {"command": "git commit --no-verify -m x"}) == "deny"
    assert decide("bash", {"command": "cat .env"}) == "deny"
    assert decide("read", {"filePath": str(project / ".env")}) == "deny"
    assert decide("write", {"filePath": str(project / ".cupcake/rulebook.yml"), "content": "{}"}) in ("deny", "block")
    assert decide("edit", {"filePath": str(glob / "rulebook.yml"), "oldString": "a", "newString": "b"}) in (
        "deny", "block")
    assert decide("bash", {"command": "rm -rf /home/nobody/x"}) == "ask"  # deletes outside the project
    assert decide("bash", {"command": "find /var/tmp/x -delete"}) == "ask"
    # ordinary work stays allowed
    assert decide("bash", {"command": "rm -rf build"}) == "allow"
    assert decide("bash", {"command": "git commit -m x"}) == "allow"
    assert decide("read", {"filePath": str(project / "README.md")}) == "allow"
    assert decide("bash", {"command": "ls -la"}) == "allow"


def test_init_summary_screen(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    proj = tmp_path / "p"
    proj.mkdir()
    r = runner.invoke(app, ["init", "--harness", "opencode", "--dir", str(proj), "--no-global"])
    assert r.exit_code == 0, r.output
    assert not (tmp_path / "cfg/cupcake").exists()
    for line in ("ON  (project) rulebook_security_guardrails", "ON  (project) git_block_no_verify",
                 "off           system_protection", "no global configuration", "init --harness opencode --global",
                 "To relax: `enabled: false`", "deletes outside the project ask first"):
        assert line in r.output, line
    r = runner.invoke(app, ["init", "--harness", "opencode", "--dir", str(proj)])
    assert "ON  (global)  sensitive_data_protection" in r.output and "no global configuration" not in r.output
    assert len(r.output.splitlines()) < 40  # one screen


def test_init_global(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    r = runner.invoke(app, ["init", "--harness", "opencode", "--global"])
    assert r.exit_code == 0, r.output
    root = tmp_path / "cfg" / "cupcake"
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    assert (root / "rulebook.yml").is_file() and (root / "policies/opencode").is_dir()
    assert (tmp_path / "cfg/opencode/plugin/cupcake.js").is_file()


def test_example_policy_fires_through_cupcake_eval(project: Path, tmp_path: Path) -> None:
    event = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(project), "tool": "bash",
             "args": {"command": "git push --force origin main"}}
    env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / "cache"), "XDG_CONFIG_HOME": str(tmp_path / "config")}
    proc = subprocess.run([sys.executable, "-m", "cupcake_py", "eval", "--harness", "opencode"], cwd=project,
                          input=json.dumps(event), capture_output=True, text=True, env=env, timeout=120)
    out = json.loads(proc.stdout)
    assert out["decision"] == "deny", proc.stdout + proc.stderr
    assert "force-pushing" in out["reason"]


def test_verify_fresh_project_is_safe(project: Path) -> None:
    r = runner.invoke(app, ["verify", "--harness", "opencode", "--policy-dir", str(project)])
    assert r.exit_code == 0, r.output
    # git_block_no_verify routes every tool (a file or MCP tool may change .git/hooks too)
    assert "PreToolUse -> 4 policies" in r.output and "- cupcake.policies.builtins.git_block_no_verify" in r.output
    assert "PreToolUse:Bash -> 1 policy" in r.output and "- cupcake.policies.opencode.example" in r.output
    assert "builtins enabled: rulebook_security_guardrails, git_block_no_verify" in r.output
    assert "WASM" in r.output and "22/22 passed" in r.output and "safe to install" in r.output


def test_verify_refuses_failing_tests_and_bad_rulebook(project: Path) -> None:
    t = project / ".cupcake/tests/opencode/example_test.rego"
    t.write_text(t.read_text().replace('bash("ls -la")', 'bash("git push -f")'))
    r = runner.invoke(app, ["verify", "--harness", "opencode", "--policy-dir", str(project)])
    assert r.exit_code == 1
    assert "[FAIL] policy tests" in r.output and "test_other_commands_are_allowed" in r.output
    assert "NOT safe to install" in r.output
    (project / ".cupcake/rulebook.yml").write_text("builtins:\n  no_such_builtin: {}\n")
    r = runner.invoke(app, ["verify", "--harness", "opencode", "--policy-dir", str(project)])
    assert r.exit_code == 1 and "[FAIL] rulebook" in r.output and "rulebook.yml:2:" in r.output


def test_verify_without_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    r = runner.invoke(app, ["verify", "--harness", "opencode"])
    assert r.exit_code == 2 and "cupcake init" in r.stderr


def test_inspect_table_and_json(project: Path) -> None:
    r = runner.invoke(app, ["inspect", "--policy-dir", str(project)])
    assert r.exit_code == 0, r.output
    line = next(ln for ln in r.stdout.splitlines() if ln.startswith("cupcake.policies.opencode.example "))
    assert line.split()[1:5] == ["custom", "yes", "PreToolUse", "Bash"]
    r = runner.invoke(app, ["inspect", "--policy-dir", str(project), "--format", "json"])
    rows = {p["package"]: p for p in json.loads(r.stdout)["policies"]}
    ex = rows["cupcake.policies.opencode.example"]
    assert ex["title"].startswith("Example policy") and ex["verbs"] == ["deny", "ask"]
    guard = rows["cupcake.policies.builtins.rulebook_security_guardrails"]
    assert guard["kind"] == "builtin" and guard["enabled"] is True
    assert rows["cupcake.system"]["kind"] == "system"


def test_pre_commit_hooks_run_registered_commands() -> None:
    hooks = yaml.safe_load((Path(__file__).parents[2] / ".pre-commit-hooks.yaml").read_text())
    assert {h["id"] for h in hooks} == {"cupcake-validate", "cupcake-test"}
    names = {c.name for c in app.registered_commands}
    for h in hooks:
        prog, cmd = h["entry"].split()
        assert prog == "cupcake" and cmd in names and h["files"] == r"\.rego$"


def test_init_claude_next_to_opencode_and_uninstall(project: Path) -> None:
    """One .cupcake/ for both harnesses: init claude adds its policy dir and the Claude Code hooks,
    leaves the OpenCode files alone, is idempotent, and --uninstall removes only the hooks."""
    r = runner.invoke(app, ["init", "--harness", "claude", "--dir", str(project)])
    assert r.exit_code == 0, r.output
    assert "kept" not in r.output, "the shared files (rulebook, system/) are the same for both harnesses"
    example = (project / ".cupcake/policies/claude/example.rego").read_text()
    assert "package cupcake.policies.claude.example" in example and "tool_input" in example
    assert "import data.cupcake.policies.claude.example" in (
        project / ".cupcake/tests/claude/example_test.rego").read_text()
    settings = json.loads((project / ".claude/settings.json").read_text())
    assert "eval --harness claude" in settings["hooks"]["PreToolUse"][0]["hooks"][0]["command"]
    assert (project / ".opencode/plugin/cupcake.js").is_file()
    again = runner.invoke(app, ["init", "--harness", "claude", "--dir", str(project)])
    assert again.exit_code == 0 and "created" not in again.output and "overwritten" not in again.output
    r = runner.invoke(app, ["init", "--harness", "claude", "--dir", str(project), "--uninstall"])
    assert r.exit_code == 0 and "removed" in r.output
    assert json.loads((project / ".claude/settings.json").read_text()) == {}
    assert (project / ".cupcake/policies/claude/example.rego").is_file()
    r = runner.invoke(app, ["init", "--harness", "opencode", "--dir", str(project), "--uninstall"])
    assert r.exit_code != 0


def test_claude_example_policy_fires_through_cupcake_eval(project: Path) -> None:
    assert runner.invoke(app, ["init", "--harness", "claude", "--dir", str(project)]).exit_code == 0
    event = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(project), "tool_name": "Bash",
             "tool_input": {"command": "git push --force origin feature", "description": "push"}}
    exe = Path(sys.executable).parent / "cupcake"
    proc = subprocess.run([str(exe), "eval", "--harness", "claude"], input=json.dumps(event).encode(),
                          capture_output=True, cwd=project, env=dict(os.environ), timeout=300)
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)["hookSpecificOutput"]
    assert out["permissionDecision"] == "deny" and "force-pushing" in out["permissionDecisionReason"]
    verify = runner.invoke(app, ["verify", "--harness", "claude", "--policy-dir", str(project)])
    assert verify.exit_code == 0 and "(harness claude)" in verify.output, verify.output
