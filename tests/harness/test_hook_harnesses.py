"""The hook-command harnesses (copilot, factory, cline, cursor): normalisation into the one policy input,
the rewrite back into each agent's arguments, the fail-closed guard script run by a real `sh` with a fake
`cupcake` that crashes, hangs or prints garbage, and `cupcake init --harness X [--global] [--uninstall]`
(merge without clobbering, idempotent, removable, trust step, clear error without `cupcake` on PATH)."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.cli.app import app
from cupcake_py.harness import MODULES, get
from cupcake_py.harness.guard import InstallError, guarded_script

AGENTS = ("copilot", "factory", "cline", "cursor")
VENV_BIN = str(Path(sys.executable).parent)


def test_the_cli_choices_are_the_harness_table() -> None:
    """--harness takes its names from the registry (cli/options.py): every registered harness is
    accepted by every command, and its --help lists exactly them."""
    from typer.testing import CliRunner

    runner = CliRunner()
    text = " ".join(runner.invoke(app, ["init", "--help"]).output.split())
    assert f"The agent: {', '.join(MODULES)}." in text
    for name in MODULES:
        r = runner.invoke(app, ["inspect", "--harness", name, "--format", "json", "--policy-dir", "/nonexistent"])
        assert "unknown harness" not in r.output, (name, r.output)
    r = runner.invoke(app, ["inspect", "--harness", "bogus"])
    assert r.exit_code == 2 and "unknown harness 'bogus'" in r.output


def _pre(agent: str, cwd: str, tool: str, args: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """A pre-tool event of `agent` and the hook environment it needs."""
    if agent == "copilot":
        return {"sessionId": "s", "timestamp": 1, "cwd": cwd, "toolName": tool, "toolArgs": args}, \
            {"CUPCAKE_HOOK_EVENT": "preToolUse"}
    if agent == "factory":
        return {"session_id": "s", "cwd": cwd, "hook_event_name": "PreToolUse", "tool_name": tool, "tool_input": args}, {}
    if agent == "cline":
        return {"taskId": "t", "workspaceRoots": [cwd], "hookName": "tool_call",
                "tool_call": {"id": "c", "name": tool, "input": args}}, {"CUPCAKE_HOOK_EVENT": "PreToolUse"}
    return {"conversation_id": "c", "workspace_roots": [cwd], "hook_event_name": "preToolUse", "tool_name": tool,
            "tool_input": args}, {}


SHELL = {"copilot": ("bash", {"command": "rm -rf x", "description": "d"}),
         "factory": ("Execute", {"command": "rm -rf x", "summary": "s", "riskLevel": "low", "riskLevelReason": "r"}),
         "cline": ("run_commands", {"commands": ["rm -rf x"]}),
         "cursor": ("Shell", {"command": "rm -rf x"})}
EDIT = {"copilot": ("edit", {"path": "a.py", "old_str": "1", "new_str": "2"}),
        "factory": ("Edit", {"file_path": "a.py", "old_str": "1", "new_str": "2"}),
        "cline": ("editor", {"path": "a.py", "old_text": "1", "new_text": "2"}),
        "cursor": ("StrReplace", {"file_path": "a.py", "old_string": "1", "new_string": "2"})}


@pytest.mark.parametrize("agent", AGENTS)
def test_shell_and_edit_calls_normalise_to_the_shared_names(agent: str, tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    h = get(agent)
    for table, name, check in ((SHELL, "Bash", {"command": "rm -rf x"}),
                               (EDIT, "Edit", {"file_path": "a.py", "old_string": "1", "new_string": "2"})):
        tool, args = table[agent]
        event, env = _pre(agent, str(tmp_path), tool, args)
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        valid = h.validate(event)
        assert h.event_name(valid) == "PreToolUse" and h.tool_name(valid) == name
        inp = h.preprocess(valid, script_inspection=False)
        assert inp["harness"] == agent and inp["hook_event_name"] == "PreToolUse" and inp["tool"] == tool
        assert {k: inp["tool_input"].get(k) for k in check} == check
        assert inp["agent_tool_input"] == args
        assert set(inp["harness_capabilities"]) == {"can_ask", "can_rewrite_shell", "can_deny_tool", "subagent_calls_hooked"}
        if name == "Bash":
            assert inp["shell"]["commands"], "the shell analysis ran"
        else:
            assert inp["resolved_file_path"] == str(tmp_path / "a.py")


@pytest.mark.parametrize("agent", AGENTS)
def test_the_sandbox_floor_only_wraps_where_the_agent_runs_a_rewritten_command(agent: str, tmp_path: Path,
                                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    h = get(agent)
    tool, args = SHELL[agent]
    event, env = _pre(agent, str(tmp_path), tool, args)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    command = h.shell_command(h.validate(event))  # type: ignore[attr-defined]
    assert command == ("rm -rf x" if h.capabilities["can_rewrite_shell"] else None)  # type: ignore[attr-defined]
    assert h.capabilities["can_rewrite_shell"] == (agent != "cursor")  # type: ignore[attr-defined]


@given(st.text(min_size=1, max_size=200))
@settings(max_examples=60, deadline=None)
def test_a_rewritten_command_goes_back_in_the_agents_own_form(command: str) -> None:
    for agent, (tool, args) in SHELL.items():
        back = get(agent).table().agent_args(tool, args, {"command": command})  # type: ignore[attr-defined]
        if agent == "cline":
            assert back == {"commands": [command]}
        else:
            assert back == {**args, "command": command}  # the WHOLE input: the other fields stay


def test_cline_reads_every_file_and_analyses_every_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUPCAKE_HOOK_EVENT", "PreToolUse")
    h = get("cline")
    files = {"files": [{"path": "ok.txt"}, {"path": ".env"}, {"path": "sub/key.pem"}]}
    inp = h.preprocess(h.validate(_pre("cline", str(tmp_path), "read_files", files)[0]), script_inspection=False)
    assert inp["tool_name"] == "Read" and inp["tool_input"]["file_path"] == "ok.txt"
    assert {p["path"] for p in inp["tool_paths"]} >= {str(tmp_path / ".env"), str(tmp_path / "sub/key.pem")}
    two = {"commands": ["ls", "rm -rf secrets"]}
    inp = h.preprocess(h.validate(_pre("cline", str(tmp_path), "run_commands", two)[0]), script_inspection=False)
    assert inp["tool_input"]["command"] == "ls; rm -rf secrets"  # joined one per line, then normalised
    assert [c["name"] for c in inp["shell"]["commands"]][-1] == "rm"
    mcp = _pre("cline", str(tmp_path), "prod-db__drop_table", {"t": "users"})[0]
    assert h.preprocess(h.validate(mcp), script_inspection=False)["mcp"] == {"server": "prod-db", "tool": "drop_table"}


# -- the guard script ----------------------------------------------------------------------------------

BLOCKS = {"copilot": ('"permissionDecision":"deny"', 2), "factory": ('"permissionDecision":"deny"', 2),
          "cline": ('"cancel":true', 2), "cursor": ('"permission":"deny"', 2)}


def _guard(agent: str) -> str:
    """The installed command of `agent` for its pre-tool event, with short deadlines."""
    from cupcake_py.harness.answers import failure_form
    from cupcake_py.harness.guard import REASON

    pre_tool = next(raw for raw, normal in get(agent).event_map.items() if normal == "PreToolUse")  # type: ignore[attr-defined]
    block, code = failure_form(get(agent).answers, pre_tool, REASON)  # type: ignore[attr-defined]
    return guarded_script(agent, block, code, eval_timeout=1, hard_timeout=1, kill_after=2)


def _run_guard(agent: str, fake_body: str | None, tmp_path: Path) -> tuple[int, str, str]:
    bindir = tmp_path / "bin"
    bindir.mkdir(exist_ok=True)
    fake = bindir / "cupcake"
    if fake_body is None:
        fake.unlink(missing_ok=True)
    else:
        fake.write_text(f"#!/bin/sh\ncat >/dev/null\n{fake_body}\n")
        fake.chmod(0o755)
    env = {"PATH": f"{bindir}:/usr/bin:/bin", "HOME": str(tmp_path)}
    p = subprocess.run(["sh", "-c", _guard(agent)], input=b"{}", capture_output=True, env=env, timeout=60)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


@pytest.mark.parametrize("agent", AGENTS)
def test_the_guard_turns_every_failure_into_the_blocking_answer(agent: str, tmp_path: Path) -> None:
    needle, code = BLOCKS[agent]
    for body, why in (("exit 1", "exit 1"), ("kill -9 $$", "exit 137"), ("echo 'not json'; exit 0", "exit 0"),
                      ("printf '{\"partial'; exit 0", "exit 0"), ("exit 0", "exit 0"), ("sleep 30", "exit 124")):
        rc, out, err = _run_guard(agent, body, tmp_path)
        assert rc == code and needle in out and "fail closed" in out, (body, rc, out, err)
        assert why in err, (body, err)
        json.loads(out)  # exactly one JSON object
    rc, out, err = _run_guard(agent, None, tmp_path)
    assert rc == code and needle in out and "not on PATH" in out and "not on PATH" in err
    # cupcake's own answers pass through unchanged
    assert _run_guard(agent, "echo '{\"ok\": 1}'; exit 0", tmp_path)[:2] == (0, '{"ok": 1}\n')
    assert _run_guard(agent, "echo '{\"own\": 1}'; exit 2", tmp_path)[:2] == (2, '{"own": 1}\n')


def test_guard_deadlines_are_ordered() -> None:
    from cupcake_py.harness import guard as h

    assert h.EVAL_TIMEOUT < h.HARD_TIMEOUT < h.KILL_AFTER + 5 < h.HOOK_TIMEOUT_S


# -- cupcake init ----------------------------------------------------------------------------------------


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.setenv("PATH", f"{VENV_BIN}:/usr/bin:/bin")
    return h


def _install(agent: str, project: Path | None, force: bool = False) -> list[tuple[str, str]]:
    return [(p, str(a)) for p, a in get(agent).install(project, force)]


def test_copilot_install_own_file_trust_idempotent_uninstall(tmp_path: Path, home: Path) -> None:
    proj = tmp_path / "p"
    (proj / ".github" / "hooks").mkdir(parents=True)
    mine = proj / ".github" / "hooks" / "mine.json"
    mine.write_text('{"version": 1, "hooks": {"preToolUse": [{"type": "command", "bash": "true"}]}}')
    config = home / ".copilot" / "config.json"
    config.parent.mkdir()
    config.write_text('// managed\n{"trustedFolders": ["/elsewhere"], "firstLaunchAt": "x"}\n')
    first = _install("copilot", proj)
    hooks = json.loads((proj / ".github/hooks/cupcake.json").read_text())
    assert set(hooks["hooks"]) >= {"preToolUse", "postToolUse", "permissionRequest", "userPromptSubmitted"}
    cmd = hooks["hooks"]["preToolUse"][0]["bash"]
    assert "CUPCAKE_HOOK_EVENT=preToolUse" in cmd and "eval --harness copilot" in cmd and VENV_BIN not in cmd
    assert hooks["hooks"]["preToolUse"][0]["timeoutSec"] == 60
    text = config.read_text()
    assert text.startswith("// managed\n") and json.loads(text.split("\n", 1)[1])["trustedFolders"] == \
        ["/elsewhere", os.path.realpath(proj)]
    assert [a for _, a in first] == ["created", "overwritten"]
    assert [a for _, a in _install("copilot", proj)] == ["unchanged", "unchanged"]
    assert mine.read_text().startswith('{"version": 1')
    assert [a for _, a in get("copilot").uninstall(proj)] == ["removed"]
    assert not (proj / ".github/hooks/cupcake.json").exists() and mine.exists()
    assert _install("copilot", None)[0][0] == str(home / ".copilot" / "hooks" / "cupcake.json")


def test_copilot_install_leaves_a_broken_config_alone(tmp_path: Path, home: Path) -> None:
    config = home / ".copilot" / "config.json"
    config.parent.mkdir()
    config.write_text("{not json")
    with pytest.raises(InstallError, match="left untouched"):
        _install("copilot", tmp_path)
    assert config.read_text() == "{not json"


@pytest.mark.parametrize("agent,path,user", [
    ("factory", ".factory/hooks.json", {"PreToolUse": [{"matcher": "Execute", "hooks": [{"type": "command",
                                                                                         "command": "mine.sh"}]}],
                                        "Other": 1}),
    ("cursor", ".cursor/hooks.json", {"version": 1, "hooks": {"beforeShellExecution": [{"command": "mine.sh"}]},
                                      "extra": True}),
])
def test_json_hook_files_merge_idempotently_and_uninstall_only_ours(agent: str, path: str, user: dict[str, Any],
                                                                     tmp_path: Path, home: Path) -> None:
    target = tmp_path / path
    target.parent.mkdir(parents=True)
    target.write_text(json.dumps(user))
    assert _install(agent, tmp_path)[0][1] == "overwritten"
    merged = json.loads(target.read_text())
    text = json.dumps(merged)
    assert "mine.sh" in text and f"eval --harness {agent}" in text and VENV_BIN not in text
    if agent == "cursor":
        ours = merged["hooks"]["beforeShellExecution"][-1]
        assert ours["failClosed"] is True and merged["hooks"]["beforeShellExecution"][0] == {"command": "mine.sh"}
    else:
        assert merged["PreToolUse"][0]["matcher"] == "Execute" and merged["PreToolUse"][-1]["matcher"] == "*"
        assert merged["PreToolUse"][-1]["hooks"][0]["timeout"] == 60 and "hooks" not in merged
    assert _install(agent, tmp_path)[0][1] == "unchanged"
    assert get(agent).uninstall(tmp_path)[0][1] == "removed"
    assert json.loads(target.read_text()) == user
    assert get(agent).uninstall(tmp_path)[0][1] == "unchanged"
    target.unlink()
    _install(agent, tmp_path)
    assert get(agent).uninstall(tmp_path)[0][1] == "removed" and not target.exists()  # only ours: file gone


def test_cline_scripts_keep_a_users_hook_aside_only_with_force(tmp_path: Path, home: Path) -> None:
    d = tmp_path / ".clinerules" / "hooks"
    d.mkdir(parents=True)
    theirs = d / "PreToolUse"
    theirs.write_text("#!/bin/sh\necho '{}'\n")
    with pytest.raises(InstallError, match="--force"):
        _install("cline", tmp_path)
    assert theirs.read_text() == "#!/bin/sh\necho '{}'\n" and not (d / "PostToolUse").exists()
    _install("cline", tmp_path, force=True)
    assert (d / ".cupcake-saved" / "PreToolUse").read_text() == "#!/bin/sh\necho '{}'\n"
    for event in ("PreToolUse", "PostToolUse", "TaskStart", "SessionShutdown"):
        script = d / event
        assert script.stat().st_mode & stat.S_IXUSR and f"CUPCAKE_HOOK_EVENT={event}" in script.read_text()
    assert {a for _, a in _install("cline", tmp_path)} == {"unchanged"}
    get("cline").uninstall(tmp_path)
    assert sorted(p.name for p in d.iterdir()) == ["PreToolUse"] and theirs.read_text().startswith("#!/bin/sh\necho")


@pytest.mark.parametrize("agent", AGENTS)
def test_install_needs_cupcake_on_path(agent: str, tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    with pytest.raises(InstallError, match="not on PATH"):
        _install(agent, tmp_path)


@pytest.mark.parametrize("agent", AGENTS)
def test_cupcake_init_sets_up_and_removes_each_agent(agent: str, tmp_path: Path) -> None:
    """The real `cupcake init --harness X` and `--uninstall` (isolated HOME and XDG dirs)."""
    env = {**os.environ, "HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": f"{VENV_BIN}:/usr/bin:/bin"}
    proj = tmp_path / "proj"
    proj.mkdir()
    cupcake = str(Path(VENV_BIN) / "cupcake")
    p = subprocess.run([cupcake, "init", "--harness", agent], cwd=proj, env=env, capture_output=True, timeout=300)
    assert p.returncode == 0, p.stderr.decode()
    where = {"copilot": ".github/hooks/cupcake.json", "factory": ".factory/hooks.json",
             "cline": ".clinerules/hooks/PreToolUse", "cursor": ".cursor/hooks.json"}[agent]
    assert (proj / where).is_file() and (proj / ".cupcake" / "policies" / agent).is_dir()
    assert f"next: edit .cupcake/policies/{agent}/" in p.stdout.decode()
    p = subprocess.run([cupcake, "init", "--harness", agent, "--uninstall"], cwd=proj, env=env, capture_output=True,
                       timeout=120)
    assert p.returncode == 0, p.stderr.decode()
    assert not (proj / where).exists() or "cupcake" not in (proj / where).read_text()


def test_verify_says_what_each_agent_cannot_enforce() -> None:
    from cupcake_py.authoring.verify import agent_lines

    warnings = {a: [ln for ln in agent_lines(a) if ln.startswith("WARNING")] for a in (*AGENTS, "claude", "codex")}
    assert warnings["copilot"] == [] and warnings["claude"] == [] and agent_lines("opencode") == []
    assert agent_lines("codex")  # a harness stating its capabilities as an object
    assert any("subagents" in w for w in warnings["factory"])
    assert any("cancels the whole task" in w for w in warnings["cline"])
    assert any("sandbox floor does not apply" in w for w in warnings["cursor"])


def test_lint_knows_each_agents_events_and_shared_argument_names() -> None:
    from cupcake_py.authoring import harness_facts as H

    assert H.harness_of("/p/.cupcake/policies/copilot/x.rego") == "copilot"
    assert H.harness_of("x.rego", "cupcake.policies.cline.x") == "cline"
    assert H.harness_of("/p/.cupcake/policies/opencode/x.rego") == "opencode"
    assert "PermissionRequest" in H.facts("copilot").events and "PermissionRequest" not in H.facts("cline").events
    assert {"file_path", "old_string", "new_string"} <= H.facts("copilot").tool_args["Edit"]
    assert "command" in H.facts("cline").tool_args["Bash"] and "commands" not in H.facts("cline").tool_args["Bash"]
    assert H.facts("factory").tool_names["Bash"] == "Execute"


def test_verify_all_runs_each_installed_hook_on_the_canaries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """`cupcake verify --all` (authoring/agents.py) runs the hooks `cupcake init` wrote, exactly as written, and
    reads every agent's own deny form (Copilot's permissionDecision, Cline's cancel, Cursor's permission)."""
    env = {"HOME": str(tmp_path / "home"), "XDG_CONFIG_HOME": str(tmp_path / "cfg"),
           "XDG_CACHE_HOME": str(tmp_path / "cache"), "PATH": f"{VENV_BIN}:/usr/bin:/bin"}
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    proj = tmp_path / "proj"
    proj.mkdir()
    cupcake = str(Path(VENV_BIN) / "cupcake")
    for agent in AGENTS:
        p = subprocess.run([cupcake, "init", "--harness", agent], cwd=proj, env={**os.environ, **env},
                           capture_output=True, timeout=300)
        assert p.returncode == 0, p.stderr.decode()
    from cupcake_py.authoring.agents import verify_agent

    for agent in AGENTS:
        report = verify_agent(agent, proj)
        assert report.ok and report.hooks, (agent, report.problems)
        assert all(c.blocked for h in report.hooks for c in h.canaries), agent
    assert any("cancels the whole task" in w for w in verify_agent("cline", proj).warnings)
