"""Drives the REAL Claude Code CLI (npm `@anthropic-ai/claude-code`, pinned in tests/e2e_claude/package.json;
its native binary comes from the platform package `@anthropic-ai/claude-code-linux-x64`) headlessly with the
REAL cupcake engine.

One `ClaudeE2E` owns a throwaway world:
- an isolated HOME (fresh `~/.claude`), XDG cache and config dirs (cupcake's bundle cache, no global config);
- a project made by the real `cupcake init --harness claude` (`.cupcake/` and the hooks merged into
  `.claude/settings.json`), to which the test adds the scenario policies of `project/policies/` and rulebook
  entries (the shipped `protected_paths` builtin, signals);
- the scripted mock Messages API (mock_api.py) on 127.0.0.1.
The world, the fence, the mock's start and the bounded run are tests/e2e_support/world.py's.
Claude Code gets `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1` (the reference saw no other traffic with it) and,
as a second fence, HTTP(S) proxies pointing at a closed loopback port with only loopback exempt: nothing it
does can leave the machine. Every run is bounded (RUN_TIMEOUT_S: an unreachable base URL means minutes of
retries) and every process started is stopped (process groups).

Manual run (from the repository root): `python -m tests.e2e_claude.driver "STEPS: CMD: echo hi ;; CMD: rm -rf x"` prints the result line.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.e2e_support.world import FENCE, World

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CLAUDE = HERE / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"
CLAUDE_VERSION = "2.1.197"
RUN_TIMEOUT_S = 180  # bound on one `claude -p` (a loaded 2-core machine; a normal run takes seconds)
DURATIONS: list[str] = []  # printed in pytest's terminal summary (conftest.py)


@dataclass
class RunResult:
    returncode: int
    seconds: float
    lines: list[dict[str, Any]]
    stderr: str
    requests: list[dict[str, Any]] = field(default_factory=list)

    @property
    def result(self) -> dict[str, Any]:
        found = [ln for ln in self.lines if ln.get("type") == "result"]
        assert found, f"no result line (exit {self.returncode}); stderr: {self.stderr[-2000:]}"
        return found[-1]

    def tool_uses(self) -> list[dict[str, Any]]:
        """Every tool_use block the model sent, in order (from the stream-json assistant lines)."""
        out = []
        for ln in self.lines:
            if ln.get("type") == "assistant":
                out += [b for b in ln["message"].get("content", []) if b.get("type") == "tool_use"]
        return out

    def tool_result(self, tool_use_id: str) -> dict[str, Any]:
        """The tool_result block Claude Code sent back to the model for this call (from the request log)."""
        for req in self.requests:
            for m in req["body"].get("messages") or []:
                for b in m.get("content") if isinstance(m.get("content"), list) else []:
                    if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id") == tool_use_id:
                        return b
        raise AssertionError(f"the model never received a result for {tool_use_id}")

    def model_saw(self, needle: str) -> list[str]:
        """Roles of the message entries (plus `system` for the system prompt) of any request that contain
        `needle`: where the model received it."""
        where = []
        for req in self.requests:
            body = req["body"]
            if needle in json.dumps(body.get("system", "")):
                where.append("system-prompt")
            for m in body.get("messages") or []:
                if needle in json.dumps(m.get("content")):
                    where.append(str(m.get("role")))
        return where


def result_text(block: dict[str, Any]) -> str:
    content = block.get("content")
    if isinstance(content, list):
        return "\n".join(str(p.get("text", "")) for p in content if isinstance(p, dict))
    return str(content)


class ClaudeE2E(World):
    def claude_env(self) -> dict[str, str]:
        return {**self.env(), "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{self.port}", "ANTHROPIC_API_KEY": "dummy",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1", **FENCE}

    # -- setup ---------------------------------------------------------------------

    def init(self, policies: tuple[str, ...], protected: tuple[str, ...] = (),
             signals: dict[str, dict[str, Any]] | None = None) -> None:
        texts = {name: (HERE / "project" / "policies" / name).read_text() for name in policies}
        self.init_project("claude", texts, protected, signals)

    def settings(self) -> dict[str, Any]:
        return json.loads((self.project / ".claude" / "settings.json").read_text())  # type: ignore[no-any-return]

    def rewrite_hook_commands(self, old: str, new: str) -> None:
        """Edit every cupcake hook command in .claude/settings.json (e.g. a shorter --timeout)."""
        path = self.project / ".claude" / "settings.json"
        text = path.read_text()
        assert old in text
        path.write_text(text.replace(old, new))

    def warm_up(self) -> dict[str, Any]:
        """One evaluation before Claude Code starts: compiles and caches the bundle."""
        event = {"hook_event_name": "PreToolUse", "session_id": "e2e-warmup", "cwd": str(self.project),
                 "tool_name": "Bash", "tool_input": {"command": "true"}}
        proc = self.cupcake_run("eval", "--harness", "claude", "--timeout", "60", stdin=json.dumps(event).encode())
        assert proc.returncode == 0, proc.stderr.decode()
        return json.loads(proc.stdout)  # type: ignore[no-any-return]

    def start_mock(self) -> None:
        self.start_model("tests.e2e_claude.mock_api")

    # -- runs ----------------------------------------------------------------------

    def run(self, prompt: str, *extra: str) -> RunResult:
        assert CLAUDE.is_file() and CLAUDE.stat().st_size > 1_000_000, \
            f"{CLAUDE} is missing or the stub: run `make node-deps` (npm install in tests/e2e_claude)"
        run = self.run_bounded([str(CLAUDE), "-p", prompt, "--output-format", "stream-json", "--verbose",
                                "--permission-mode", "acceptEdits", "--allowedTools", "Bash,Edit,Write,Read", *extra],
                               self.claude_env(), RUN_TIMEOUT_S, "claude -p")
        lines = []
        for raw in run.stdout.splitlines():
            try:
                lines.append(json.loads(raw))
            except ValueError:
                continue
        return RunResult(run.returncode, run.seconds, lines, run.stderr, run.requests)


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, ClaudeE2E(Path(tmp)) as e2e:
        e2e.init(("e2e_pre.rego", "e2e_context.rego", "e2e_post.rego", "e2e_stop.rego"), protected=("protected/",))
        print(e2e.warm_up())
        e2e.start_mock()
        r = e2e.run(sys.argv[1] if len(sys.argv) > 1 else "STEPS: CMD: echo hi")
        print(json.dumps(r.result, indent=2))
        print(f"{r.seconds:.1f}s, {len(r.requests)} requests")
