"""The floor for the hook agents (Codex CLI, Gemini CLI, Qwen Code), through the real `cupcake eval`:
Codex CLI (`allow` + `updatedInput`) and Gemini CLI (`hookSpecificOutput.tool_input`) run a modified
tool input: their shell calls come back rewritten into the sandbox, and what they would run keeps
the protected bytes. Qwen Code ignores a modified input, so nothing is rewritten there and the
uncertainty the floor would cover is still asked."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from cupcake_py.harness.examples import cupcake_command
from tests.sandbox.floor import Project, require_bwrap

WRITE = "python3 -c \"open('.cupcake/rulebook.yml', 'w').write('x')\"; echo done"
SHELL_TOOL = {"codex": ("PreToolUse", "Bash"), "gemini": ("BeforeTool", "run_shell_command"),
              "qwen": ("PreToolUse", "run_shell_command")}


def _eval(project: Project, agent: str, command: str) -> dict[str, object]:
    event_name, tool = SHELL_TOOL[agent]
    event = {"hook_event_name": event_name, "session_id": f"h{agent}", "cwd": str(project.proj),
             "tool_name": tool, "tool_input": {"command": command}}
    proc = subprocess.run([*cupcake_command(), "eval", "--harness", agent], input=json.dumps(event).encode(),
                          capture_output=True, cwd=project.proj, env=project.env, timeout=120)
    out: dict[str, object] = json.loads(proc.stdout or b"{}")
    return out


@pytest.mark.parametrize("agent", ["codex", "gemini"])
def test_agents_that_run_a_modified_input_get_the_floor(tmp_path: Path, agent: str) -> None:
    require_bwrap()
    project = Project(tmp_path)
    rulebook = project.proj / ".cupcake" / "rulebook.yml"
    before = rulebook.read_bytes()
    out = _eval(project, agent, WRITE)
    spec = out.get("hookSpecificOutput")
    assert isinstance(spec, dict), out
    runs = spec.get("updatedInput" if agent == "codex" else "tool_input", {}).get("command")
    assert isinstance(runs, str) and re.search(r"--args 3 -- (\S+ 4 )?/bin/bash -c", runs), out
    done = project.execute(runs)
    assert rulebook.read_bytes() == before and "done" in done.stdout and "Read-only file system" in done.stderr


def test_an_agent_that_ignores_a_modified_input_keeps_the_reading(tmp_path: Path) -> None:
    require_bwrap()
    project = Project(tmp_path)
    out = _eval(project, "qwen", WRITE)
    spec = out.get("hookSpecificOutput")
    assert isinstance(spec, dict) and spec.get("permissionDecision") == "ask", out
    assert "updatedInput" not in spec and "bwrap" not in json.dumps(out)

