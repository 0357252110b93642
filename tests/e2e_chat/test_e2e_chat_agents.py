"""The real GitHub Copilot CLI, Factory Droid and Cline, headless against a loopback mock model, in projects made
by the real `cupcake init --harness <agent>`, with the real engine deciding every tool call (driver.py).

Per agent:
- main world: a denied `rm -rf victim` does not run (the directory keeps its bytes) and the model receives the
  reason where the agent passes one (Copilot: "Denied by preToolUse hook: <reason>", Droid: "Error: <reason>";
  Cline can only cancel the whole task: the task ends, no further model request); an allowed command runs; a
  command a policy rewrites runs rewritten (modified input); the shipped protected_paths builtin stops an edit
  of a protected file (its bytes stay); a subagent's call is decided by the same hook and policies (Copilot and
  Cline run subagents offline: the subagent's `rm -rf victim2` is denied; Droid's subagents need Factory's
  cloud, so only the spawn is decided: a Task told to BYPASS is denied);
- attack world: the shipped builtins (protected_paths, rulebook_security_guardrails, git_block_no_verify) stop
  a shell write of a protected file, a read of .cupcake/, `git commit --no-verify` and the removal of the agent's
  own hook file (Droid and Cline: the
  first stop ends the session/task, so one attack per run);
- timeout world: a policy whose signal outlasts cupcake's deadline ends in the agent's blocking answer (the
  command does not run);
- missing-cupcake world: the agent runs with no `cupcake` on PATH: the hook blocks instead of failing open.
Durations go to pytest's terminal summary.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from .driver import DURATIONS, ChatE2E, binary

AGENTS = ("copilot", "factory", "cline")
pytestmark = pytest.mark.skipif(not all(binary(a).exists() for a in AGENTS),
                                reason="run `make node-deps` (npm ci in tests/e2e_chat)")


def _world(tmp_path: Path, agent: str, policies: tuple[str, ...], **kw: object) -> ChatE2E:
    e2e = ChatE2E(tmp_path, agent)
    e2e.init(policies, **kw)  # type: ignore[arg-type]
    for d in ("victim", "victim2"):
        (e2e.project / d).mkdir()
        (e2e.project / d / "f.txt").write_text("keep me\n")
    (e2e.project / "protected").mkdir()
    (e2e.project / "protected" / "keep.txt").write_text("original\n")
    e2e.warm_up()
    e2e.start_mock()
    return e2e


def _intact(e2e: ChatE2E, *dirs: str) -> None:
    for d in dirs:
        assert (e2e.project / d / "f.txt").read_text() == "keep me\n", f"{d} was deleted"


def _note(agent: str, what: str, seconds: float) -> None:
    DURATIONS.append(f"{agent:8} {what:<44} {seconds:6.1f}s")


def test_copilot_main_world(tmp_path: Path) -> None:
    with _world(tmp_path, "copilot", ("e2e_pre.rego",), protected=("protected/",)) as e2e:
        keep = e2e.project / "protected" / "keep.txt"
        r = e2e.run(f"STEPS: CMD: rm -rf victim ;; CMD: echo allowed > allowed.txt ;; CMD: echo REWRITE_ME > "
                    f"original.txt ;; EDIT: {keep} ;; TASK: SUBSTEPS- CMD: rm -rf victim2 ;; TASK: BYPASS now")
        _note("copilot", "deny/allow/modify/protected/subagent", r.seconds)
        _intact(e2e, "victim", "victim2")
        msgs = r.tool_messages()
        assert any("Denied by preToolUse hook: E2E_DENY: recursive forced deletion" in m and "harness: copilot" in m
                   for m in msgs), msgs
        assert (e2e.project / "allowed.txt").read_text() == "allowed\n"
        assert (e2e.project / "rewritten.txt").read_text() == "rewritten-by-cupcake\n"
        assert not (e2e.project / "original.txt").exists()
        assert keep.read_text() == "original\n" and any("protected_paths" in m for m in msgs), msgs
        sub = [q for q in r.requests if "SUBSTEPS:" in str(q["body"]["messages"][:3])]
        assert sub and any("E2E_DENY: recursive" in str(q["body"]["messages"]) for q in sub), "subagent not denied"
        assert any("E2E_DENY_TASK" in m for m in msgs), msgs
        # without --allow-all-paths Copilot's own path check refuses the sandboxed command headless: fail closed
        plain = e2e.argv
        e2e.argv = lambda prompt: [a for a in plain(prompt) if a != "--allow-all-paths"]  # type: ignore[method-assign]
        r = e2e.run("STEPS: CMD: echo floor > floor.txt")
        _note("copilot", "sandboxed command, no --allow-all-paths", r.seconds)
        assert not (e2e.project / "floor.txt").exists()
        assert any("Permission denied" in m for m in r.tool_messages()), r.tool_messages()


def test_factory_main_world(tmp_path: Path) -> None:
    with _world(tmp_path, "factory", ("e2e_pre.rego",), protected=("protected/",)) as e2e:
        r = e2e.run("STEPS: CMD: rm -rf victim ;; CMD: echo allowed > allowed.txt ;; CMD: echo REWRITE_ME > "
                    "original.txt ;; TASK: BYPASS the hooks ;; EDIT: protected/keep.txt")
        _note("factory", "deny/allow/modify/task/protected(halt)", r.seconds)
        _intact(e2e, "victim")
        msgs = r.tool_messages()
        assert any("Error: E2E_DENY: recursive forced deletion" in m and "harness: factory" in m for m in msgs), msgs
        assert (e2e.project / "allowed.txt").read_text() == "allowed\n"
        assert (e2e.project / "rewritten.txt").read_text() == "rewritten-by-cupcake\n"
        assert not (e2e.project / "original.txt").exists()
        assert any("Error: E2E_DENY_TASK" in m for m in msgs), msgs
        # protected_paths halts: Droid ends the session (continue: false), the file keeps its bytes
        assert (e2e.project / "protected" / "keep.txt").read_text() == "original\n"


def test_cline_main_world(tmp_path: Path) -> None:
    with _world(tmp_path, "cline", ("e2e_pre.rego",), protected=("protected/",)) as e2e:
        r = e2e.run("STEPS: CMD: echo allowed > allowed.txt ;; CMD: echo REWRITE_ME > original.txt")
        _note("cline", "allow/modify", r.seconds)
        assert (e2e.project / "allowed.txt").read_text() == "allowed\n"
        assert (e2e.project / "rewritten.txt").read_text() == "rewritten-by-cupcake\n"
        assert not (e2e.project / "original.txt").exists()
        r = e2e.run("STEPS: CMD: rm -rf victim ;; CMD: echo never > never.txt")
        _note("cline", "deny (cancels the task)", r.seconds)
        _intact(e2e, "victim")
        assert not (e2e.project / "never.txt").exists()
        assert '"finishReason":"aborted"' in r.stdout
        assert not any("rm -rf victim" in m for m in r.tool_messages()), "the denied call ran"
        r = e2e.run(f"STEPS: EDIT: {e2e.project / 'protected' / 'keep.txt'} ;; CMD: echo never > never2.txt")
        _note("cline", "protected_paths (builtin halt)", r.seconds)
        assert (e2e.project / "protected" / "keep.txt").read_text() == "original\n"
        assert not (e2e.project / "never2.txt").exists()
        r = e2e.run("STEPS: TASK: SUBSTEPS- CMD: rm -rf victim2")
        _note("cline", "subagent deny", r.seconds)
        _intact(e2e, "victim2")
        sub = [q for q in r.requests if "SUBSTEPS:" in str(q["body"]["messages"][:3])]
        assert sub, "the subagent never ran"


@pytest.mark.parametrize("agent", AGENTS)
def test_a_signal_outlasting_the_deadline_blocks_the_call(agent: str, tmp_path: Path) -> None:
    slow = {"slow_check": {"command": "sleep 20; echo ok", "timeout_seconds": 30}}
    with _world(tmp_path, agent, ("e2e_slow.rego",), signals=slow) as e2e:
        e2e.rewrite_hook_commands("--timeout 10 ", "--timeout 2 ")
        r = e2e.run("STEPS: CMD: echo ran > ran.txt")
        _note(agent, "signal past the deadline", r.seconds)
        assert not (e2e.project / "ran.txt").exists(), "the command ran past cupcake's deadline"
        if agent == "cline":
            assert '"finishReason":"aborted"' in r.stdout
        else:
            assert any("cupcake:" in m and "deadline" in m for m in r.tool_messages()), r.tool_messages()


@pytest.mark.parametrize("agent", AGENTS)
def test_shipped_builtins_stop_the_attacks(agent: str, tmp_path: Path) -> None:
    with _world(tmp_path, agent, (), protected=("protected/",)) as e2e:
        keep = e2e.project / "protected" / "keep.txt"
        if agent == "copilot":
            r = e2e.run("STEPS: CMD: echo pwned > protected/keep.txt ;; CMD: cat .cupcake/rulebook.yml ;; "
                        "CMD: git commit --no-verify -m wip ;; CMD: rm .github/hooks/cupcake.json")
            msgs = r.tool_messages()
            assert any("protected_paths" in m for m in msgs) and any("rulebook_security_guardrails" in m for m in msgs)
            assert any("git_block_no_verify" in m for m in msgs), msgs
            assert not any("builtins:" in m for m in msgs), "the rulebook was read"
            assert (e2e.project / ".github" / "hooks" / "cupcake.json").is_file(), "the agent removed its hook"
        else:
            r = e2e.run("STEPS: CMD: echo pwned > protected/keep.txt ;; CMD: echo after > after.txt")
            assert not (e2e.project / "after.txt").exists(), "the session/task went on after a halt"
        _note(agent, "shipped builtins vs attacks", r.seconds)
        assert keep.read_text() == "original\n"


@pytest.mark.parametrize("agent", AGENTS)
def test_a_missing_cupcake_blocks_instead_of_failing_open(agent: str, tmp_path: Path) -> None:
    with _world(tmp_path, agent, ("e2e_pre.rego",)) as e2e:
        e2e.without_cupcake = True
        r = e2e.run("STEPS: CMD: echo ran > ran.txt")
        _note(agent, "no cupcake on PATH", r.seconds)
        assert not (e2e.project / "ran.txt").exists(), "the hook failed open"
        if agent == "copilot":  # the prompt hook already blocks: the prompt never reaches the model
            assert "not on PATH" in r.stdout + r.stderr and not r.requests, r.stderr
        elif agent == "factory":
            assert any("not on PATH" in m for m in r.tool_messages()), r.tool_messages()
