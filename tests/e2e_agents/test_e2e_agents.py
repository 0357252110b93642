"""End to end inside the REAL Codex CLI (0.171.0), Gemini CLI (0.61.0) and Qwen Code (0.24.4) with the REAL
engine: a project made by `cupcake init --harness <agent> --no-global` (the agent's hooks + `.cupcake/`), the
scenario policies of tests/e2e_agents/project/policies/, the shipped builtins, and a scripted mock model API.

Worlds per agent (each run bounded by driver.RUN_TIMEOUT_S; durations in pytest's terminal summary):
- main: allowed command runs; a policy's ask is the agent's ask (Qwen) or the fallback deny (Codex, Gemini); `rm -rf victim` (Codex: `rm -r victim`, since Codex refuses `rm -rf` itself before
  any hook) is denied, does not run, and the model receives the reason; a modified input runs as modified
  (Codex, Gemini) or is denied and neither version runs (Qwen, which ignores modified input); an ordinary edit
  goes through (not Qwen: its edit tool refuses a file not read first);
- sandbox floor (Codex, Gemini): an allowed command runs modified, inside bubblewrap: it works in the project,
  and an append to ~/.bashrc fails;
- subagent: the subagent tool is allowed and the SUBAGENT's own `rm -rf` is denied the same way;
- attacks: the shipped protected_paths / rulebook_security_guardrails builtins against a patch/edit and a shell
  write of a protected file and a read of .cupcake/ (one session each);
- timeout: a policy whose signal sleeps far past cupcake's deadline -> deny, the command never runs;
- crash: the hook's `cupcake` is missing -> the `sh -c` wrapper turns exit 127 into exit 2 -> blocked.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .driver import DURATIONS, AgentE2E, RunResult

AGENTS = ("codex", "gemini", "qwen")
RM = {"codex": "rm -r", "gemini": "rm -rf", "qwen": "rm -rf"}


def _steps(*steps: str) -> str:
    return "STEPS: " + " ;; ".join(steps)


class Main:
    def __init__(self, e2e: AgentE2E, run: RunResult) -> None:
        self.e2e, self.run = e2e, run


@pytest.fixture(scope="module", params=AGENTS)
def main(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Main]:
    agent: str = request.param
    t0 = time.monotonic()
    with AgentE2E(agent, tmp_path_factory.mktemp(f"{agent}-main")) as e2e:
        e2e.init(("e2e_pre.rego",))
        e2e.warm_up()
        e2e.start_mock()
        (e2e.project / "victim").mkdir()
        (e2e.project / "victim" / "keep.txt").write_text("precious\n")
        (e2e.project / "notes.txt").write_text("original\n")
        setup = time.monotonic() - t0
        steps = ["CMD: echo allowed-ok > allowed.txt", f"CMD: {RM[agent]} victim", "CMD: echo REWRITE_ME > not-rewritten.txt",
                 "CMD: echo ASK_ME > asked.txt", "CMD: echo CONTEXT_ME"]
        if agent != "qwen":
            steps.append("EDIT: notes.txt")
        run = e2e.run(_steps(*steps))
        DURATIONS.append(f"{agent} main: setup {setup:.1f}s; run {run.seconds:.1f}s, {len(run.requests)} model requests")
        yield Main(e2e, run)


def test_allowed_command_runs(main: Main) -> None:
    assert main.run.returncode == 0, main.run.stderr[-2000:]
    assert (main.e2e.project / "allowed.txt").read_text() == "allowed-ok\n"


def test_denied_recursive_delete_does_not_run_and_the_model_gets_the_reason(main: Main) -> None:
    assert (main.e2e.project / "victim" / "keep.txt").read_text() == "precious\n"
    assert main.run.model_saw(f"E2E_DENY recursive deletion is not allowed (harness: {main.e2e.agent}")


def test_modified_input_runs_as_modified_where_the_agent_supports_it(main: Main) -> None:
    assert not (main.e2e.project / "not-rewritten.txt").exists(), "the original command ran"
    if main.e2e.agent == "qwen":  # Qwen ignores updatedInput: cupcake denies instead of letting the original run
        assert not (main.e2e.project / "rewritten.txt").exists()
        assert main.run.model_saw("which Qwen Code cannot apply; denied instead of running the original")
    else:
        assert (main.e2e.project / "rewritten.txt").read_text() == "rewritten-by-cupcake\n"


def test_every_event_the_real_agent_sent_validates(main: Main) -> None:
    """Events captured from the real agent (a user hook next to cupcake's records its stdin) are all accepted by
    the harness, and they cover the events cupcake hooks on a plain run."""
    from cupcake_py.harness import get

    harness = get(main.e2e.agent)
    events = main.e2e.captured_events()
    assert events, "the capture hook never ran"
    for event in events:
        harness.validate(event)
    names = {harness.event_name(e) for e in events}
    assert {"PreToolUse", "PostToolUse", "UserPromptSubmit"} <= names, names


def test_ask_is_the_agents_ask_or_the_fallback_deny(main: Main) -> None:
    """Codex and Gemini cannot ask from a hook: the fallback (deny) with the reason; Qwen gets `ask`, which a
    headless yolo run treats as a block. Either way the command does not run and the model is told why."""
    assert not (main.e2e.project / "asked.txt").exists()
    assert main.run.model_saw("E2E_ASK_REASON")
    if main.e2e.agent != "qwen":
        assert main.run.model_saw("cannot ask for approval")


def test_ordinary_edit_goes_through(main: Main) -> None:
    if main.e2e.agent == "qwen":
        pytest.skip("Qwen's edit tool refuses a file the session has not read (reference sheet); the mock has no read step")
    assert (main.e2e.project / "notes.txt").read_text() == "tampered\n"


# ------------------------------------------------------------------------------ the sandbox floor


@pytest.mark.parametrize("agent", ["codex", "gemini"])  # Qwen ignores a modified input: the floor cannot apply
def test_allowed_commands_run_inside_the_sandbox_floor(agent: str, tmp_path: Path) -> None:
    """`cupcake init` enables the kernel floor (docs/sandbox.md): an allowed shell call comes back as a modified
    input running it under bubblewrap. It still does its work in the project, and a write the policies did not
    see as harmful (appending to a shell start-up file in HOME) fails inside the sandbox."""
    with AgentE2E(agent, tmp_path) as e2e:
        e2e.init()
        e2e.warm_up()
        e2e.start_mock()
        bashrc = e2e.home / ".bashrc"
        bashrc.write_text("# mine\n")
        run = e2e.run(_steps("CMD: echo inside > inside.txt", f"CMD: echo pwned >> {bashrc}"))
        DURATIONS.append(f"{agent} sandbox floor: run {run.seconds:.1f}s")
        assert (e2e.project / "inside.txt").read_text() == "inside\n"
        assert bashrc.read_text() == "# mine\n", "the start-up file changed: the command ran outside the floor"
        assert run.model_saw("bwrap") or run.model_saw("Read-only"), "no sign of the sandbox in what the model saw"


# ------------------------------------------------------------------------------ subagents


@pytest.mark.parametrize("agent", AGENTS)
def test_a_subagents_call_is_decided_the_same_way(agent: str, tmp_path: Path) -> None:
    with AgentE2E(agent, tmp_path) as e2e:
        e2e.init(("e2e_pre.rego",))
        e2e.warm_up()
        e2e.start_mock()
        (e2e.project / "victim2").mkdir()
        (e2e.project / "victim2" / "keep.txt").write_text("precious\n")
        sub = f"SUBSTEPS: CMD: {RM[agent]} victim2 ## CMD: echo sub-ok > sub.txt"
        # Codex offers its subagent tools (multi_agent_v1) only for models without built-in metadata
        # Codex: the parent waits for its subagent (wait_agent), else `codex exec` ends before the subagent works
        steps = (f"AGENT: {sub}", "WAIT: agent") if agent == "codex" else (f"AGENT: {sub}",)
        run = e2e.run(_steps(*steps), model="gpt-5.3-codex" if agent == "codex" else None)
        if agent == "qwen":  # Qwen runs the subagent in the background: wait for its calls to land
            deadline = time.monotonic() + 60
            while not (e2e.project / "sub.txt").exists() and time.monotonic() < deadline:
                time.sleep(0.5)
        DURATIONS.append(f"{agent} subagent: run {run.seconds:.1f}s, {len(run.requests)} model requests")
        assert (e2e.project / "sub.txt").read_text() == "sub-ok\n", "the subagent did not run its allowed command"
        assert (e2e.project / "victim2" / "keep.txt").read_text() == "precious\n"
        assert run.model_saw("E2E_DENY recursive deletion is not allowed"), "the subagent never got the reason"


# ------------------------------------------------------------------------------ attacks on the shipped builtins

ATTACKS = {  # name -> (step, the file that must keep its bytes, text the reason must hold)
    # Codex: an apply_patch Update File; Gemini CLI, Qwen Code: write_file with an absolute path (their edit tools
    # refuse on their own first: Gemini wants the old text to match, Qwen a prior read)
    "file-tool": ("EDIT: protected/config.txt", "protected/config.txt", "protected_paths"),
    "shell-write": ("CMD: echo pwned > protected/config.txt", "protected/config.txt", "protected_paths"),
    "read-rulebook": ("CMD: cat .cupcake/rulebook.yml", None, "rulebook_security_guardrails"),
}


@pytest.mark.parametrize("agent", AGENTS)
def test_shipped_builtins_stop_the_attacks(agent: str, tmp_path: Path) -> None:
    with AgentE2E(agent, tmp_path) as e2e:
        e2e.init(protected=("protected/",))
        e2e.warm_up()
        e2e.start_mock()
        (e2e.project / "protected").mkdir()
        target = e2e.project / "protected" / "config.txt"
        target.write_text("original\n")
        seconds = []
        for name, (step, _, why) in ATTACKS.items():
            if name == "file-tool" and agent != "codex":
                step = f"WRITE: {target}"
            run = e2e.run(_steps(step, f"CMD: echo after > after-{name}.txt"))
            seconds.append(f"{name} {run.seconds:.1f}s")
            assert target.read_text() == "original\n", f"{name}: the protected file changed"
            # these builtins halt. Codex: the model gets the reason and every later call of the session is denied;
            # Gemini: `continue: false` ends the agent loop, the reason goes to the user; Qwen: the halted session's
            # next prompt round is blocked, so the run ends and the reason is in its output
            assert run.model_saw(why) or why in run.stdout + run.stderr, f"{name}: the {why} reason was never shown"
            assert not (e2e.project / f"after-{name}.txt").exists(), f"{name}: the session went on after a halt"
        DURATIONS.append(f"{agent} attacks (one session each): " + ", ".join(seconds))


# ------------------------------------------------------------------------------ fail closed

SLOW_MARKER = "31.75"


@pytest.mark.parametrize("agent", AGENTS)
def test_a_signal_outlasting_the_deadline_ends_in_a_deny(agent: str, tmp_path: Path) -> None:
    signals = {"slow_check": {"command": f"sleep {SLOW_MARKER}; echo ok", "timeout_seconds": 60}}
    with AgentE2E(agent, tmp_path) as e2e:
        e2e.init(("e2e_slow.rego",), signals=signals)
        e2e.retarget_pre_tool_hook("--timeout 10 ", "--timeout 2 ")
        e2e.start_mock()
        run = e2e.run(_steps("CMD: echo slow > slow.txt"))
        DURATIONS.append(f"{agent} timeout: run {run.seconds:.1f}s (cupcake --timeout 2, signal sleeps {SLOW_MARKER}s, "
                         "hook timeout 60s)")
        assert not (e2e.project / "slow.txt").exists()
        assert run.model_saw("deadline"), "the model never received the deadline reason"


@pytest.mark.parametrize("agent", AGENTS)
def test_a_missing_cupcake_blocks_instead_of_failing_open(agent: str, tmp_path: Path) -> None:
    with AgentE2E(agent, tmp_path) as e2e:
        e2e.init()
        e2e.retarget_pre_tool_hook("cupcake eval", "/nonexistent/cupcake eval")
        e2e.start_mock()
        run = e2e.run(_steps("CMD: echo crash > crash.txt"))
        DURATIONS.append(f"{agent} crash (cupcake missing): run {run.seconds:.1f}s")
        assert not (e2e.project / "crash.txt").exists()
        assert run.model_saw("blocked (fail closed)")
