"""Drives the REAL GitHub Copilot CLI, Factory Droid and Cline (npm packages pinned in tests/e2e_chat/package.json)
headlessly with the REAL cupcake engine, each against the scripted Chat Completions mock (mock_openai.py).

One `ChatE2E(root, agent)` owns a throwaway world:
- an isolated HOME (fresh agent state), XDG cache and config dirs (cupcake's bundle cache; no global config);
- a project made by the real `cupcake init --harness <agent>` with `cupcake` found on PATH (the venv's bin
  first on PATH, as a user's pipx install would be), to which the test adds the scenario policies of
  `project/policies/` (AGENT substituted) and rulebook entries;
- the agent's model configuration pointing at the mock on 127.0.0.1 (port 0): Copilot through BYOK env
  (COPILOT_OFFLINE), Droid through `~/.factory/settings.json` customModels, Cline through `cline auth`.
Every run is bounded (RUN_TIMEOUT_S), every process group started is stopped, and Cline's hub daemon (which
outlives the run) is found by its `--cwd <this project>` and stopped by PID.

The world, the fence, the mock's start and the bounded run are tests/e2e_support/world.py's.

Copilot runs WITHOUT `--trust-folder`: the project's hooks run because `cupcake init` trusted the project. It
runs with `--allow-all-paths`: with the sandbox floor on (`cupcake init`'s default), the rewritten command names
paths outside the project, which Copilot's path check refuses headless (fail-closed: nothing runs).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests.e2e_support.world import FENCE, World

HERE = Path(__file__).resolve().parent
MODULES = HERE / "node_modules"
BINARIES = {
    "copilot": MODULES / "@github" / "copilot-linux-x64" / "copilot",
    "factory": MODULES / "@factory" / "cli-linux-x64" / "bin" / "droid",
    "cline": MODULES / "cline" / "bin" / "cline",
}
RUN_TIMEOUT_S = 180
DURATIONS: list[str] = []  # printed in pytest's terminal summary (conftest.py)


def binary(agent: str) -> Path:
    found = BINARIES[agent]
    if not found.exists():  # the launcher layout differs between releases: take what npm linked
        found = MODULES / ".bin" / {"copilot": "copilot", "factory": "droid", "cline": "cline"}[agent]
    return found


@dataclass
class RunResult:
    agent: str
    returncode: int
    seconds: float
    stdout: str
    stderr: str
    requests: list[dict[str, Any]] = field(default_factory=list)

    def tool_messages(self) -> list[str]:
        """The text of every `role: tool` message the model received (each request repeats history)."""
        seen: list[str] = []
        for req in self.requests:
            for m in req["body"].get("messages") or []:
                if m.get("role") == "tool":
                    text = json.dumps(m.get("content"))
                    if text not in seen:
                        seen.append(text)
        return seen

    def model_saw(self, needle: str) -> bool:
        return any(needle in json.dumps(r["body"].get("messages")) for r in self.requests)


def stop_cline_hubs(project: Path) -> list[int]:
    """PIDs of Cline hub daemons started for `project` (`--cline-hub-daemon --cwd <project>`), stopped."""
    stopped = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().split(b"\0")
        except OSError:
            continue
        if b"--cline-hub-daemon" in argv and str(project).encode() in argv:
            try:
                os.kill(int(entry.name), signal.SIGKILL)
                stopped.append(int(entry.name))
            except ProcessLookupError:
                pass
    return stopped


class ChatE2E(World):
    def __init__(self, root: Path, agent: str) -> None:
        super().__init__(root)
        self.agent = agent
        self.without_cupcake = False  # run the agent with no `cupcake` on PATH (the hook must block)

    # -- environment ----------------------------------------------------------------

    def agent_env(self) -> dict[str, str]:
        env = {**self.env(), **FENCE}
        if self.without_cupcake:
            env["PATH"] = "/usr/local/bin:/usr/bin:/bin"
        if self.agent == "copilot":
            env.update(COPILOT_OFFLINE="true", COPILOT_AUTO_UPDATE="false", COPILOT_MODEL="gpt-4.1",
                       COPILOT_PROVIDER_BASE_URL=f"http://127.0.0.1:{self.port}/v1", COPILOT_PROVIDER_API_KEY="dummy")
        return env

    # -- setup ---------------------------------------------------------------------

    def init(self, policies: tuple[str, ...], protected: tuple[str, ...] = (),
             signals: dict[str, dict[str, Any]] | None = None) -> None:
        texts = {name: (HERE / "project" / "policies" / name).read_text().replace("AGENT", self.agent)
                 for name in policies}
        self.init_project(self.agent, texts, protected, signals)

    def hook_files(self) -> list[Path]:
        if self.agent == "copilot":
            return [self.project / ".github" / "hooks" / "cupcake.json"]
        if self.agent == "factory":
            return [self.project / ".factory" / "hooks.json"]
        return sorted(p for p in (self.project / ".clinerules" / "hooks").iterdir() if p.is_file())

    def rewrite_hook_commands(self, old: str, new: str) -> None:
        """Edit every installed cupcake hook (e.g. a shorter --timeout)."""
        for path in self.hook_files():
            text = path.read_text()
            assert old in text, path
            path.write_text(text.replace(old, new))

    def warm_up(self) -> None:
        """One evaluation before the agent starts: compiles and caches the bundle."""
        env = {**self.env(), "CUPCAKE_HOOK_EVENT": {"copilot": "preToolUse", "cline": "PreToolUse"}.get(self.agent, "")}
        event = {"copilot": {"sessionId": "warm", "timestamp": 1, "cwd": str(self.project), "toolName": "bash",
                             "toolArgs": {"command": "true"}},
                 "factory": {"session_id": "warm", "cwd": str(self.project), "hook_event_name": "PreToolUse",
                             "tool_name": "Execute", "tool_input": {"command": "true"}},
                 "cline": {"taskId": "warm", "workspaceRoots": [str(self.project)],
                           "tool_call": {"id": "c", "name": "run_commands", "input": {"commands": ["true"]}}}}[self.agent]
        proc = self.cupcake_run("eval", "--harness", self.agent, "--timeout", "60", stdin=json.dumps(event).encode(),
                                env=env)
        assert proc.returncode == 0, proc.stderr.decode()

    def start_mock(self) -> None:
        self.start_model("tests.e2e_chat.mock_openai")
        self.configure_model()

    def configure_model(self) -> None:
        if self.agent == "factory":
            settings = {"customModels": [{"model": "mock-model", "displayName": "Mock", "apiKey": "dummy",
                                          "baseUrl": f"http://127.0.0.1:{self.port}/v1",
                                          "provider": "generic-chat-completion-api", "maxOutputTokens": 4096}]}
            (self.home / ".factory").mkdir(exist_ok=True)
            (self.home / ".factory" / "settings.json").write_text(json.dumps(settings))
        elif self.agent == "cline":
            proc = subprocess.run([str(binary("cline")), "auth", "-p", "openai", "-k", "dummy", "-m", "mock-model",
                                   "-b", f"http://127.0.0.1:{self.port}/v1"], cwd=self.project, env=self.agent_env(),
                                  stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
            assert proc.returncode == 0, proc.stderr.decode()[-2000:]

    # -- runs ----------------------------------------------------------------------

    def argv(self, prompt: str) -> list[str]:
        exe = str(binary(self.agent))
        if self.agent == "copilot":
            # --allow-all-paths: Copilot's own path check refuses the sandboxed command headless (it names paths
            # outside the project: cupcake's state dir, the agent config the floor resets); docs/copilot-cli.md
            return [exe, "-p", prompt, "--allow-all-tools", "--allow-all-paths", "--no-auto-update"]
        if self.agent == "factory":
            return [exe, "exec", "-m", "custom:mock-model", "-o", "json", "--auto", "high", prompt]
        return [exe, "--json", prompt]

    def run(self, prompt: str) -> RunResult:
        exe = binary(self.agent)
        assert exe.exists(), f"{exe} is missing: run `make node-deps` (npm ci in tests/e2e_chat)"
        run = self.run_bounded(self.argv(prompt), self.agent_env(), RUN_TIMEOUT_S, self.agent,
                               after=(lambda: stop_cline_hubs(self.project)) if self.agent == "cline" else None)
        return RunResult(self.agent, run.returncode, run.seconds, run.stdout, run.stderr, run.requests)

    def close(self) -> None:
        super().close()
        if self.agent == "cline":
            stop_cline_hubs(self.project)


def copy_tree(src: Path, dst: Path) -> None:
    shutil.copytree(src, dst, dirs_exist_ok=True)


if __name__ == "__main__":
    import tempfile

    agent = sys.argv[1]
    with tempfile.TemporaryDirectory() as tmp, ChatE2E(Path(tmp), agent) as e2e:
        e2e.init(("e2e_pre.rego",), protected=("protected/",))
        e2e.warm_up()
        e2e.start_mock()
        r = e2e.run(sys.argv[2] if len(sys.argv) > 2 else "STEPS: CMD: echo hi")
        print(r.stdout[-3000:], r.stderr[-2000:], sep="\n")
        print(f"{r.seconds:.1f}s, {len(r.requests)} requests; tool messages: {r.tool_messages()}")
