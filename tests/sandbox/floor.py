"""A project under the kernel floor, driven as an agent drives it: the event goes through the real
`cupcake eval --harness opencode|claude`, and what the harness would run (the rewritten command)
is run with bash in the project directory, as the agent's shell runs it.

Layout (all below one temporary directory, nothing of the real home is used):
  home/               HOME (~/.ssh/id_rsa, ~/.aws/credentials, ~/.claude/settings.json)
  home/.config        XDG_CONFIG_HOME: the global rulebook (sensitive_data_protection, system_protection)
  home/.cache, home/.local/state   XDG_CACHE_HOME / XDG_STATE_HOME (cupcake's caches, the sandbox profiles)
  proj/               the project: git repository, .cupcake/rulebook.yml (sandbox on), .env, .claude/
  sibling/file.txt    another project (a write outside the project must not land)
  scratch/            TMPDIR, the only temp dir the sandbox makes writable (rulebook `sandbox.writable`)
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from cupcake_py.harness.examples import cupcake_command
from cupcake_py.sandbox.bwrap import locate, probe

SECRET = "SECRET-VALUE-7f3a"
SSH_SECRET = "SSH-PRIVATE-KEY-91c2"
AWS_SECRET = "AWS-KEY-5d0e"


def require_bwrap() -> str:
    """bubblewrap must be installed and usable (`make test` installs it): a missing one fails the test."""
    b = locate()
    if b is None:
        raise AssertionError("bubblewrap is not installed: run `apt-get install bubblewrap` (make test does)")
    ok, why = probe(b)
    if not ok:
        raise AssertionError(f"bubblewrap cannot run here: {why}")
    return b


def _git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=cwd, check=True,
                   capture_output=True)


class Project:
    def __init__(self, base: Path, *, sandbox: str = "", project_builtins: str = "  git_block_no_verify: {}\n",
                 global_builtins: str = "  sensitive_data_protection: {}\n  system_protection: {}\n") -> None:
        self.base = base
        self.home = base / "home"
        self.proj = base / "proj"
        self.sibling = base / "sibling"
        self.scratch = base / "scratch"
        self.calls = 0
        for d in (self.home / ".ssh", self.home / ".aws", self.home / ".claude", self.home / ".config" / "cupcake",
                  self.proj / ".cupcake", self.proj / ".claude", self.proj / "src", self.sibling, self.scratch):
            d.mkdir(parents=True, exist_ok=True)
        (self.home / ".ssh" / "id_rsa").write_text(SSH_SECRET + "\n")
        (self.home / ".aws" / "credentials").write_text(f"[default]\nkey={AWS_SECRET}\n")
        (self.home / ".claude" / "settings.json").write_text('{"hooks": {}}\n')
        (self.home / ".config" / "cupcake" / "rulebook.yml").write_text("builtins:\n" + global_builtins)
        writable = sandbox or f"  writable: [{self.scratch}, ~/.cache]\n"
        (self.proj / ".cupcake" / "rulebook.yml").write_text(
            "builtins:\n" + project_builtins + "sandbox:\n  enabled: true\n" + writable)
        (self.proj / ".claude" / "settings.json").write_text('{"hooks": {"PreToolUse": []}}\n')
        (self.proj / ".env").write_text(f"API_TOKEN={SECRET}\n")
        (self.proj / "src" / "app.py").write_text("def add(a, b):\n    return a + b\n")
        (self.proj / "README.md").write_text("# demo\n")
        (self.sibling / "file.txt").write_text("sibling original\n")
        _git(self.proj, "init", "-q", "-b", "main")
        _git(self.proj, "add", "src", "README.md")
        _git(self.proj, "commit", "-q", "-m", "init")
        (self.proj / ".git" / "hooks" / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
        venv_bin = str(Path(cupcake_command()[0]).parent)
        self.env = {
            "HOME": str(self.home), "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_CACHE_HOME": str(self.home / ".cache"), "XDG_STATE_HOME": str(self.home / ".local" / "state"),
            "TMPDIR": str(self.scratch), "PATH": f"{venv_bin}:/usr/local/bin:/usr/bin:/bin",
            "LANG": "C.UTF-8", "GIT_CONFIG_NOSYSTEM": "1",
        }

    # -- what must not change -----------------------------------------------------------------

    def guarded(self) -> list[Path]:
        return [self.proj / ".cupcake" / "rulebook.yml", self.proj / ".claude" / "settings.json",
                self.home / ".claude" / "settings.json", self.proj / ".git" / "config",
                self.proj / ".git" / "hooks" / "pre-commit", self.home / ".config" / "cupcake" / "rulebook.yml",
                self.sibling / "file.txt", self.home / ".ssh" / "id_rsa"]

    def snapshot(self) -> dict[str, str]:
        out = {}
        for p in self.guarded():
            out[str(p)] = hashlib.sha256(p.read_bytes()).hexdigest() if p.exists() else "absent"
        for d in (self.proj / ".claude", self.proj / ".cupcake", self.proj / ".git" / "hooks"):
            out[str(d) + "/"] = ",".join(sorted(os.listdir(d))) if d.is_dir() else "not a directory"
        for name in (".mcp.json", "opencode.json", "opencode.jsonc"):
            out[name] = "present" if (self.proj / name).exists() else "absent"
        return out

    @staticmethod
    def states(paths: Sequence[Path]) -> dict[str, str]:
        """Each path's text, or "dir" or "absent"."""
        return {str(f): f.read_text() if f.is_file() else "dir" if f.is_dir() else "absent" for f in paths}

    # -- the agent's tool calls --------------------------------------------------------------------

    def event(self, harness: str, command: str, cwd: Path | None = None) -> dict[str, Any]:
        self.calls += 1
        session = f"s{self.calls}"  # one session per call: a halt of one test does not stick to the next
        where = str(cwd or self.proj)
        if harness == "claude":
            return {"hook_event_name": "PreToolUse", "session_id": session, "transcript_path": str(self.base / "t.jsonl"),
                    "cwd": where, "tool_name": "Bash", "tool_input": {"command": command},
                    "tool_use_id": "toolu_1"}
        return {"hook_event_name": "PreToolUse", "session_id": session, "cwd": where, "tool": "bash",
                "args": {"command": command}}

    def evaluate(self, harness: str, command: str, cwd: Path | None = None) -> tuple[str, str | None, Any]:
        """(decision: allow|ask|deny, the command the harness would run or None, raw answer); `cwd`:
        where the agent runs (the hook's working directory and the event's), default the project."""
        proc = subprocess.run([*cupcake_command(), "eval", "--harness", harness],
                              input=json.dumps(self.event(harness, command, cwd)).encode(), capture_output=True,
                              cwd=cwd or self.proj, env=self.env, timeout=120)
        out = json.loads(proc.stdout)
        if harness == "claude":
            if proc.returncode != 0:
                return "deny", None, out
            spec = out.get("hookSpecificOutput", {})
            decision = spec.get("permissionDecision", "allow")
            runs = spec.get("updatedInput", {}).get("command", command if decision == "allow" else None)
            return decision, runs, out
        assert proc.returncode in (0, 2), proc.stderr
        decision = {"block": "deny"}.get(out["decision"], out["decision"])
        runs = out.get("updated_args", {}).get("command", command if decision == "allow" else None)
        return decision, runs, out

    def execute(self, runs: str, timeout: float = 120, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        """Run what the harness runs: its shell, in the project (or `cwd`), with the agent's environment."""
        return subprocess.run(["bash", "-c", runs], cwd=cwd or self.proj, env=self.env, capture_output=True, text=True,
                              timeout=timeout)

    def agent(self, harness: str, command: str) -> tuple[str, subprocess.CompletedProcess[str] | None]:
        """Evaluate, then run what would run when the call is allowed, or approved by the user."""
        decision, runs, _ = self.evaluate(harness, command)
        if decision == "deny" or runs is None:
            return decision, None
        assert runs != command and "--args 3" in runs, f"an {decision} runs without the sandbox: {runs!r}"
        return decision, self.execute(runs)


def warm(project: Project, harnesses: Sequence[str], seconds: float = 300) -> None:
    """Wait out a cold build of the policies (it can outlast one evaluation's deadline)."""
    deadline = time.monotonic() + seconds
    for harness in harnesses:
        while project.evaluate(harness, "true")[0] != "allow" and time.monotonic() < deadline:
            time.sleep(1)


def run_allowed(project: Project, harness: str, command: str, cwd: Path | None = None) -> str:
    """The call must be allowed and sandboxed: what it printed when the harness ran it."""
    done = project.execute(run_line(project, harness, command, cwd), cwd=cwd)
    return done.stdout + done.stderr


def assert_same_as_plain(project: Project, harness: str, command: str, cwd: Path | None = None) -> None:
    """An ordinary command: allowed, sandboxed, and the same output and exit status as run plain."""
    plain = project.execute(command, cwd=cwd)
    done = project.execute(run_line(project, harness, command, cwd), cwd=cwd)
    assert (done.returncode, done.stdout, done.stderr) == (plain.returncode, plain.stdout, plain.stderr), command


def run_line(project: Project, harness: str, command: str, cwd: Path | None = None) -> str:
    """The sandboxed line the harness runs for an allowed call."""
    decision, runs, _ = project.evaluate(harness, command, cwd)
    assert decision == "allow" and runs is not None and "--args 3" in runs, (command, decision)
    return runs


def copy_project(src: Path, dst: Path) -> None:
    if dst.exists():
        shutil.rmtree(dst)
    shutil.copytree(src, dst, symlinks=True)
