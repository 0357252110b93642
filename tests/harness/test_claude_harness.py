"""The Claude Code harness without a process: validation, normalisation, the answer for every
(event, decision) pair, halted sessions, and `cupcake init --harness claude` settings merging."""

from __future__ import annotations

import json
import os
from pathlib import Path

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.core.errors import EventError
from cupcake_py.core.userdirs import user_cache_dir
from cupcake_py.engine.synthesis import FinalDecision
from cupcake_py.harness import claude as _claude_pkg  # noqa: F401 - the package imports cleanly
from cupcake_py.harness import get, session_halts
from cupcake_py.harness.claude import data, install
from cupcake_py.harness.claude.preprocess import preprocess
from cupcake_py.harness.claude.response import claude_output, failure, whole_input
from cupcake_py.harness.claude.validate import validate_event
from cupcake_py.harness.schema import schema_errors

H = get("claude")


def _ev(name: str, **kw: object) -> dict[str, object]:
    return {"hook_event_name": name, "session_id": "s", "cwd": "/w", "transcript_path": "/t.jsonl", **kw}


def _pre(tool: str, inp: dict[str, object]) -> dict[str, object]:
    return _ev("PreToolUse", tool_name=tool, tool_input=inp, tool_use_id="toolu_1")


# ------------------------------------------------------------------ validation


def test_schema_is_a_valid_json_schema_and_agrees_with_jsonschema() -> None:
    schema = data.event_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator.check_schema(data.response_schema())
    for ev in (_pre("Bash", {"command": "ls"}), _ev("Stop", stop_hook_active=False), _ev("UserPromptSubmit"),
               _ev("PostToolUse", tool_name="Bash", tool_input={}), {"hook_event_name": "Stop"}, [1], "x"):
        ours = not schema_errors(ev, schema)
        theirs = jsonschema.Draft202012Validator(schema).is_valid(ev)
        assert ours == theirs, ev


@pytest.mark.parametrize("event", [
    _pre("Bash", {"command": "ls"}),
    _ev("PostToolUse", tool_name="Write", tool_input={"file_path": "a", "content": ""}, tool_response={}),
    _ev("PostToolUseFailure", tool_name="Bash", tool_input={"command": "x"}, error="Exit code 1"),
    _ev("UserPromptSubmit", prompt="hi"), _ev("SessionStart", source="startup"), _ev("Stop", stop_hook_active=True),
    _ev("SubagentStop", agent_id="a"), _ev("PreCompact", trigger="manual", custom_instructions=None),
    _ev("SessionEnd", reason="other"), _ev("Notification", message="m"),
    _ev("PermissionRequest", tool_name="Bash", tool_input={"command": "ls"}),
    _pre("mcp__srv__tool", {"anything": [1, {"x": None}]}),
])
def test_every_event_type_validates(event: dict[str, object]) -> None:
    assert validate_event(event) is event


@pytest.mark.parametrize(("event", "needle"), [
    (_pre("Bash", {"command": 1}), "tool_input.command"),
    (_pre("Edit", {"filePath": "a", "oldString": "b", "newString": "c"}), "tool_input.file_path"),
    (_pre("Read", {"file_path": "a", "offset": "2"}), "offset"),
    (_ev("PreToolUse", tool_name="Bash"), "tool_input"),
    (_ev("PostToolUse", tool_name="Bash", tool_input={}), "tool_response"),
    (_ev("UserPromptSubmit"), "prompt"),
    (_ev("BeforeTool"), "BeforeTool"),
    ({"hook_event_name": "Stop", "cwd": "/w"}, "session_id"),
    ([], "object"),
])
def test_bad_events_are_rejected_with_the_reason(event: object, needle: str) -> None:
    with pytest.raises(EventError, match="invalid Claude Code event") as e:
        validate_event(event)
    assert needle in str(e.value)


# ------------------------------------------------------------------ normalisation


def test_file_tools_resolve_their_path_fields(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to("real")
    for tool, inp in (("Edit", {"file_path": "link/a.py", "old_string": "x", "new_string": "y"}),
                      ("NotebookEdit", {"notebook_path": "link/a.py", "new_source": "x"}),
                      ("Grep", {"pattern": "x", "path": "link/a.py"})):
        out = preprocess({**_pre(tool, inp), "cwd": str(tmp_path)})
        assert out["resolved_file_path"] == str(tmp_path / "real" / "a.py"), tool
        assert out["harness"] == "claude" and out["tool"] == tool


def test_agent_is_task_and_mcp_tools_are_split() -> None:
    out = preprocess(_pre("Agent", {"prompt": "p", "description": "d"}))
    assert (out["tool"], out["tool_name"]) == ("Agent", "Task")
    assert H.tool_name(_pre("Agent", {"prompt": "p"})) == "Task"
    out = preprocess(_pre("mcp__github__delete_repo", {"repo": "a/b"}))
    assert out["mcp"] == {"server": "github", "tool": "delete_repo"} and out["tool_name"] == "mcp__github__delete_repo"
    assert data.mcp_parts("mcp__x") is None and data.mcp_parts("mcp____t") is None and data.mcp_parts("Bash") is None


def test_bash_is_normalised_and_analysed_like_opencode(tmp_path: Path) -> None:
    ev = {**_pre("Bash", {"command": "rm  -rf\tsub/*", "description": "d"}), "cwd": str(tmp_path)}
    out = preprocess(ev)
    assert out["tool_input"]["command"] == "rm -rf sub/*"
    assert out["affected_parent_directories"] == [str(tmp_path / "sub")]
    assert ev["tool_input"]["command"] == "rm  -rf\tsub/*", "the event itself is not changed"


def test_grep_glob_gets_the_opencode_alias_but_never_sends_it_back() -> None:
    ev = _pre("Grep", {"pattern": "k", "glob": ".cupcake/**"})
    out = preprocess(ev)
    assert out["tool_input"]["include"] == ".cupcake/**"
    final = FinalDecision("modify", "r", ("R",), {**out["tool_input"], "pattern": "other"})
    answer = H.respond(final, ev, False)
    assert answer.stdout == {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": {
        "pattern": "other", "glob": ".cupcake/**"}}}


def test_non_tool_events_pass_unchanged() -> None:
    ev = _ev("UserPromptSubmit", prompt="hi", permission_mode="default")
    capabilities = {"can_rewrite_shell": True, "can_ask": True, "subagent_calls_hooked": True}
    assert preprocess(ev) == {**ev, "harness": "claude", "harness_capabilities": capabilities}
    assert H.tool_name(ev) is None


# ------------------------------------------------------------------ answers

ALL_EVENTS = data.event_schema()["properties"]["hook_event_name"]["enum"]
KINDS = ("halt", "deny", "block", "ask", "modify", "allow")


def _final(kind: str) -> FinalDecision:
    if kind == "modify":
        return FinalDecision("modify", "rewrite", ("M",), {"command": "echo new"})
    if kind == "allow":
        return FinalDecision("allow", context=("c1", "c2"))
    return FinalDecision(kind, f"{kind} reason", ("R",))  # type: ignore[arg-type]


@pytest.mark.parametrize("name", ALL_EVENTS)
@pytest.mark.parametrize("kind", KINDS)
def test_every_answer_is_valid_hook_output(name: str, kind: str) -> None:
    ev = _ev(name, tool_name="Bash", tool_input={"command": "old", "timeout": 5})
    out = claude_output(_final(kind), ev)
    jsonschema.validate(out, data.response_schema())
    if kind in ("halt", "deny", "block") and name not in ("SessionEnd",):
        assert out, f"a stopping decision on {name} must say something"
        assert f"{kind} reason" in json.dumps(out)


def test_the_decision_table() -> None:
    pre = _pre("Bash", {"command": "old", "timeout": 5})
    assert claude_output(_final("deny"), pre) == {"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": "deny reason"}}
    assert claude_output(_final("halt"), pre)["continue"] is False
    assert claude_output(_final("ask"), pre)["hookSpecificOutput"]["permissionDecision"] == "ask"
    assert claude_output(_final("modify"), pre) == {"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "updatedInput": {"command": "echo new", "timeout": 5}}}
    assert claude_output(_final("allow"), pre) == {"hookSpecificOutput": {
        "hookEventName": "PreToolUse", "additionalContext": "c1\n\nc2"}}
    assert claude_output(FinalDecision("allow"), pre) == {}
    post = _ev("PostToolUse", tool_name="Bash", tool_input={}, tool_response={})
    assert claude_output(_final("block"), post) == {"decision": "block", "reason": "block reason"}
    stop = _ev("Stop", stop_hook_active=False)
    assert claude_output(_final("block"), stop) == {"decision": "block", "reason": "block reason"}
    assert claude_output(_final("halt"), stop) == {"continue": False, "stopReason": "halt reason"}
    assert claude_output(_final("ask"), stop) == {}
    assert claude_output(_final("deny"), _ev("SessionStart")) == {"continue": False, "stopReason": "deny reason"}
    assert claude_output(_final("halt"), _ev("SessionEnd")) == {}
    perm = _ev("PermissionRequest", tool_name="Bash", tool_input={})
    assert claude_output(_final("halt"), perm)["hookSpecificOutput"]["decision"] == {
        "behavior": "deny", "message": "halt reason", "interrupt": True}


@given(st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=5),
       st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5), max_size=5))
@settings(max_examples=100)
def test_updated_input_is_always_the_whole_input(original: dict[str, object], updated: dict[str, object]) -> None:
    out = whole_input(original, updated, set())
    assert set(out) == set(original) | set(updated)
    assert all(out[k] == v for k, v in updated.items())
    assert all(out[k] == v for k, v in original.items() if k not in updated)


def test_strict_never_exits_1_and_failures_exit_2_with_stderr() -> None:
    pre = _pre("Bash", {"command": "x"})
    a = H.respond(_final("deny"), {**pre, "session_id": ""}, True)
    assert (a.exit, a.stderr) == (2, "deny reason")
    assert H.respond(_final("allow"), {**pre, "session_id": ""}, True).exit == 0
    f = failure("boom", pre)
    assert f.exit == 2 and f.stderr == "cupcake: boom"
    assert f.stdout is not None and f.stdout["hookSpecificOutput"]["permissionDecision"] == "deny"
    for ev in (None, "garbage", [1], _ev("UserPromptSubmit", prompt="p"), _ev("PostToolUse")):
        g = failure("boom", ev)
        assert g.exit == 2 and g.stdout == {"decision": "block", "reason": "cupcake: boom"}
    for name in ("SessionStart", "Stop", "SubagentStop", "PreCompact", "Notification"):
        h = failure("boom", _ev(name))  # exit 2 would stop nothing there: the session ends instead
        assert (h.exit, h.stdout) == (0, {"continue": False, "stopReason": "cupcake: boom"})


def test_a_halted_session_stays_halted_until_session_end(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    pre = {**_pre("Bash", {"command": "x"}), "session_id": "sess-1"}
    assert H.respond(_final("halt"), pre, False).stdout["continue"] is False  # type: ignore[index]
    later = H.respond(FinalDecision("allow"), {**pre, "tool_input": {"command": "ls"}}, False).stdout
    assert later is not None
    assert later["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert later["hookSpecificOutput"]["permissionDecisionReason"] == "this session was halted by policy: halt reason"
    other = H.respond(FinalDecision("allow"), {**pre, "session_id": "sess-2"}, False).stdout
    assert other == {}
    stop = H.respond(FinalDecision("allow"), _ev("Stop", session_id="sess-1"), False).stdout
    assert stop == {"continue": False, "stopReason": "this session was halted by policy: halt reason"}
    H.respond(FinalDecision("allow"), _ev("SessionEnd", session_id="sess-1"), False)
    assert session_halts.halted("claude", "sess-1") is None
    assert H.respond(FinalDecision("allow"), pre, False).stdout == {}


def test_an_unreadable_halt_record_fails_closed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    session_halts.record("claude", "s9", "r")
    rec = Path(user_cache_dir("claude-halts")) / session_halts._name("s9")
    rec.unlink()
    rec.mkdir()  # reading a directory fails with IsADirectoryError, not FileNotFoundError
    with pytest.raises(session_halts.HaltRecordError):
        session_halts.halted("claude", "s9")


# ------------------------------------------------------------------ init / uninstall


def _settings(p: Path) -> dict[str, object]:
    return json.loads((p / ".claude" / "settings.json").read_text())


def test_install_merges_is_idempotent_and_uninstall_removes_only_ours(tmp_path: Path) -> None:
    mine = {"matcher": "Bash", "hooks": [{"type": "command", "command": "echo mine"}]}
    user = {"model": "x", "permissions": {"allow": ["Bash(ls)"]},
            "hooks": {"PreToolUse": [mine], "Stop": [{"hooks": [{"type": "command", "command": "notify"}]}]}}
    (tmp_path / ".claude").mkdir()
    (tmp_path / ".claude" / "settings.json").write_text(json.dumps(user))
    path, action = install.install(tmp_path, "CMD eval --harness claude")
    assert action == "overwritten"
    s = _settings(tmp_path)
    assert s["model"] == "x" and s["permissions"] == user["permissions"]
    hooks = s["hooks"]
    assert isinstance(hooks, dict)
    assert set(hooks) == set(install.TOOL_EVENTS + install.OTHER_EVENTS)
    assert hooks["PreToolUse"][0] == mine and hooks["PreToolUse"][1]["matcher"] == "*"
    assert hooks["Stop"][0]["hooks"][0]["command"] == "notify" and "matcher" not in hooks["Stop"][1]
    assert hooks["PreToolUse"][1]["hooks"][0]["timeout"] == install.HOOK_TIMEOUT
    before = path.read_bytes()
    assert install.install(tmp_path, "CMD eval --harness claude")[1] == "unchanged"
    assert path.read_bytes() == before
    install.install(tmp_path, "NEWCMD eval --harness claude")
    assert sum("eval --harness claude" in json.dumps(g) for g in _settings(tmp_path)["hooks"]["PreToolUse"]) == 1
    assert install.uninstall(tmp_path)[1] == "removed"
    assert _settings(tmp_path) == user
    assert install.uninstall(tmp_path)[1] == "unchanged"


def test_install_refuses_to_clobber_broken_settings(tmp_path: Path) -> None:
    (tmp_path / ".claude").mkdir()
    for bad in ("{not json", "[1, 2]", '{"hooks": {"PreToolUse": {"x": 1}}}'):
        (tmp_path / ".claude" / "settings.json").write_text(bad)
        with pytest.raises(install.InstallError):
            install.install(tmp_path, "CMD eval --harness claude")
        assert (tmp_path / ".claude" / "settings.json").read_text() == bad


def test_global_install_goes_to_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    path, action = install.install(None, "CMD eval --harness claude")
    assert path == tmp_path / ".claude" / "settings.json" and action == "created"


def test_hook_command_turns_every_failure_into_exit_2(tmp_path: Path) -> None:
    """The wrapper itself, run by sh: cupcake missing (127), killed (137), exit 1 → 2; 0 and 2 pass."""
    import subprocess

    def run(exe: str) -> tuple[int, str]:
        cmd = install.hook_command(exe, 1, 1, 5)
        p = subprocess.run(["sh", "-c", cmd], input=b"{}", capture_output=True, timeout=30)
        return p.returncode, p.stderr.decode()

    odd = tmp_path / "dir with space and 'quote'"
    odd.mkdir()
    fake = odd / "fake"
    for body, want, msg in (("exit 0", 0, ""), ("echo own >&2; exit 2", 2, "own"), ("exit 1", 2, "exit 1"),
                            ("kill -9 $$", 2, "exit 137")):
        fake.write_text(f"#!/bin/sh\n{body}\n")
        fake.chmod(0o755)
        code, err = run(str(fake))
        assert code == want and msg in err, (body, code, err)
    code, err = run(str(tmp_path / "missing"))
    assert code == 2 and "exit 127" in err and "fail closed" in err


def test_hook_deadlines_are_ordered() -> None:
    assert install.EVAL_TIMEOUT < install.HARD_TIMEOUT < install.KILL_AFTER < install.HOOK_TIMEOUT
    cmd = install.hook_command("/x/cupcake")
    assert f"--timeout {install.EVAL_TIMEOUT}" in cmd and f"--hard-timeout {install.HARD_TIMEOUT}" in cmd
    assert install.is_ours({"command": cmd})


def test_executable_is_absolute_when_known() -> None:
    exe = install.cupcake_executable()
    assert exe == "cupcake" or os.path.isabs(exe)
