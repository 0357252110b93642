"""End to end inside the REAL Claude Code (@anthropic-ai/claude-code 2.1.197) with the REAL engine: a project
made by `cupcake init --harness claude` (hooks merged into .claude/settings.json + `.cupcake/`), the scenario
policies of tests/e2e_claude/project/policies/, the shipped builtins, and a scripted mock Messages API.

Worlds (each `claude -p` run is bounded by driver.RUN_TIMEOUT_S; durations in pytest's terminal summary):
- main: one session walking through allow, deny, modify, PostToolUse feedback, ask, tool context, an ordinary
  edit, PostToolUseFailure context, plus SessionStart/UserPromptSubmit context and a Stop block; every Bash
  call runs in cupcake's sandbox (`cupcake init` enables it): a command shows it runs as bubblewrap's
  namespace, a Makefile recipe writing .claude/settings.local.json runs under `make` and fails in the kernel;
- attacks: the shipped protected_paths / rulebook_security_guardrails builtins against an Edit, a Write and a
  Bash write of a protected file and a Read of .cupcake/ (one session each: those builtins halt, and a halt
  ends the Claude Code session);
- timeout: a Bash policy whose signal sleeps far past cupcake's deadline → deny, the command never runs;
- crash: the hook's cupcake executable is missing → the `sh -c` wrapper turns exit 127 into exit 2 → blocked.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from .driver import CLAUDE_VERSION, DURATIONS, ClaudeE2E, RunResult, result_text


@dataclass
class Main:
    e2e: ClaudeE2E
    run: RunResult
    victim: Path
    notes: Path


def _sandboxed_true(answer: dict[str, object]) -> bool:
    """The warm-up's `true` allowed and rewritten to run in cupcake's sandbox (`cupcake init` enables it)."""
    spec = answer.get("hookSpecificOutput")
    command = spec.get("updatedInput", {}).get("command", "") if isinstance(spec, dict) else ""
    return set(answer) == {"hookSpecificOutput"} and re.search(r"--args 3 -- (\S+ 4 )?/bin/bash -c true ", str(command)) is not None


def _steps(*steps: str) -> str:
    return "STEPS: " + " ;; ".join(steps)


def _world(root: Path, policies: tuple[str, ...], **kw: object) -> ClaudeE2E:
    e2e = ClaudeE2E(root)
    e2e.init(policies, **kw)  # type: ignore[arg-type]
    return e2e


@pytest.fixture(scope="module")
def main(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Main]:
    root = tmp_path_factory.mktemp("claude-e2e")
    t0 = time.monotonic()
    with _world(root, ("e2e_pre.rego", "e2e_context.rego", "e2e_post.rego", "e2e_stop.rego", "e2e_failure.rego"),
                protected=("protected/",)) as e2e:
        verify = e2e.cupcake_run("verify", "--harness", "claude")
        assert verify.returncode == 0, verify.stdout.decode() + verify.stderr.decode()
        assert _sandboxed_true(e2e.warm_up())
        e2e.start_mock()
        victim = e2e.project / "victim"
        victim.mkdir()
        (victim / "keep.txt").write_text("precious\n")
        notes = e2e.project / "notes.txt"
        notes.write_text("original\n")
        setup = time.monotonic() - t0
        run = e2e.run(_steps(
            "CMD: echo allowed-ok > allowed.txt",
            f"CMD: rm -rf {victim}",
            "CMD: echo REWRITE_ME > not-rewritten.txt",
            "CMD: echo LEAK_TOKEN_123",
            "CMD: echo ASK_ME > asked.txt",
            "CMD: echo CONTEXT_ME",
            f"READ: {notes}",
            f"EDIT: {notes}",
            "CMD: ls FAIL_ME_missing_dir",
            "CMD: echo SANDBOXED_PID1=$(tr '\\0' ' ' < /proc/1/cmdline)",
            "CMD: printf 'all:\\n\\t@echo {} > .claude/settings.local.json || echo FLOOR_HELD\\n' > Makefile",
            "CMD: make",
        ))
        DURATIONS.append(f"main world: setup (init, verify, warm-up eval) {setup:.1f}s; claude -p {run.seconds:.1f}s "
                         f"for {len(run.tool_uses())} tool calls and {len(run.requests)} API requests")
        yield Main(e2e, run, victim, notes)


def _call(run: RunResult, needle: str) -> dict[str, object]:
    for use in run.tool_uses():
        if needle in json.dumps(use["input"]):
            return use
    raise AssertionError(f"no tool call with {needle!r}")


def test_the_real_claude_code_ran(main: Main) -> None:
    init = [ln for ln in main.run.lines if ln.get("type") == "system" and ln.get("subtype") == "init"]
    assert init and init[0]["claude_code_version"] == CLAUDE_VERSION
    assert main.run.returncode == 0, main.run.stderr
    assert len(main.run.tool_uses()) == 12


def test_allowed_command_runs(main: Main) -> None:
    assert (main.e2e.project / "allowed.txt").read_text() == "allowed-ok\n"


def test_denied_rm_rf_does_not_run_and_the_model_gets_the_reason(main: Main) -> None:
    assert (main.victim / "keep.txt").read_text() == "precious\n"
    block = main.run.tool_result(str(_call(main.run, "rm -rf")["id"]))
    assert block.get("is_error") is True
    assert result_text(block) == "recursive forced deletion is not allowed (harness: claude, tool: Bash)"
    assert any(d["tool_input"]["command"].startswith("rm -rf") for d in main.run.result["permission_denials"])


def test_modify_rewrites_the_whole_input(main: Main) -> None:
    assert (main.e2e.project / "rewritten.txt").read_text() == "rewritten-by-cupcake\n"
    assert not (main.e2e.project / "not-rewritten.txt").exists()


def test_post_tool_use_block_reaches_the_model_as_feedback(main: Main) -> None:
    assert main.run.model_saw("E2E_LEAK_FEEDBACK"), "the PostToolUse block never reached the model"


def test_ask_in_print_mode_is_a_denial_with_the_reason(main: Main) -> None:
    assert not (main.e2e.project / "asked.txt").exists()
    block = main.run.tool_result(str(_call(main.run, "ASK_ME")["id"]))
    assert block.get("is_error") is True and "E2E_ASK_REASON" in result_text(block)
    assert any("ASK_ME" in d["tool_input"]["command"] for d in main.run.result["permission_denials"])


def test_session_and_prompt_context_reach_the_model(main: Main) -> None:
    assert "system" in main.run.model_saw("E2E_SESSION_CONTEXT")
    assert "system" in main.run.model_saw("E2E_PROMPT_CONTEXT")


def test_ordinary_edit_goes_through(main: Main) -> None:
    assert main.notes.read_text() == "tampered\n"


def test_stop_block_makes_the_model_keep_working(main: Main) -> None:
    assert "user" in main.run.model_saw("E2E_STOP_FEEDBACK")


def test_pre_tool_use_context_reaches_the_model(main: Main) -> None:
    assert "user" in main.run.model_saw("E2E_TOOL_CONTEXT")


def test_post_tool_use_failure_context_reaches_the_model(main: Main) -> None:
    block = main.run.tool_result(str(_call(main.run, "FAIL_ME")["id"]))
    assert block.get("is_error") is True
    assert "user" in main.run.model_saw("E2E_FAILURE_CONTEXT")


# ------------------------------------------------------------------------------ attacks on the shipped builtins

ATTACKS = {  # name -> (step, the file it must not create or change, text the reason must hold)
    "edit": ("EDIT: {protected}", "protected/config.txt", "protected_paths"),
    "write": ("WRITE: {protected}", "protected/config.txt", "protected_paths"),
    "bash": ("CMD: echo pwned > {protected}", "protected/config.txt", "protected_paths"),
    "read-rulebook": ("READ: {project}/.cupcake/rulebook.yml", None, "rulebook_security_guardrails"),
}


@pytest.fixture(scope="module")
def attacks(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[ClaudeE2E, dict[str, RunResult]]]:
    root = tmp_path_factory.mktemp("claude-attacks")
    with _world(root, (), protected=("protected/",)) as e2e:
        assert _sandboxed_true(e2e.warm_up())
        e2e.start_mock()
        protected = e2e.project / "protected" / "config.txt"
        protected.parent.mkdir()
        protected.write_text("original\n")
        runs = {}
        for name, (step, _, _) in ATTACKS.items():
            first = step.format(protected=protected, project=e2e.project)
            steps = [f"READ: {protected}", first] if first.startswith(("EDIT", "WRITE")) else [first]
            runs[name] = e2e.run(_steps(*steps, f"CMD: echo after > after-{name}.txt"), "--include-hook-events")
        DURATIONS.append("attack worlds (shipped builtins, one session each): " +
                         ", ".join(f"{n} {r.seconds:.1f}s" for n, r in runs.items()))
        yield e2e, runs


@pytest.mark.parametrize("name", list(ATTACKS))
def test_shipped_builtins_stop_the_attack_and_halt_the_session(
        attacks: tuple[ClaudeE2E, dict[str, RunResult]], name: str) -> None:
    e2e, runs = attacks
    run = runs[name]
    _, target, why = ATTACKS[name]
    if target is not None:
        assert (e2e.project / target).read_text() == "original\n"
    attack, after = run.tool_uses()[-2:]
    block = run.tool_result(str(attack["id"]))
    assert block.get("is_error") is True and why in result_text(block), result_text(block)
    assert any(d["tool_use_id"] == attack["id"] for d in run.result["permission_denials"])
    # These builtins halt: deny + `continue: false`. Claude Code 2.1.197 lets the deny win and keeps the session
    # going, so cupcake remembers the halted session: the next (harmless) call is denied with the halt's reason,
    # and the Stop that follows is answered `continue: false`.
    assert not (e2e.project / f"after-{name}.txt").exists()
    later = result_text(run.tool_result(str(after["id"])))
    assert later.startswith("this session was halted by policy:") and why in later, later
    stops = [json.loads(ln["stdout"]) for ln in run.lines if ln.get("subtype") == "hook_response"
             and ln.get("hook_event") == "Stop" and ln["stdout"].strip()]
    assert stops and all(s.get("continue") is False for s in stops)


# ------------------------------------------------------------------------------ fail closed


def _processes_with(marker: str) -> list[int]:
    found = []
    for p in Path("/proc").glob("[0-9]*"):
        try:
            if marker.encode() in (p / "cmdline").read_bytes():
                found.append(int(p.name))
        except OSError:
            continue
    return found


def _retarget_pre_tool_use(e2e: ClaudeE2E, old: str, new: str) -> None:
    """Change only the PreToolUse hook command of cupcake (the other events keep the working one)."""
    settings = e2e.settings()
    for group in settings["hooks"]["PreToolUse"]:
        for hook in group["hooks"]:
            if "eval --harness claude" in hook["command"]:
                assert old in hook["command"]
                hook["command"] = hook["command"].replace(old, new)
    (e2e.project / ".claude" / "settings.json").write_text(json.dumps(settings, indent=2))


SLOW_MARKER = "31.25"


def test_a_signal_outlasting_the_deadline_ends_in_a_deny(tmp_path: Path) -> None:
    signals = {"slow_check": {"command": f"sleep {SLOW_MARKER}; echo ok", "timeout_seconds": 60}}
    with _world(tmp_path, ("e2e_slow.rego",), signals=signals) as e2e:
        _retarget_pre_tool_use(e2e, "--timeout 10 ", "--timeout 2 ")
        e2e.start_mock()
        run = e2e.run(_steps("CMD: echo slow > slow.txt"))
        DURATIONS.append(f"timeout world: claude -p {run.seconds:.1f}s (cupcake --timeout 2, signal sleeps "
                         f"{SLOW_MARKER}s, hook timeout 60s)")
        assert not (e2e.project / "slow.txt").exists()
        block = run.tool_result(str(run.tool_uses()[0]["id"]))
        text = result_text(block)
        assert block.get("is_error") is True and "cupcake:" in text and "deadline" in text, text
        assert run.seconds < 60, "the answer must come from cupcake's deadline, well before the hook timeout"
        assert _processes_with(f"sleep {SLOW_MARKER}") == [], "the slow signal outlived the evaluation"


def test_a_missing_cupcake_executable_blocks_instead_of_failing_open(tmp_path: Path) -> None:
    with _world(tmp_path, ()) as e2e:
        exe = str(Path(e2e.settings()["hooks"]["PreToolUse"][0]["hooks"][0]["command"].split(" eval ")[0]
                       .rsplit(" ", 1)[-1]))
        _retarget_pre_tool_use(e2e, exe, "/nonexistent/cupcake")
        e2e.warm_up()
        e2e.start_mock()
        run = e2e.run(_steps("CMD: echo crash > crash.txt"))
        DURATIONS.append(f"crash world (cupcake executable missing): claude -p {run.seconds:.1f}s")
        assert not (e2e.project / "crash.txt").exists()
        text = result_text(run.tool_result(str(run.tool_uses()[0]["id"])))
        assert "blocked (fail closed)" in text and "exit 127" in text, text


def test_a_command_runs_inside_the_sandbox(main: Main) -> None:
    """`cupcake init` enables the floor: the command Claude Code ran is bubblewrap's (pid 1 of its namespace)."""
    block = main.run.tool_result(str(_call(main.run, "SANDBOXED_PID1")["id"]))
    seen = result_text(block)
    # pid 1 of its pid namespace: bubblewrap, or cupcake's mounter where it makes the mounts (sandbox/mounter)
    assert re.search(r"SANDBOXED_PID1=(\S*bwrap|\S*/mounter-\w+ )", seen), seen


def test_a_protected_write_fails_inside_the_sandbox(main: Main) -> None:
    """A Makefile recipe (code the reading never sees) writing Claude Code's settings: `make` is allowed
    and runs sandboxed, the write fails in the kernel."""
    make = next(u for u in main.run.tool_uses() if u["input"].get("command") == "make")
    seen = result_text(main.run.tool_result(str(make["id"])))
    assert "Read-only file system" in seen and "FLOOR_HELD" in seen, seen
    assert not (main.e2e.project / ".claude" / "settings.local.json").exists()
