"""The Codex CLI, Gemini CLI and Qwen Code harnesses in-process: normalisation, the answer tables (what each
agent honours), hook installation (merge, idempotence, removal, trust, fail-closed wrapper), and the
`cupcake verify --all` / `cupcake protect` machinery. The real processes: tests/e2e_eval/test_hook_agent_examples.py;
the real agents: tests/e2e_agents/."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.core.errors import EventError
from cupcake_py.engine.harness_api import Answer
from cupcake_py.engine.synthesis import FinalDecision
from cupcake_py.harness import answers, get
from cupcake_py.harness import guard as hs
from cupcake_py.harness.hook_agent import HookAgent

AGENTS = ("codex", "gemini", "qwen")


def agent(name: str) -> HookAgent:
    h = get(name)
    assert isinstance(h, HookAgent)
    return h


def pre(name: str, tool: str, args: dict[str, object], cwd: str = "/tmp", **extra: object) -> dict[str, object]:
    event = "BeforeTool" if name == "gemini" else "PreToolUse"
    return {"hook_event_name": event, "session_id": "s", "cwd": cwd, "tool_name": tool, "tool_input": args, **extra}


# ------------------------------------------------------------------------------ normalisation


def test_codex_apply_patch_is_applypatch_with_every_file_of_the_patch(tmp_path: Path) -> None:
    h = agent("codex")
    patch = "*** Begin Patch\n*** Update File: a.py\n*** Move to: b.py\n@@\n-x\n+y\n*** Delete File: c.txt\n*** End Patch\n"
    out = h.preprocess(h.validate(pre("codex", "apply_patch", {"command": patch}, str(tmp_path))), script_inspection=False)
    assert out["tool_name"] == "ApplyPatch" and out["tool"] == "apply_patch"
    assert [(o["action"], o["path"]) for o in out["patch_operations"]] == [("update", "a.py"), ("move", "b.py"),
                                                                         ("delete", "c.txt")]
    assert out["tool_input"]["patchText"] == patch
    assert out["harness_capabilities"] == {"can_rewrite_shell": True, "can_ask": False, "subagent_calls_hooked": True}


def test_gemini_events_and_tools_are_normalised(tmp_path: Path) -> None:
    h = agent("gemini")
    ev = pre("gemini", "run_shell_command", {"command": "rm  -rf   x", "dir_path": "sub"}, str(tmp_path))
    out = h.preprocess(h.validate(ev), script_inspection=False)
    assert (out["hook_event_name"], out["agent_event"], out["tool_name"]) == ("PreToolUse", "BeforeTool", "Bash")
    assert out["tool_input"]["command"] == "rm -rf x"
    assert out["shell"]["effects"]["deletes"] == [str(tmp_path / "sub" / "x")]  # dir_path is the base
    mcp = {**pre("gemini", "mcp_my_server_do_it", {"a": 1}, str(tmp_path)),
           "mcp_context": {"server_name": "my_server", "tool_name": "do_it"}}
    assert h.preprocess(h.validate(mcp), script_inspection=False)["mcp"] == {"server": "my_server", "tool": "do_it"}
    glob = h.preprocess(h.validate(pre("gemini", "glob", {"pattern": "*", "dir_path": ".cupcake"}, str(tmp_path))),
                        script_inspection=False)
    assert glob["tool_name"] == "Glob" and glob["tool_input"]["path"] == ".cupcake"
    assert h.event_name({"hook_event_name": "AfterAgent"}) == "Stop"


def test_qwen_tools_are_normalised(tmp_path: Path) -> None:
    h = agent("qwen")
    out = h.preprocess(h.validate(pre("qwen", "grep_search", {"pattern": "k", "glob": "*.env"}, str(tmp_path))),
                       script_inspection=False)
    assert out["tool_name"] == "Grep" and out["tool_input"]["include"] == "*.env"
    assert h.tool_name({"tool_name": "agent"}) == "Task"
    assert h.preprocess(h.validate(pre("qwen", "mcp__s__t", {})), script_inspection=False)["mcp"] == \
        {"server": "s", "tool": "t"}


@pytest.mark.parametrize("name", AGENTS)
@pytest.mark.parametrize("bad", [[], "x", {"hook_event_name": "PreToolUse"},
                                 {"hook_event_name": "Nope", "session_id": "s", "cwd": "/"}])
def test_bad_events_are_rejected(name: str, bad: object) -> None:
    with pytest.raises(EventError):
        agent(name).validate(bad)


# ------------------------------------------------------------------------------ answers

KINDS = ("allow", "deny", "block", "halt", "ask", "modify")


def table_answer(name: str, final: FinalDecision, ev: dict[str, Any]) -> Answer:
    """The agent's answer table itself (respond adds the sticky halt memory)."""
    h = agent(name)
    return answers.answer(h.answers, final, ev, h.split(ev), h.table(), False)


def answer(name: str, kind: str, reason: str | None = "why", event: dict[str, object] | None = None) -> tuple[dict[str, object], int]:
    ev = event or pre(name, "Bash" if name == "codex" else "run_shell_command", {"command": "npm install", "x": 1})
    final = FinalDecision(kind, reason, updated_input={"command": "npm ci"} if kind == "modify" else None)  # type: ignore[arg-type]
    a = table_answer(name, final, ev)
    assert a.stdout is not None
    return a.stdout, a.exit


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(KINDS), reason=st.one_of(st.none(), st.text(max_size=20)))
def test_codex_pre_tool_answers_are_only_forms_codex_accepts(kind: str, reason: str | None) -> None:
    out, code = answer("codex", kind, reason)
    specific = out.get("hookSpecificOutput", {})
    assert isinstance(specific, dict) and code == 0
    assert "continue" not in out and "stopReason" not in out  # Codex marks such a PreToolUse answer Failed
    decision = specific.get("permissionDecision")
    assert decision in (None, "deny", "allow")  # never ask (unsupported: the tool would run)
    if decision == "deny":
        assert str(specific["permissionDecisionReason"]).strip()  # a deny without a reason runs the tool
    if "updatedInput" in specific:
        assert decision == "allow" and specific["updatedInput"] == {"command": "npm ci", "x": 1}  # the WHOLE input
    if kind in ("deny", "block", "halt", "ask"):
        assert decision == "deny"


def test_gemini_answers() -> None:
    assert answer("gemini", "deny")[0] == {"decision": "deny", "reason": "why"}
    halt = answer("gemini", "halt")[0]
    assert halt["continue"] is False and halt["decision"] == "deny"
    assert answer("gemini", "ask")[0]["decision"] == "deny"
    modify = answer("gemini", "modify")[0]
    assert modify == {"decision": "allow", "hookSpecificOutput": {"hookEventName": "BeforeTool",
                                                                  "tool_input": {"command": "npm ci", "x": 1}}}
    assert answer("gemini", "deny", "")[0]["reason"] == "denied by policy"
    stop = {"hook_event_name": "AfterAgent", "session_id": "s", "cwd": "/", "prompt": "p"}
    assert answer("gemini", "block", "go on", stop)[0] == {"decision": "deny", "reason": "go on"}
    fail = agent("gemini").fail("boom", stop)
    assert fail.exit == 0 and fail.stdout == {"continue": False, "stopReason": "cupcake: boom"}
    assert agent("gemini").fail("boom", pre("gemini", "x", {})).exit == 2


def test_qwen_cannot_rewrite_so_modify_is_a_deny_and_ask_stays_ask() -> None:
    out, _ = answer("qwen", "modify")
    assert out["hookSpecificOutput"]["permissionDecision"] == "deny"  # type: ignore[index]
    assert "cannot apply" in out["hookSpecificOutput"]["permissionDecisionReason"]  # type: ignore[index]
    assert answer("qwen", "ask")[0]["hookSpecificOutput"]["permissionDecision"] == "ask"  # type: ignore[index]


def test_ask_fallback_allow_lets_the_call_run(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CUPCAKE_ASK_FALLBACK", "allow")
    assert answer("codex", "ask")[0] == {}
    assert answer("gemini", "ask")[0] == {}
    monkeypatch.setenv("CUPCAKE_ASK_FALLBACK", "yes please")  # anything but allow is deny
    assert answer("codex", "ask")[0]["hookSpecificOutput"]["permissionDecision"] == "deny"  # type: ignore[index]


@pytest.mark.parametrize("name", AGENTS)
def test_a_halted_session_stays_halted_until_session_end(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    h = agent(name)
    ev = pre(name, "Bash" if name == "codex" else "run_shell_command", {"command": "x"})
    h.respond(FinalDecision("halt", "stop now"), ev, False)
    later = h.respond(FinalDecision("allow"), ev, False)
    assert "this session was halted by policy: stop now" in json.dumps(later.stdout)
    h.respond(FinalDecision("allow"), {"hook_event_name": "SessionEnd", "session_id": "s", "cwd": "/"}, False)
    assert h.respond(FinalDecision("allow"), ev, False).stdout in ({}, {"decision": "allow"})


# ------------------------------------------------------------------------------ install


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    h = tmp_path / "home"
    h.mkdir()
    monkeypatch.setenv("HOME", str(h))
    monkeypatch.delenv("CODEX_HOME", raising=False)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "cupcake").write_text("#!/bin/sh\nexit 0\n")
    (bin_dir / "cupcake").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:/usr/bin:/bin")
    return h


@pytest.mark.parametrize("name", AGENTS)
def test_install_merges_is_idempotent_and_uninstall_removes_only_ours(name: str, home: Path, tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    h = agent(name)
    path = h.setup().settings_path(project)
    event = h.setup().events[2][0]
    user = {"model": "x", "hooks": {event: [{"matcher": "mine", "hooks": [{"type": "command", "command": "my-hook"}]}]}}
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(user))
    h.install(project, False)
    first = path.read_bytes()
    h.install(project, False)
    assert path.read_bytes() == first  # idempotent
    merged = json.loads(first)
    assert merged["model"] == "x" and merged["hooks"][event][0] == user["hooks"][event][0]
    ours = [hk for g in merged["hooks"][event] for hk in g["hooks"] if "eval --harness" in hk["command"]]
    assert len(ours) == 1 and "cupcake eval --harness " + name in ours[0]["command"]
    assert "/" not in ours[0]["command"].split("cupcake eval")[0].split()[-1]  # cupcake from PATH, not a path
    h.uninstall(project)
    assert json.loads(path.read_text()) == user


def test_install_needs_cupcake_on_path(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(hs.InstallError, match="not on PATH"):
        agent("qwen").install(tmp_path, False)


def test_install_leaves_broken_settings_alone(home: Path, tmp_path: Path) -> None:
    path = tmp_path / ".qwen" / "settings.json"
    path.parent.mkdir()
    path.write_text("{not json")
    with pytest.raises(hs.InstallError, match="not valid JSON"):
        agent("qwen").install(tmp_path, False)
    assert path.read_text() == "{not json"


def test_gemini_project_install_trusts_the_folder(home: Path, tmp_path: Path) -> None:
    project = tmp_path / "p"
    project.mkdir()
    trusted = home / ".gemini" / "trustedFolders.json"
    trusted.parent.mkdir()
    trusted.write_text(json.dumps({"/other": "DO_NOT_TRUST"}))
    agent("gemini").install(project, False)
    assert json.loads(trusted.read_text()) == {"/other": "DO_NOT_TRUST", str(project.resolve()): "TRUST_FOLDER"}
    trusted.write_text(json.dumps({str(project.resolve()): "DO_NOT_TRUST"}))
    with pytest.raises(hs.InstallError, match="leaves your choice alone"):
        agent("gemini").install(project, False)


def test_codex_global_install_honours_codex_home(home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "ch"))
    agent("codex").install(None, False)
    assert (tmp_path / "ch" / "hooks.json").is_file()


def test_deadlines_are_below_the_hook_timeout() -> None:
    assert hs.EVAL_TIMEOUT < hs.HARD_TIMEOUT < hs.KILL_AFTER < hs.HOOK_TIMEOUT_S


@pytest.mark.parametrize(("script", "code"), [("exit 0", 0), ("exit 1", 2), ("exit 2", 2), ("kill -9 $$", 2), (None, 2)])
def test_hook_command_turns_every_failure_into_exit_2(tmp_path: Path, script: str | None, code: int) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    if script is not None:
        exe = bin_dir / "cupcake"
        exe.write_text(f"#!/bin/sh\necho '{{\"ok\":1}}'\n{script}\n")
        exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    env = {**os.environ, "PATH": f"{bin_dir}:/usr/bin:/bin"}
    proc = subprocess.run(["/bin/sh", "-c", hs.hook_command("codex")], env=env, capture_output=True, timeout=30)
    assert proc.returncode == code
    if code == 2 and script != "exit 2":
        assert b"blocked (fail closed)" in proc.stderr


# ------------------------------------------------------------------------------ verify --all, protect


def test_blocks_reads_answers_as_the_agents_do() -> None:
    from cupcake_py.authoring.agents import blocks

    assert blocks("", 2)[0]
    assert blocks('{"decision":"deny","reason":"r"}', 0) == (True, "r")
    assert blocks('{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"r"}}', 0)[0]
    assert not blocks('{"hookSpecificOutput":{"permissionDecision":"deny"}}', 0)[0]  # Codex runs it
    assert not blocks('{"hookSpecificOutput":{"permissionDecision":"ask","permissionDecisionReason":"r"}}', 0)[0]
    assert not blocks("not json", 0)[0] and not blocks("{}", 0)[0] and not blocks("", 1)[0]


def _project(tmp_path: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> Path:
    from cupcake_py.authoring import scaffold

    project = tmp_path / "p"
    project.mkdir()
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    scaffold.init_project(project, harness=name)
    return project


def test_verify_all_runs_the_configured_hook_and_flags_one_that_does_not_block(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cupcake_py.authoring.agents import verify_agent

    venv_bin = Path(os.sys.executable).parent
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("PATH", f"{venv_bin}:/usr/bin:/bin")
    project = _project(tmp_path, "qwen", monkeypatch)
    (project / ".env").write_text("K=1\n")
    report = verify_agent("qwen", project)
    # no global config here: the secret read is not blocked, and verify says so
    blocked = {c.name: c.blocked for c in report.hooks[0].canaries}
    assert blocked == {"protected-delete": True, "secret-read": False, "no-verify": True}
    assert not report.ok and any("secret-read" in p for p in report.problems)
    assert any("can_rewrite_shell" in w for w in report.warnings)
    settings_file = project / ".qwen" / "settings.json"
    settings = json.loads(settings_file.read_text())
    for group in settings["hooks"]["PreToolUse"]:  # a hook that answers but never blocks (e.g. edited by hand)
        for hk in group["hooks"]:
            hk["command"] = "echo {} # eval --harness qwen"
    settings_file.write_text(json.dumps(settings))
    broken = verify_agent("qwen", project)
    assert not any(c.blocked for c in broken.hooks[0].canaries)


def test_protect_sets_up_each_detected_agent_and_the_global_config(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, home: Path) -> None:
    from cupcake_py.authoring.agents import protect

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    bin_dir = Path(os.environ["PATH"].split(":")[0])
    (bin_dir / "codex").write_text("#!/bin/sh\n")
    (bin_dir / "codex").chmod(0o755)
    (home / ".qwen").mkdir()  # a config dir also counts as installed
    lines, found = protect()
    assert {"codex", "qwen"} <= set(found) and "gemini" not in found
    assert (home / ".codex" / "hooks.json").is_file() and (home / ".qwen" / "settings.json").is_file()
    rulebook = tmp_path / "config" / "cupcake" / "rulebook.yml"
    import yaml

    assert "git_block_no_verify" in yaml.safe_load(rulebook.read_text())["builtins"]  # lands in the mapping
    assert any("trust" in ln for ln in lines)


FAKE_APP_SERVER = r'''#!{python}
import json, sys
log = open({log!r}, "a")
for line in sys.stdin:
    msg = json.loads(line)
    log.write(line)
    log.flush()
    if "id" not in msg:
        continue
    result = {{}}
    if msg["method"] == "hooks/list":
        result = {{"data": [{{"cwd": msg["params"]["cwds"][0], "hooks": [
            {{"key": "k-ours", "command": "sh -c 'cupcake eval --harness codex'", "currentHash": "sha256:ours"}},
            {{"key": "k-user", "command": "my-own-hook", "currentHash": "sha256:user"}}]}}]}}
    elif msg["method"] == "config/batchWrite":
        result = {{"status": "ok", "filePath": "/fake/config.toml"}}
    print(json.dumps({{"jsonrpc": "2.0", "id": msg["id"], "result": result}}), flush=True)
'''


def test_codex_trust_asks_codex_to_trust_only_cupcakes_hooks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    from cupcake_py.harness.codex.trust import TrustError, trust_cupcake_hooks

    log = tmp_path / "rpc.jsonl"
    fake = tmp_path / "bin" / "codex"
    fake.parent.mkdir()
    fake.write_text(FAKE_APP_SERVER.format(python=sys.executable, log=str(log)))
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake.parent}:/usr/bin:/bin")
    assert trust_cupcake_hooks(tmp_path) == ("/fake/config.toml", 1)
    calls = [json.loads(x) for x in log.read_text().splitlines()]
    assert [c["method"] for c in calls] == ["initialize", "initialized", "hooks/list", "config/batchWrite"]
    assert calls[2]["params"] == {"cwds": [str(tmp_path)]}
    assert calls[3]["params"]["edits"] == [{"keyPath": "hooks.state", "value": {"k-ours": {"trusted_hash": "sha256:ours"}},
                                            "mergeStrategy": "upsert"}]  # the user's own hook is left alone
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(TrustError, match="not on PATH"):
        trust_cupcake_hooks(tmp_path)


def test_the_sandbox_floor_gets_the_shell_command_only_where_a_rewrite_is_honoured() -> None:
    assert agent("codex").shell_command(pre("codex", "Bash", {"command": "ls  -l"})) == "ls  -l"
    assert agent("gemini").shell_command(pre("gemini", "run_shell_command", {"command": "ls"})) == "ls"
    assert agent("gemini").shell_command(pre("gemini", "replace", {"file_path": "a"})) is None
    post = {**pre("codex", "Bash", {"command": "ls"}), "hook_event_name": "PostToolUse"}
    assert agent("codex").shell_command(post) is None
    assert agent("qwen").shell_command(pre("qwen", "run_shell_command", {"command": "ls"})) is None


def test_an_ask_carrying_the_sandboxed_command_never_runs_the_original(monkeypatch: pytest.MonkeyPatch) -> None:
    wrapped = {"command": "bwrap ... -- ls"}
    ask = FinalDecision("ask", "approve?", updated_input=wrapped)
    codex_ev = pre("codex", "Bash", {"command": "ls"})
    qwen_ev = pre("qwen", "run_shell_command", {"command": "ls"})
    gemini_ev = pre("gemini", "run_shell_command", {"command": "ls"})
    monkeypatch.setenv("CUPCAKE_ASK_FALLBACK", "allow")
    assert table_answer("codex", ask, codex_ev).stdout == {"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "allow", "updatedInput": wrapped}}
    assert table_answer("gemini", ask, gemini_ev).stdout == {"decision": "allow", "hookSpecificOutput": {
        "hookEventName": "BeforeTool", "tool_input": wrapped}}
    qwen = table_answer("qwen", ask, qwen_ev).stdout
    assert qwen is not None and qwen["hookSpecificOutput"]["permissionDecision"] == "deny"  # approving would run `ls`
    monkeypatch.delenv("CUPCAKE_ASK_FALLBACK")
    out = table_answer("codex", ask, codex_ev).stdout
    assert out is not None and out["hookSpecificOutput"]["permissionDecision"] == "deny"


JSON = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                    lambda kids: st.lists(kids, max_size=3) | st.dictionaries(st.text(max_size=12), kids, max_size=4),
                    max_leaves=12)
FIELDS = st.sampled_from(["hook_event_name", "session_id", "cwd", "tool_name", "tool_input", "prompt",
                          "tool_response", "stop_hook_active", "mcp_context"])


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(AGENTS), event=st.one_of(JSON, st.dictionaries(FIELDS, JSON, max_size=6)))
def test_any_input_validates_or_fails_closed(name: str, event: object) -> None:
    """Whatever arrives on stdin: a valid event, or EventError, whose answer blocks (exit 2, or `continue:
    false` where exit 2 would stop nothing); never another exception."""
    h = agent(name)
    try:
        valid = h.validate(event)
    except EventError as e:
        answer = h.fail(str(e), event)
        assert answer.exit == 2 or (answer.stdout or {}).get("continue") is False
        return
    h.preprocess(valid, script_inspection=False)  # never raises for a validated event
