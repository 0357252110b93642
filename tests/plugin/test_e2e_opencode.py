"""End to end inside a REAL OpenCode (opencode-ai 1.18.33) with the REAL engine: a project made by
`cupcake init --harness opencode` (plugin bundle + `.cupcake/`), the scenario policies of
tests/e2e_opencode/project/, the shipped `protected_paths` builtin, and a scripted mock LLM.

Two `opencode run`s: one session that walks through every scenario (one tool call per step, see mock_llm.py),
and one in a project whose Bash policy waits for a signal that outlasts the plugin's timeout (fail closed).
Both worlds run twice, with the same expectations: the plugin in "spawn" mode (one `cupcake eval` per call)
and in "serve" mode (one `cupcake serve --stdio` for the whole run).
Durations appear in pytest's terminal summary (conftest.py); every step is bounded (driver.RUN_TIMEOUT_S,
SETUP_TIMEOUT_S).
"""

from __future__ import annotations

import os
import re
import signal
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from statistics import median

import pytest

from tests.e2e_opencode.driver import DURATIONS, OpenCodeE2E, RunResult, Scenario, ToolPart

from .paths import BUNDLE


@dataclass
class World:
    e2e: OpenCodeE2E
    main: RunResult
    victim: Path
    sub_victim: Path
    protected: Path
    notes: Path
    workdir: Path
    verify_output: str


def _steps(*steps: str) -> str:
    return " ;; ".join(steps)


MODES = ["spawn", "serve"]


@pytest.fixture(scope="module", params=MODES)
def world(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[World]:
    mode = request.param
    root = tmp_path_factory.mktemp(f"e2e-{mode}")
    t0 = time.monotonic()
    with OpenCodeE2E(root, Scenario(plugin_mode=mode)) as e2e:
        proj = e2e.project
        verify = e2e.cupcake_run("verify", "--harness", "opencode")
        assert verify.returncode == 0, f"cupcake verify failed:\n{verify.stdout}\n{verify.stderr}"
        assert e2e.warm_up() == {"decision": "allow"}
        victim, sub_victim = proj / "victim", proj / "sub-victim"
        for d in (victim, sub_victim):
            d.mkdir()
            (d / "keep.txt").write_text("precious\n")
        protected = proj / "protected" / "config.txt"
        protected.parent.mkdir()
        protected.write_text("original\n")
        notes = proj / "notes.txt"
        notes.write_text("original\n")
        workdir = proj / "sub"
        workdir.mkdir()
        prompt = _steps(
            "CMD: echo allowed-ok",
            f"CMD: rm -rf {victim}",
            f"CMDIN: {workdir} :: echo REWRITE_ME",
            f"EDIT: {protected}",
            f"READ: {notes}",
            f"EDIT: {notes}",
            "CMD: echo LEAK_TOKEN_123",
            "CMD: git push origin main",
            "CMD: echo CONTEXT_ME",
            f"TASK: rm -rf {sub_victim}",
            "TASK: echo FORBIDDEN_TASK",
            "CMD: echo SANDBOXED_PID1=$(tr '\\0' ' ' < /proc/1/cmdline)",
            "CMD: printf 'all:\\n\\t@echo {} > opencode.json || echo FLOOR_HELD\\n' > Makefile",
            "CMD: make",
            "CMD: echo last-step",
        )
        setup = time.monotonic() - t0
        main = e2e.run(prompt)
        engine_ms = [r["timings_ms"]["total"] for r in e2e.telemetry() if r["session_id"] != "ses_e2e_warmup"]
        DURATIONS.append(
            f"main world ({mode}): setup {setup:.1f} s (cupcake {', '.join(f'{k} {v:.1f} s' for k, v in e2e.setup_seconds.items())}),"
            f" opencode run {main.seconds:.1f} s, {len(engine_ms)} evaluations"
            f" (in-engine median {median(engine_ms or [0]):.0f} ms, max {max(engine_ms or [0]):.0f} ms)"
        )
        yield World(e2e, main, victim, sub_victim, protected, notes, workdir, verify.stdout)


def _part(run: RunResult, tool: str, pred: str) -> ToolPart:
    for t in run.tools:
        if t.tool == tool and pred in str(t.input):
            return t
    raise AssertionError(
        f"no {tool} call matching {pred!r} in {[(t.tool, t.input, t.status) for t in run.tools]}"
    )


def test_project_is_made_by_cupcake_init(world: World) -> None:
    proj = world.e2e.project
    assert (proj / ".opencode" / "plugin" / "cupcake.js").read_bytes() == BUNDLE.read_bytes()
    assert (proj / ".cupcake" / "system" / "evaluate.rego").is_file()
    assert (proj / ".cupcake" / "policies" / "opencode" / "example.rego").is_file()
    assert re.search(r"builtins enabled: .*\bprotected_paths\b", world.verify_output), world.verify_output


def test_run_finished_and_plugin_loaded(world: World) -> None:
    assert world.main.returncode == 0, world.main.stderr[-3000:]
    assert re.search(r'message="self-test ok: cupcake-py \d', world.main.stderr), (
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
    assert got.startswith(
        f'Blocked by cupcake policy [rule E2E-NO-RM-RF]: this bash call (command: "rm -rf {world.victim}")'
    )
    assert "Reason: recursive forced deletion is not allowed (agent: build)" in got


def test_modify_rewrites_the_command_in_place(world: World) -> None:
    part = next(t for t in world.main.tools if t.tool == "bash" and "rewritten-by-cupcake" in str(t.input))
    assert part.status == "completed", part.error
    # the policy's updated_input names only `command`: the other args (workdir) are kept; the floor then
    # wraps the policy's command (unchanged, single-quoted) in cupcake's sandbox
    assert set(part.input) == {"command", "workdir"} and part.input["workdir"] == str(world.workdir)
    assert re.search(r"--args 3 -- (\S+ 4 )?/bin/bash -c 'echo rewritten-by-cupcake && pwd' 3< ",
                     str(part.input["command"]))
    assert part.output == f"rewritten-by-cupcake\n{world.workdir}\n"
    assert "REWRITE_ME" not in world.main.tool_message(part.call_id)


def test_edit_of_protected_path_is_blocked(world: World) -> None:
    part = _part(world.main, "edit", str(world.protected))
    assert part.status == "error"
    assert part.error.startswith(
        f'Blocked by cupcake policy [rule BUILTIN-PROTECTED-PATHS]: this edit call (filePath: "{world.protected}")'
    )
    assert f"{world.protected}, which matches protected path 'protected/'" in part.error
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
        "[cupcake] Policy feedback [rule E2E-NO-LEAKS]: the policy objected to the result of this bash call."
        in got
    )
    assert "Reason: the output contains a leaked token" in got


def test_ask_from_the_init_example_policy_is_blocked_with_approval_instructions(world: World) -> None:
    part = _part(world.main, "bash", "git push origin main")
    assert part.status == "error"
    assert part.error.startswith("Approval required by cupcake policy [rule EXAMPLE-PUSH-MAIN]")
    assert "Reason: pushing to main needs a human decision" in part.error
    assert "disable rule EXAMPLE-PUSH-MAIN and re-run" in part.error
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
    assert "Blocked by cupcake policy [rule E2E-NO-RM-RF]" in got
    assert "recursive forced deletion is not allowed (agent: general)" in got


def test_subagent_task_itself_can_be_denied(world: World) -> None:
    task = _part(world.main, "task", "FORBIDDEN_TASK")
    assert task.status == "error"
    assert task.error.startswith("Blocked by cupcake policy [rule E2E-NO-FORBIDDEN-TASK]: this task call")
    assert world.main.tool_message(task.call_id) == task.error


def test_engine_saw_every_call(world: World) -> None:
    """The engine's telemetry: one PreToolUse per tool call, a PostToolUse only for calls that ran, the
    subagent's calls under their own session, every answer a decision (no engine error)."""
    records = [r for r in world.e2e.telemetry() if r["session_id"] != "ses_e2e_warmup"]
    assert all(r["error"] is None for r in records), [r for r in records if r["error"]]
    pre = [r for r in records if r["hook_event_name"] == "PreToolUse"]
    post = [r for r in records if r["hook_event_name"] == "PostToolUse"]
    calls = world.main.tools
    assert len(pre) == len(calls) + 1, (len(pre), [t.tool for t in calls])  # + the subagent's bash call
    ran = [t for t in calls if t.status == "completed"]
    assert len(post) == len(ran), (len(post), [t.tool for t in ran])
    sessions = {r["session_id"] for r in pre}
    assert len(sessions) == 2, (
        sessions
    )  # the main session and the subagent's (the forbidden task never started)
    assert all(s.startswith("ses_") for s in sessions)
    denied = [r for r in pre if r["response"]["decision"] == "deny"]
    assert {tuple(r["response"]["rule_ids"]) for r in denied} == {
        ("E2E-NO-RM-RF",),
        ("E2E-NO-FORBIDDEN-TASK",),
    }


# ------------------------------------------------------------------------------------------- fail closed

# Below the engine's own answer time (its 5 s deadline starts after start-up), above its start-up: the plugin's
# timeout fires while the slow signal runs (under heavy load it may fire before the signal started).
SLOW_TIMEOUT_MS = 4000


@dataclass
class SlowWorld:
    e2e: OpenCodeE2E
    run: RunResult
    marker: Path
    mode: str


def _alive(pid: int) -> bool:
    """Running (a zombie counts as gone)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1][0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


@pytest.fixture(scope="module", params=MODES)
def slow_world(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[SlowWorld]:
    mode = request.param
    scenario = Scenario(
        plugin_mode=mode,
        policies=("e2e_slow.rego",),
        tests=(),
        protected_paths=(),
        # shell signals run inside the sandbox floor (their own pid namespace): the signal notes that it
        # started and becomes a `sleep` with a duration no other process has, found on the host by it
        signals={
            "slow_check": {
                "command": f"echo started >> slow-signal.pids; exec sleep {SLEEP[mode]}",
                "timeout_seconds": 60,
            }
        },
        plugin_timeout_ms=SLOW_TIMEOUT_MS,
    )
    t0 = time.monotonic()
    with OpenCodeE2E(tmp_path_factory.mktemp(f"e2e-slow-{mode}"), scenario) as e2e:
        assert e2e.warm_up() == {"decision": "allow"}
        marker = e2e.project / "ran.txt"
        setup = time.monotonic() - t0
        run = e2e.run(f"CMD: echo SLOW_ME > {marker}")
        started = bool(_signal_pids(e2e))
        DURATIONS.append(
            f"timeout world ({mode}): setup {setup:.1f} s, opencode run {run.seconds:.1f} s"
            f" (the slow signal had {'' if started else 'NOT '}started when cupcake was stopped at the deadline)"
        )
        try:
            yield SlowWorld(e2e, run, marker, mode)
        finally:
            for pid in _processes(f"sleep {SLEEP[mode]}"):
                os.kill(pid, signal.SIGKILL)  # only if a test failed: the plugin kills them


SLEEP = {"spawn": "30.0417", "serve": "30.0419"}  # per world: a command line only its slow signal has


def _signal_pids(e2e: OpenCodeE2E) -> list[str]:
    """One line per slow signal started so far."""
    pids = e2e.project / "slow-signal.pids"
    return pids.read_text().splitlines() if pids.exists() else []


def _processes(command_line: str, cwd: Path | None = None) -> list[int]:
    """The host pids of running processes whose command line contains `command_line` (and whose
    working directory is `cwd`, when given)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            argv = Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            if command_line not in argv or (cwd is not None and os.readlink(f"/proc/{entry}/cwd") != str(cwd)):
                continue
        except OSError:
            continue
        if _alive(int(entry)):
            found.append(int(entry))
    return found


def test_unanswering_cupcake_times_out_and_fails_closed(slow_world: SlowWorld) -> None:
    part = _part(slow_world.run, "bash", "SLOW_ME")
    assert part.status == "error"
    # spawn: the plugin kills the eval at its timeout; serve: the server is given a deadline just below it
    # (`serve --timeout`) and answers the fail-closed deny itself (or, under load, is killed like the eval)
    timed_out = rf'cupcake: ".*cupcake eval --harness opencode" timed out after {SLOW_TIMEOUT_MS} ms and was killed'
    served = r"cupcake: engine error: the evaluation deadline of [\d.]+s passed|cupcake: engine error: .*deadline"
    assert re.match(timed_out if slow_world.mode == "spawn" else f"{timed_out}|{served}", part.error), part.error
    assert "cupcake fails closed" in part.error
    assert slow_world.run.tool_message(part.call_id) == part.error
    assert not slow_world.marker.exists()
    # the signal started before the kill (not guaranteed under load; the node unit tests check the kill always)
    if _signal_pids(slow_world.e2e):
        project = slow_world.e2e.project.resolve()
        if slow_world.mode == "spawn":  # a server that answered by itself keeps serving
            left = _processes("--harness opencode", cwd=project)
            assert not left, f"the timed-out cupcake is still running: {left}"
        # the plugin kills cupcake's process tree, which reaches its shell signals (they run in the floor, whose
        # processes die with it)
        left = _processes(f"sleep {SLEEP[slow_world.mode]}")
        assert not left, f"cupcake's signal outlived the timeout kill: {left}"


def test_a_command_runs_inside_the_sandbox(world: World) -> None:
    """`cupcake init` enables the floor: the plugin rewrote the call in place to bubblewrap (pid 1 of its
    namespace), and the command ran unchanged inside it."""
    part = _part(world.main, "bash", "SANDBOXED_PID1")
    assert part.status == "completed", part.error
    assert re.search(r"--args 3 -- (\S+ 4 )?/bin/bash -c", str(part.input["command"]))
    # pid 1 of its pid namespace: bubblewrap, or cupcake's mounter where it makes the mounts (sandbox/mounter)
    assert re.search(r"SANDBOXED_PID1=(\S*bwrap|\S*/mounter-\w+ )", part.output), part.output


def test_a_protected_write_fails_inside_the_sandbox(world: World) -> None:
    """A Makefile recipe (code the reading never sees) overwriting opencode.json: `make` is allowed and runs
    sandboxed; the write fails in the kernel and opencode.json keeps its bytes."""
    before = world.e2e.project / "opencode.json"
    # `make` is a plain command: the sandbox execs it directly (bash when it is not found)
    part = next(t for t in world.main.tools if t.tool == "bash"
                and re.search(r" --args 3 -- (\S+ 4 )?make 3< ", str(t.input.get("command", ""))))
    assert part.status == "completed", part.error
    assert "Read-only file system" in part.output and "FLOOR_HELD" in part.output, part.output
    assert before.read_text().strip().startswith("{")
