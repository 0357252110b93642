"""End to end inside a REAL OpenCode (opencode-ai 1.18.33): the committed plugin bundle, a scripted mock LLM,
and the cupcake executable from tests/e2e_opencode/driver.py (fake_cupcake.py unless CUPCAKE_E2E_BIN is set).

Two `opencode run`s: one session that walks through every scenario (one tool call per step, see
mock_llm.py), and one with a short plugin timeout for a cupcake that never answers.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from e2e_opencode.driver import OpenCodeE2E, RunResult, ToolPart, uses_fake


@dataclass
class World:
    e2e: OpenCodeE2E
    main: RunResult
    victim: Path
    sub_victim: Path
    protected: Path
    notes: Path


def _steps(*steps: str) -> str:
    return " ;; ".join(steps)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    root = tmp_path_factory.mktemp("e2e")
    with OpenCodeE2E(root, timeout_ms=60_000) as e2e:
        proj = e2e.project
        victim, sub_victim = proj / "victim", proj / "sub-victim"
        for d in (victim, sub_victim):
            d.mkdir()
            (d / "keep.txt").write_text("precious\n")
        protected = proj / "protected" / "config.txt"
        protected.parent.mkdir()
        protected.write_text("original\n")
        notes = proj / "notes.txt"
        notes.write_text("original\n")
        prompt = _steps(
            "CMD: echo allowed-ok",
            f"CMD: rm -rf {victim}",
            "CMD: echo REWRITE_ME",
            f"EDIT: {protected}",
            f"READ: {notes}",
            f"EDIT: {notes}",
            "CMD: echo LEAK_TOKEN_123",
            "CMD: git push --force origin main",
            "CMD: echo CONTEXT_ME",
            f"TASK: rm -rf {sub_victim}",
            "CMD: echo last-step",
        )
        main = e2e.run(prompt)
        print(f"\nopencode run (main scenario session): {main.seconds:.1f} s")
        yield World(e2e, main, victim, sub_victim, protected, notes)


def _part(run: RunResult, tool: str, pred: str) -> ToolPart:
    for t in run.tools:
        if t.tool == tool and pred in str(t.input):
            return t
    raise AssertionError(
        f"no {tool} call matching {pred!r} in {[(t.tool, t.input, t.status) for t in run.tools]}"
    )


def test_run_finished_and_plugin_loaded(world: World) -> None:
    assert world.main.returncode == 0, world.main.stderr[-3000:]
    assert re.search(r'message="self-test ok: cupcake ', world.main.stderr), (
        "plugin self-test line missing from OpenCode's log"
    )
    assert "failed to load plugin" not in world.main.stderr
    assert world.main.texts and world.main.texts[-1].startswith("MOCK DONE: "), world.main.texts


def test_allowed_command_runs(world: World) -> None:
    part = _part(world.main, "bash", "allowed-ok")
    assert part.status == "completed"
    assert part.output == "allowed-ok\n"
    assert world.main.tool_message(part.call_id).strip() == "allowed-ok"


def test_denied_rm_rf_does_not_run_and_model_gets_the_reason(world: World) -> None:
    part = _part(world.main, "bash", f"rm -rf {world.victim}")
    assert part.status == "error"
    assert (world.victim / "keep.txt").read_text() == "precious\n"
    got = world.main.tool_message(part.call_id)
    assert got == part.error
    assert got.startswith("Blocked by cupcake policy [rule e2e.no_rm_rf]: this bash call")
    assert "Reason: recursive forced deletion is not allowed" in got


def test_modify_rewrites_the_command_in_place(world: World) -> None:
    part = next(t for t in world.main.tools if t.tool == "bash" and "rewritten-by-cupcake" in str(t.input))
    assert part.status == "completed"
    assert part.input["command"] == "echo rewritten-by-cupcake"
    assert part.output == "rewritten-by-cupcake\n"
    assert "REWRITE_ME" not in world.main.tool_message(part.call_id)


def test_edit_of_protected_path_is_blocked(world: World) -> None:
    part = _part(world.main, "edit", str(world.protected))
    assert part.status == "error"
    assert part.error.startswith(
        "Blocked by cupcake policy [rule e2e.protected_paths]: this edit call (filePath:"
    )
    assert world.protected.read_text() == "original\n"
    assert world.main.tool_message(part.call_id) == part.error


def test_allowed_edit_goes_through(world: World) -> None:
    part = _part(world.main, "edit", str(world.notes))
    assert part.status == "completed", part.error
    assert world.notes.read_text() == "tampered\n"


def test_post_tool_use_block_reaches_the_model(world: World) -> None:
    part = _part(world.main, "bash", "LEAK_TOKEN_123")
    assert part.status == "completed"
    got = world.main.tool_message(part.call_id)
    assert got.startswith("LEAK_TOKEN_123\n")
    assert (
        "[cupcake] Policy feedback [rule e2e.no_leaks]: the policy objected to the result of this bash call."
        in got
    )
    assert "Reason: the output contains a leaked token" in got


def test_ask_is_blocked_with_approval_instructions(world: World) -> None:
    part = _part(world.main, "bash", "git push --force")
    assert part.status == "error"
    assert part.error.startswith("Approval required by cupcake policy [rule e2e.force_push]")
    assert "disable rule e2e.force_push and re-run" in part.error
    assert world.main.tool_message(part.call_id) == part.error


def test_allow_context_is_injected_into_the_system_prompt(world: World) -> None:
    part = _part(world.main, "bash", "CONTEXT_ME")
    assert part.status == "completed"

    def system_of(body: dict) -> str:
        return "\n".join(str(m.get("content")) for m in body.get("messages", []) if m.get("role") == "system")

    def has_result(body: dict) -> bool:
        return any(m.get("tool_call_id") == part.call_id for m in body.get("messages", []))

    main_session = [
        b for b in world.main.requests if b.get("tools") and "CMD: echo allowed-ok" in str(b.get("messages"))
    ]
    before = [b for b in main_session if not has_result(b)]
    after = [b for b in main_session if has_result(b)]
    assert before and after
    assert all("E2E_CONTEXT_MARKER" not in system_of(b) for b in before)
    assert all("E2E_CONTEXT_MARKER: run the test suite before committing" in system_of(b) for b in after)


def test_subagent_tool_calls_are_governed(world: World) -> None:
    task = _part(world.main, "task", str(world.sub_victim))
    assert task.status == "completed"
    assert (world.sub_victim / "keep.txt").read_text() == "precious\n"
    got = world.main.tool_message(task.call_id)
    assert "<task_result>" in got
    assert "Blocked by cupcake policy [rule e2e.no_rm_rf]" in got
    if uses_fake():
        events = [
            e["event"] for e in world.e2e.cupcake_events() if e["event"]["hook_event_name"] == "PreToolUse"
        ]
        parent = next(e for e in events if e["tool"] == "task")
        child = next(
            e for e in events if e["tool"] == "bash" and str(world.sub_victim) in e["args"]["command"]
        )
        assert child["session_id"] != parent["session_id"]
        assert child.get("agent") == "general"


def test_events_follow_the_contract(world: World) -> None:
    if not uses_fake():
        pytest.skip("the event log is written by fake_cupcake.py only")
    events = [e["event"] for e in world.e2e.cupcake_events()]
    pre = next(
        e
        for e in events
        if e["hook_event_name"] == "PreToolUse" and e["args"].get("command") == "echo allowed-ok"
    )
    assert pre["cwd"] == str(world.e2e.project)
    assert pre["session_id"].startswith("ses_") and pre["call_id"]
    post = next(
        e
        for e in events
        if e["hook_event_name"] == "PostToolUse" and e["args"].get("command") == "echo allowed-ok"
    )
    assert post["result"]["output"] == "allowed-ok\n"
    assert post["result"]["success"] is True
    assert {"title", "metadata"} <= set(post["result"])
    # blocked calls never run, so OpenCode fires no tool.execute.after for them
    denied = next(
        e
        for e in events
        if "rm -rf" in str(e["args"].get("command")) and e["hook_event_name"] == "PreToolUse"
    )
    assert not [
        e for e in events if e["hook_event_name"] == "PostToolUse" and e.get("call_id") == denied["call_id"]
    ]


def test_unanswering_cupcake_times_out_and_fails_closed(tmp_path: Path) -> None:
    if not uses_fake():
        pytest.skip("needs fake_cupcake.py's SLOW_ME rule (a cupcake that never answers)")
    with OpenCodeE2E(tmp_path, timeout_ms=1500) as e2e:
        marker = e2e.project / "ran.txt"
        run = e2e.run(f"CMD: echo SLOW_ME > {marker}")
        print(f"\nopencode run (timeout scenario): {run.seconds:.1f} s")
        part = _part(run, "bash", "SLOW_ME")
        assert part.status == "error"
        assert re.match(
            r'cupcake: ".*fake_cupcake\.py eval --harness opencode" timed out after 1500 ms and was killed',
            part.error,
        )
        assert "cupcake fails closed" in part.error
        assert not marker.exists()
        slow = [e for e in e2e.cupcake_events() if "SLOW_ME" in str(e["event"].get("args"))]
        assert slow, "the fake never saw the call"
        pid = slow[0]["pid"]
        state = Path(f"/proc/{pid}/stat")
        assert not state.exists() or state.read_text().split(") ")[1][0] == "Z", (
            "the timed-out cupcake is still running"
        )
