"""A `cupcake serve --stdio` process for tests: send request lines, read answer lines."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

from cupcake_py.harness.opencode.examples import cupcake_command, isolated_env
from tests.e2e_eval.test_engine_behaviour import make_config, policy

DENY_RM = policy("rm", 'deny contains {"rule_id": "RM", "reason": "no rm"} if { startswith(input.tool_input.command, "rm") }\n')


def event(cwd: Path, command: str, tool: str = "bash") -> dict[str, Any]:
    return {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(cwd), "tool": tool,
            "args": {"command": command}}


def request(rid: Any, cwd: Path, command: str, **extra: Any) -> bytes:
    return json.dumps({"id": rid, "harness": "opencode", "event": event(cwd, command), **extra}).encode()


def project(root: Path, policies: dict[str, str], rulebook: str = "") -> Path:
    make_config(root / ".cupcake", policies, rulebook)
    return root


class Server:
    def __init__(self, tmp_path: Path, *args: str) -> None:
        self.env = isolated_env(tmp_path / "cache", tmp_path / "cfg")
        self.proc = subprocess.Popen([*cupcake_command(), "serve", "--stdio", *args], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, env=self.env)

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def recv(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        line = self.proc.stdout.readline()
        assert line, f"server ended: {self.stop()}"
        out = json.loads(line)
        assert isinstance(out, dict)
        return out

    def ask(self, line: bytes) -> dict[str, Any]:
        self.send(line)
        return self.recv()

    def rss_kib(self) -> int:
        with open(f"/proc/{self.proc.pid}/status") as f:
            for row in f:
                if row.startswith("VmRSS:"):
                    return int(row.split()[1])
        raise AssertionError("no VmRSS")

    def stop(self) -> tuple[int, str]:
        """Close stdin (EOF ends the server); (exit status, stderr)."""
        assert self.proc.stdin is not None
        if not self.proc.stdin.closed:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=60)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
        assert self.proc.stderr is not None
        return self.proc.returncode, self.proc.stderr.read().decode("utf-8", "replace")


def warm(srv: Server, cwd: Path) -> None:
    """Build `cwd`'s bundle in the server's cache with a one-shot eval of an event no Bash policy
    is routed to (request deadlines cover builds: a test of a later phase starts warm)."""
    from cupcake_py.harness.opencode.examples import run_eval

    todo = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(cwd), "tool": "todowrite",
            "args": {"todos": []}}
    assert run_eval(json.dumps(todo).encode(), cwd, ["--no-global", "--timeout", "120"], srv.env)[1] == 0


def touch_later(path: Path, text: str) -> None:
    """Rewrite `path`, making sure its mtime moves even on coarse-clock file systems."""
    st = path.stat() if path.exists() else None
    path.write_text(text)
    if st is not None:
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))
