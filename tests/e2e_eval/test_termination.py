"""Issue 28 ("fail closed on the way out"): a termination signal at any point of `cupcake eval`
ends in the harness's fail-closed answer and exit status 2 (Claude Code runs the tool on any
other exit status), through the real process, for both harnesses, and nothing keeps running.

Each point is reached deterministically by watching the process from outside before the signal
is sent: start-up (our handlers are installed: SigCgt in /proc/<pid>/status, and the event not
yet written), analysis (a 1 MB command, once the tree-sitter binding is mapped), a shell signal
running (its `sleep` child exists), the audit write (the test holds the governance database
locked and the process has it open), and `cupcake serve` in the middle of a request. The bundle
build point is in tests/e2e_eval/test_build_deadline.py (the build runs in a worker)."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from cupcake_py.core import jsonio
from cupcake_py.harness import get
from cupcake_py.harness.examples import cupcake_command

HARNESSES = ("opencode", "claude")
SLOW = "sleep 300 # cupcake-termination-test-{}"

POLICY = """# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
#     required_signals: [{signals}]
package cupcake.policies.{h}.{name}

import rego.v1

deny contains {{"rule_id": "RM", "reason": "no rm", "severity": "HIGH"}} if startswith(input.tool_input.command, "rm")
"""


class World:
    def __init__(self, root: Path, *, rulebook: str = "", signals: str = "") -> None:
        self.root = root
        self.project = root / "p"
        for h in HARNESSES:
            d = self.project / ".cupcake" / "policies" / h
            d.mkdir(parents=True)
            (d / "rm.rego").write_text(POLICY.format(h=h, name="rm", signals=signals))
        (self.project / ".cupcake" / "rulebook.yml").write_text(rulebook)
        self.env = {**os.environ, "XDG_CACHE_HOME": str(root / "cache"), "XDG_CONFIG_HOME": str(root / "cfg"),
                    "XDG_STATE_HOME": str(root / "state"), "HOME": str(root)}
        self.db = root / "state" / "cupcake-py" / "governance.sqlite3"

    def event(self, harness: str, command: str) -> dict[str, Any]:
        base = {"hook_event_name": "PreToolUse", "session_id": "t", "cwd": str(self.project)}
        if harness == "opencode":
            return {**base, "tool": "bash", "args": {"command": command}}
        return {**base, "tool_name": "Bash", "tool_input": {"command": command}}

    def eval(self, harness: str, command: str) -> tuple[Any, int]:
        p = subprocess.run([*cupcake_command(), "eval", "--harness", harness, "--timeout", "120"],
                           input=jsonio.dumps(self.event(harness, command)), capture_output=True, cwd=self.project,
                           env=self.env, timeout=300)
        return json.loads(p.stdout), p.returncode

    def signalled(self, harness: str, stdin: bytes | None, ready: Callable[[int], bool], sig: int,
                  *args: str) -> tuple[Any, int, str]:
        """Start `cupcake eval`, write `stdin` (None: keep it open and empty), wait until `ready(pid)`,
        send `sig`; (parsed stdout, exit status, stderr)."""
        proc = subprocess.Popen([*cupcake_command(), "eval", "--harness", harness, "--timeout", "120", *args],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                cwd=self.project, env=self.env)
        assert proc.stdin is not None
        writer = None
        if stdin is not None:
            def feed() -> None:
                assert proc.stdin is not None
                try:
                    proc.stdin.write(stdin)
                    proc.stdin.close()
                except BrokenPipeError:
                    pass
            writer = threading.Thread(target=feed)
            writer.start()
        give_up = time.monotonic() + 120
        while not (handlers_installed(proc.pid) and ready(proc.pid)):
            assert proc.poll() is None, f"the process ended before the point was reached: {proc.communicate()}"
            assert time.monotonic() < give_up, "the point was never reached"
            time.sleep(0.002)
        proc.send_signal(sig)
        if writer is not None:
            writer.join(timeout=120)
            proc.stdin = None  # written and closed by the feeder
        out, err = proc.communicate(timeout=120)
        text = out.decode()
        return (json.loads(text) if text else None), proc.returncode, err.decode()


def _status(pid: int, field: str) -> str:
    try:
        with open(f"/proc/{pid}/status") as f:
            return next((row.split(":", 1)[1].strip() for row in f if row.startswith(field + ":")), "")
    except OSError:
        return ""


def handlers_installed(pid: int) -> bool:
    """cupcake's own handlers are in place (termination.arm installs SIGTERM with the others)."""
    caught = _status(pid, "SigCgt")
    return bool(caught) and bool(int(caught, 16) & (1 << (signal.SIGTERM - 1)))


def mapped(name: str) -> Callable[[int], bool]:
    def ready(pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/maps") as f:
                return name in f.read()
        except OSError:
            return False
    return ready


def has_open(path: Path) -> Callable[[int], bool]:
    def ready(pid: int) -> bool:
        try:
            return any(os.readlink(f"/proc/{pid}/fd/{fd}") == str(path) for fd in os.listdir(f"/proc/{pid}/fd"))
        except OSError:
            return False
    return ready


def processes_with(marker: str) -> list[int]:
    found = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/cmdline", "rb") as f:
                    if marker.encode() in f.read():
                        found.append(int(d))
            except OSError:
                pass
    return found


def assert_fail_closed(harness: str, answer: tuple[Any, int, str], signame: str, event: Any) -> None:
    response, code, stderr = answer
    assert code == 2, answer
    reason = response["reason"] if harness == "opencode" else stderr.strip()
    assert reason.startswith(f"cupcake: stopped by {signame}"), answer
    assert response == get(harness).fail(reason, event).stdout, answer
    if harness == "claude" and event is not None:
        assert response["hookSpecificOutput"]["permissionDecision"] == "deny"
    assert "Traceback" not in stderr and "internal error" not in stderr


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> World:
    w = World(tmp_path_factory.mktemp("termination"))
    for h in HARNESSES:
        assert w.eval(h, "rm x")[0] is not None  # builds the bundles
    return w


@pytest.mark.parametrize("harness", HARNESSES)
@pytest.mark.parametrize("sig", ["SIGTERM", "SIGINT", "SIGHUP"])
def test_at_start_up(world: World, harness: str, sig: str) -> None:
    """Before the event is read (it never comes): the event-less fail-closed form."""
    answer = world.signalled(harness, None, lambda pid: True, getattr(signal, sig))
    assert_fail_closed(harness, answer, sig, None)


@pytest.mark.parametrize("harness", HARNESSES)
def test_during_the_shell_analysis(world: World, harness: str) -> None:
    command = "; ".join(f"echo a{i} > /tmp/x{i} && cat /tmp/x{i} | grep -v b" for i in range(20000))
    event = world.event(harness, command)
    answer = world.signalled(harness, jsonio.dumps(event), mapped("tree_sitter"), signal.SIGTERM)
    assert_fail_closed(harness, answer, "SIGTERM", event)


@pytest.mark.parametrize("harness", HARNESSES)
def test_while_a_shell_signal_runs_and_nothing_is_left(tmp_path: Path, harness: str) -> None:
    marker = f"{harness}-{os.getpid()}-{time.monotonic_ns()}"
    w = World(tmp_path, rulebook=f'signals:\n  slow:\n    command: "{SLOW.format(marker)}"\n    timeout_seconds: 100\n',
              signals='"slow"')
    event = w.event(harness, "ls")
    answer = w.signalled(harness, jsonio.dumps(event), lambda pid: bool(processes_with(marker)), signal.SIGTERM)
    assert_fail_closed(harness, answer, "SIGTERM", event)
    time.sleep(0.2)
    assert processes_with(marker) == []


@pytest.mark.parametrize("harness", HARNESSES)
def test_during_the_audit_write(tmp_path: Path, harness: str) -> None:
    w = World(tmp_path, rulebook="audit: {mode: on, write_budget_ms: 10000}\n")
    assert w.eval(harness, "rm x")[1] == 0  # builds the bundle, creates the database
    blocker = sqlite3.connect(w.db, timeout=0.1)
    blocker.execute("BEGIN EXCLUSIVE")
    try:
        event = w.event(harness, "ls")
        answer = w.signalled(harness, jsonio.dumps(event), has_open(w.db), signal.SIGTERM)
    finally:
        blocker.rollback()
        blocker.close()
    assert_fail_closed(harness, answer, "SIGTERM", event)


def test_serve_answers_the_request_in_flight_then_ends(tmp_path: Path) -> None:
    marker = f"serve-{os.getpid()}-{time.monotonic_ns()}"
    w = World(tmp_path, rulebook=f'signals:\n  slow:\n    command: "{SLOW.format(marker)}"\n    timeout_seconds: 100\n',
              signals='"slow"')
    proc = subprocess.Popen([*cupcake_command(), "serve", "--stdio", "--timeout", "120"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=w.project, env=w.env)
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.write(jsonio.dumps({"id": 1, "harness": "claude", "event": w.event("claude", "ls")}) + b"\n")
    proc.stdin.flush()
    give_up = time.monotonic() + 120
    while not processes_with(marker):
        assert proc.poll() is None and time.monotonic() < give_up
        time.sleep(0.005)
    proc.send_signal(signal.SIGTERM)
    line = jsonio.loads(proc.stdout.readline())
    assert line["id"] == 1 and line["exit_code"] == 2, line
    spec = line["response"]["hookSpecificOutput"]
    assert spec["permissionDecision"] == "deny" and spec["permissionDecisionReason"].startswith(
        "cupcake: stopped by SIGTERM")
    assert proc.wait(timeout=60) == 128 + signal.SIGTERM
    time.sleep(0.2)
    assert processes_with(marker) == []
