"""Issue 29: the deadline bounds the whole process, bundle builds included.

A first evaluation after a large policy change answers fail-closed within its deadline with a
reason saying the policies are being compiled; the build goes on in a detached worker
(engine/build_worker.py) that outlives the evaluation and is reaped; the next evaluation is
served from the new cache entry. Concurrent evaluations start one build, never a wrong answer.
A build error reaches the evaluations as the build's own message. Issue 28: SIGTERM while an
evaluation waits for the build answers fail-closed (the worker goes on). Through the real
`cupcake eval` (both harnesses) and `cupcake serve` processes."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from cupcake_py.core import jsonio
from cupcake_py.harness import get
from cupcake_py.harness.examples import cupcake_command

HARNESSES = ("opencode", "claude")
FIRST = "6"  # --timeout of an evaluation that meets a build in progress (it answers at this deadline)
LATER = "120"  # --timeout of the others (a loaded machine must not fail them closed on time)

POLICY = """# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
package cupcake.policies.{h}.p{i}

import rego.v1

deny contains {{"rule_id": "R{i}", "reason": "no cmd{i}", "severity": "HIGH"}} if input.tool_input.command == "cmd{i}"
"""

# A custom builtin module the build imports (rulebook `custom_builtins`): it waits while the gate
# file exists, so the test decides when the build may finish, whatever the machine's speed.
GATE = """import os, time
from cupcake_py.extensions.builtins import builtin

_gate = os.path.join(os.path.dirname(os.path.abspath(__file__)), "build.gate")
_end = time.monotonic() + 600
while os.path.exists(_gate) and time.monotonic() < _end:
    time.sleep(0.02)


@builtin("test.gate", args=[], result="boolean")
def gate():
    return True
"""


class World:
    def __init__(self, root: Path, harness: str, policies: int = 20, gated: bool = True) -> None:
        self.harness = harness
        self.project = root / "p"
        d = self.project / ".cupcake" / "policies" / harness
        d.mkdir(parents=True)
        for i in range(policies):
            (d / f"p{i}.rego").write_text(POLICY.format(h=harness, i=i))
        (self.project / ".cupcake" / "gate.py").write_text(GATE)
        # the guardrails' shell analysis has a wall-clock budget (issue 28) that a loaded machine can exhaust,
        # turning `ls` into an ask: not what this file tests
        (self.project / ".cupcake" / "rulebook.yml").write_text(
            "custom_builtins: [gate.py]\nbuiltins:\n  rulebook_security_guardrails:\n    enabled: false\n")
        self.gate = self.project / ".cupcake" / "build.gate"
        if gated:
            self.gate.write_text("closed")
        self.env = {**os.environ, "XDG_CACHE_HOME": str(root / "cache"), "XDG_CONFIG_HOME": str(root / "cfg"),
                    "XDG_STATE_HOME": str(root / "state"), "HOME": str(root)}

    def open_gate(self) -> None:
        self.gate.unlink()

    def event(self, command: str) -> dict[str, Any]:
        base = {"hook_event_name": "PreToolUse", "session_id": "b", "cwd": str(self.project)}
        if self.harness == "opencode":
            return {**base, "tool": "bash", "args": {"command": command}}
        return {**base, "tool_name": "Bash", "tool_input": {"command": command}}

    def start(self, timeout: str, *args: str) -> subprocess.Popen[bytes]:
        return subprocess.Popen([*cupcake_command(), "eval", "--harness", self.harness, "--timeout", timeout, *args],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=self.project, env=self.env)

    def eval(self, command: str, timeout: str = LATER, *args: str) -> tuple[Any, int, str]:
        proc = self.start(timeout, *args)
        out, err = proc.communicate(jsonio.dumps(self.event(command)), timeout=600)
        return json.loads(out), proc.returncode, err.decode()

    def decision(self, response: dict[str, Any]) -> tuple[str, str]:
        if self.harness == "opencode":
            return response["decision"], response.get("reason", "")
        spec = response.get("hookSpecificOutput", {})
        return spec.get("permissionDecision", "allow"), spec.get("permissionDecisionReason", "")

    def workers(self) -> list[int]:
        """Live build workers of this project (zombies excluded: /proc/<pid>/cmdline is empty then)."""
        found = []
        for d in os.listdir("/proc"):
            if d.isdigit():
                try:
                    with open(f"/proc/{d}/cmdline", "rb") as f:
                        argv = f.read().split(b"\0")
                except OSError:
                    continue
                if b"cupcake_py.engine.build_worker" in argv and str(self.project).encode() + b"/.cupcake" in argv:
                    found.append(int(d))
        return found

    def building(self) -> bool:
        """A worker holds a build lock (it has started building, and no evaluation starts another)."""
        import fcntl

        for lock in (self.project.parent / "cache" / "cupcake-py" / "bundles").glob("*.lock"):
            with open(lock) as f:
                try:
                    fcntl.flock(f, fcntl.LOCK_SH | fcntl.LOCK_NB)
                except OSError:
                    return True
        return False

    def one_worker(self) -> int:
        """The one worker building (its starter, same command line, exits right after the fork)."""
        give_up = time.monotonic() + 60
        while len(found := self.workers()) != 1:
            assert time.monotonic() < give_up and len(found) <= 2, found
            time.sleep(0.01)
        return found[0]

    def wait_for_workers(self) -> None:
        give_up = time.monotonic() + 600
        while self.workers():
            assert time.monotonic() < give_up, "the build worker never ended"
            time.sleep(0.05)

    def bundles(self) -> list[Path]:
        return sorted((self.project.parent / "cache" / "cupcake-py" / "bundles").glob("*.bundle"))


def parent_of(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return int(next(row.split()[1] for row in f if row.startswith("PPid:")))


def assert_being_compiled(w: World, answer: tuple[Any, int, str]) -> None:
    response, code, stderr = answer
    assert code == 2, answer
    kind, reason = w.decision(response)
    assert kind == "deny" and "are being compiled" in reason, answer
    assert response == get(w.harness).fail(reason, w.event("cmd7")).stdout
    assert "Traceback" not in stderr


@pytest.mark.parametrize("harness", HARNESSES)
def test_first_eval_answers_within_the_deadline_and_the_next_one_uses_the_build(tmp_path: Path, harness: str) -> None:
    w = World(tmp_path, harness)
    t0 = time.monotonic()
    first = w.eval("cmd7", FIRST)
    took = time.monotonic() - t0
    assert_being_compiled(w, first)
    assert took < float(FIRST) + 30, took  # bounded by the deadline (generous: a loaded machine)
    worker = w.one_worker()  # the build goes on after the evaluation answered, detached from it
    assert parent_of(worker) != os.getpid()
    w.open_gate()
    w.wait_for_workers()  # it ends by itself and is reaped (workers() skips zombies)
    assert len(w.bundles()) == 1
    response, code, stderr = w.eval("cmd7", LATER, "--trace", "bundle")
    assert (w.decision(response)[0], code) == ("deny", 0), (response, stderr)
    assert "no cmd7" in w.decision(response)[1]
    assert "bundle_cache=hit" in stderr, stderr
    assert w.decision(w.eval("ls")[0])[0] == "allow"


def test_concurrent_first_evals_start_one_build_and_never_answer_wrong(tmp_path: Path) -> None:
    w = World(tmp_path, "opencode")
    with ThreadPoolExecutor(max_workers=6) as pool:
        during = list(pool.map(lambda i: w.eval("cmd3" if i % 2 else "ls", FIRST), range(6)))
    for response, code, _ in during:
        assert code == 2 and "are being compiled" in response["reason"], response
    w.one_worker()  # one build, however many evaluations asked
    w.open_gate()
    with ThreadPoolExecutor(max_workers=6) as pool:  # these wait for the build in progress
        after = list(pool.map(lambda i: w.eval("cmd3" if i % 2 else "ls"), range(6)))
    assert [(r["decision"], c) for r, c, _ in after] == [("allow", 0), ("deny", 0)] * 3, after
    w.wait_for_workers()
    assert len(w.bundles()) == 1


def test_a_build_error_reaches_the_evaluations(tmp_path: Path) -> None:
    w = World(tmp_path, "claude", gated=False)
    (w.project / ".cupcake/policies/claude/broken.rego").write_text(
        "package cupcake.policies.claude.broken\n\nimport rego.v1\n\ndeny contains x if {\n")
    for _ in range(2):  # built by the worker, then reported from its recorded error
        response, code, stderr = w.eval("cmd7")
        assert code == 2 and w.decision(response)[0] == "deny", response
        assert "broken.rego" in stderr and "being compiled" not in stderr, stderr
    w.wait_for_workers()


@pytest.mark.parametrize("harness", HARNESSES)
def test_sigterm_while_waiting_for_the_build(tmp_path: Path, harness: str) -> None:
    w = World(tmp_path, harness)
    proc = w.start(LATER)
    assert proc.stdin is not None
    proc.stdin.write(jsonio.dumps(w.event("cmd7")))
    proc.stdin.close()
    proc.stdin = None
    give_up = time.monotonic() + 120
    while not w.building():  # the evaluation started the worker: it is waiting for the build now
        assert proc.poll() is None and time.monotonic() < give_up, proc.communicate()
        time.sleep(0.005)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    response = json.loads(out)
    reason = response["reason"] if harness == "opencode" else err.decode().strip()
    assert proc.returncode == 2 and reason.startswith("cupcake: stopped by SIGTERM"), (response, err)
    assert response == get(harness).fail(reason, w.event("cmd7")).stdout
    w.one_worker()  # the build goes on
    w.open_gate()
    w.wait_for_workers()
    response, code, _ = w.eval("cmd7")
    assert (w.decision(response)[0], code) == ("deny", 0)


def test_serve_answers_within_the_deadline_then_from_the_new_cache(tmp_path: Path) -> None:
    w = World(tmp_path, "opencode")
    proc = subprocess.Popen([*cupcake_command(), "serve", "--stdio", "--timeout", FIRST], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=w.project, env=w.env)
    assert proc.stdin is not None and proc.stdout is not None

    def ask(rid: int, command: str) -> dict[str, Any]:
        assert proc.stdin is not None and proc.stdout is not None
        proc.stdin.write(jsonio.dumps({"id": rid, "harness": "opencode", "event": w.event(command)}) + b"\n")
        proc.stdin.flush()
        out = jsonio.loads(proc.stdout.readline())
        assert isinstance(out, dict)
        return out

    first = ask(1, "cmd7")
    assert first["exit_code"] == 2 and "are being compiled" in first["response"]["reason"], first
    w.open_gate()
    w.wait_for_workers()
    second = ask(2, "cmd7")
    assert (second["exit_code"], second["response"]["decision"]) == (0, "deny"), second
    proc.stdin.close()
    assert proc.wait(timeout=60) == 0
