"""Drives the REAL Codex CLI, Gemini CLI and Qwen Code (npm packages pinned in tests/e2e_agents/package.json)
headlessly with the REAL cupcake engine.

One `AgentE2E` owns a throwaway world for one agent:
- an isolated HOME (the agent's user config: the mock model provider, no login), XDG cache and config dirs;
- a project made by the real `cupcake init --harness <agent> --no-global` (`.cupcake/` and the agent's hooks,
  which run `cupcake` FROM PATH: the venv's bin dir is first on the agents' PATH), to which the test adds the
  scenario policies of `project/policies/` and rulebook entries (the shipped `protected_paths`, signals);
- the scripted mock model API (mock_models.py) on 127.0.0.1 (port 0).
HTTP(S) proxies point at a closed loopback port with only loopback exempt: nothing can leave the machine.
Every run is bounded (RUN_TIMEOUT_S) and every process started is stopped (process groups); the world, the
fence, the mock's start and the bounded run are tests/e2e_support/world.py's.

Manual run (from the repository root): `python -m tests.e2e_agents.driver codex "STEPS: CMD: echo hi ;; CMD: rm -r x"`.
"""

from __future__ import annotations

import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.e2e_support.world import FENCE, World

HERE = Path(__file__).resolve().parent
BIN = HERE / "node_modules" / ".bin"
VERSIONS = {"codex": "0.171.0", "gemini": "0.61.0", "qwen": "0.24.4"}
API = {"codex": "responses", "gemini": "gemini", "qwen": "chat"}
RUN_TIMEOUT_S = 240  # one agent run (Gemini/Qwen take 5-10 s alone, far more on a loaded 2-core machine)
DURATIONS: list[str] = []  # printed in pytest's terminal summary (conftest.py)
MOCK_END = "# end of the e2e mock provider\n"


@dataclass
class RunResult:
    returncode: int
    seconds: float
    stdout: str
    stderr: str
    requests: list[dict[str, Any]]

    def model_saw(self, needle: str) -> bool:
        """Whether any request the agent sent to the model holds `needle` (a tool result, context, ...)."""
        return any(needle in json.dumps(r["body"]) for r in self.requests)


class AgentE2E(World):
    def __init__(self, agent: str, root: Path) -> None:
        # cupcake from the venv; the pinned agents too (`cupcake init --harness codex` asks `codex` to trust its hooks)
        super().__init__(root, str(BIN))
        self.agent = agent
        self.model = "gpt-5.5" if agent == "codex" else "gemini-2.5-flash" if agent == "gemini" else "mock-model"

    # -- environment ----------------------------------------------------------------------------

    def agent_env(self) -> dict[str, str]:
        env = {**self.env(), **FENCE}
        if self.agent == "codex":
            env.update(CODEX_HOME=str(self.home / ".codex"), MOCK_API_KEY="dummy")
        elif self.agent == "gemini":
            env.update(GEMINI_API_KEY="dummy", GOOGLE_GEMINI_BASE_URL=f"http://127.0.0.1:{self.port}")
        else:
            env.update(OPENAI_API_KEY="dummy", OPENAI_BASE_URL=f"http://127.0.0.1:{self.port}/v1",
                       OPENAI_MODEL=self.model, QWEN_CODE_SUPPRESS_YOLO_WARNING="1")
        return env

    def write_agent_config(self) -> None:
        """The agent's USER config: the mock model, no telemetry or updates (hooks live in the project)."""
        if self.agent == "codex":
            d = self.home / ".codex"
            d.mkdir(exist_ok=True)
            path = d / "config.toml"
            # keep what Codex wrote there (the hook trust `cupcake init` obtained: hooks.state)
            kept = path.read_text().split(MOCK_END, 1)[-1] if path.exists() else ""
            path.write_text(
                f'model = "{self.model}"\nmodel_provider = "mock"\n[model_providers.mock]\nname = "mock"\n'
                f'base_url = "http://127.0.0.1:{self.port}/v1"\nwire_api = "responses"\nenv_key = "MOCK_API_KEY"\n'
                f"{MOCK_END}{kept}")
            return
        d = self.home / (".gemini" if self.agent == "gemini" else ".qwen")
        d.mkdir(exist_ok=True)
        settings = {"security": {"auth": {"selectedType": "gemini-api-key" if self.agent == "gemini" else "openai"}},
                    "privacy": {"usageStatisticsEnabled": False}, "telemetry": {"enabled": False},
                    "general": {"disableAutoUpdate": True, "disableUpdateNag": True}}
        (d / "settings.json").write_text(json.dumps(settings))

    # -- setup ----------------------------------------------------------------------------------

    def init(self, policies: tuple[str, ...] = (), protected: tuple[str, ...] = (),
             signals: dict[str, dict[str, Any]] | None = None) -> None:
        if self.agent == "codex":  # the user trusts the project in Codex first (codex --trust would persist this)
            (self.home / ".codex").mkdir(exist_ok=True)
            (self.home / ".codex" / "config.toml").write_text(
                f'[projects.{json.dumps(str(self.project.resolve()))}]\ntrust_level = "trusted"\n')
        texts = {name: (HERE / "project" / "policies" / name).read_text() for name in policies}
        proc = self.init_project(self.agent, texts, protected, signals, "--no-global")
        if self.agent == "codex":  # init had Codex itself trust cupcake's hooks (no bypass flag in the runs)
            assert b"Codex now runs cupcake's" in proc.stdout, proc.stdout.decode()
        self.add_capture_hooks()

    def add_capture_hooks(self) -> None:
        """A user hook of our own BEFORE cupcake's in every event cupcake hooks: it appends the event the agent
        sent to events.jsonl (so tests can check that every real event validates) and answers `{}`. It also
        shows cupcake's hooks working next to a user's."""
        path = self.hooks_file()
        settings = json.loads(path.read_text())
        capture = f"sh -c 'cat >> {self.root}/events.jsonl; echo >> {self.root}/events.jsonl; echo {{}}'"
        for groups in settings["hooks"].values():
            groups.insert(0, {"hooks": [{"type": "command", "command": capture}]})
        path.write_text(json.dumps(settings, indent=2))
        self.retrust()

    def retrust(self) -> None:
        """Codex: after the test edits the hook file (a hook's key or hash changes), the user reviews and trusts
        every hook again, as in Codex's /hooks (an edited hook is skipped until then)."""
        if self.agent != "codex":
            return
        from cupcake_py.harness.codex.trust import trust_cupcake_hooks

        saved = dict(os.environ)
        os.environ.update(self.env())
        try:
            trust_cupcake_hooks(self.project.resolve(), mark="")
        finally:
            os.environ.clear()
            os.environ.update(saved)

    def captured_events(self) -> list[dict[str, Any]]:
        path = self.root / "events.jsonl"
        text = path.read_text() if path.exists() else ""
        return [json.loads(line) for line in text.splitlines() if line.strip()]

    def hooks_file(self) -> Path:
        return self.project / {"codex": ".codex/hooks.json", "gemini": ".gemini/settings.json",
                               "qwen": ".qwen/settings.json"}[self.agent]

    def retarget_pre_tool_hook(self, old: str, new: str) -> None:
        """Change only cupcake's pre-tool hook command (the other events keep the working one)."""
        path = self.hooks_file()
        settings = json.loads(path.read_text())
        event = "BeforeTool" if self.agent == "gemini" else "PreToolUse"
        changed = 0
        for group in settings["hooks"][event]:
            for hook in group["hooks"]:
                if f"eval --harness {self.agent}" in hook["command"]:
                    assert old in hook["command"]
                    hook["command"] = hook["command"].replace(old, new)
                    changed += 1
        assert changed == 1
        path.write_text(json.dumps(settings, indent=2))
        self.retrust()

    def warm_up(self) -> None:
        """One evaluation before the agent starts: compiles and caches the bundle."""
        event = {"hook_event_name": "BeforeTool" if self.agent == "gemini" else "PreToolUse",
                 "session_id": "e2e-warmup", "cwd": str(self.project),
                 "tool_name": "Bash" if self.agent == "codex" else "run_shell_command", "tool_input": {"command": "true"}}
        proc = self.cupcake_run("eval", "--harness", self.agent, "--timeout", "60", stdin=json.dumps(event).encode())
        assert proc.returncode == 0, proc.stderr.decode()

    def start_mock(self) -> None:
        self.start_model("tests.e2e_agents.mock_models", "--api", API[self.agent])
        self.write_agent_config()

    # -- runs -----------------------------------------------------------------------------------

    def argv(self, prompt: str) -> list[str]:
        exe = str(BIN / self.agent)
        if self.agent == "codex":
            # no --dangerously-bypass-hook-trust: `cupcake init` had Codex trust cupcake's hooks; --trust trusts the
            # project (the user's decision, which project hooks need)
            return [exe, "exec", "--json", "--skip-git-repo-check", "--trust", "-s", "danger-full-access",
                    "-m", self.model, prompt]
        if self.agent == "gemini":
            return [exe, "-p", prompt, "-o", "json", "--yolo", "-m", self.model]
        return [exe, "-o", "json", "--yolo", prompt]

    def run(self, prompt: str, model: str | None = None) -> RunResult:
        assert (BIN / self.agent).exists(), f"{BIN / self.agent} is missing: run `make node-deps`"
        if model is not None:
            self.model = model
            self.write_agent_config()
        run = self.run_bounded(self.argv(prompt), self.agent_env(), RUN_TIMEOUT_S, self.agent)
        return RunResult(run.returncode, run.seconds, run.stdout, run.stderr, run.requests)


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, AgentE2E(sys.argv[1], Path(tmp)) as e2e:
        e2e.init(("e2e_pre.rego",), protected=("protected/",))
        e2e.warm_up()
        e2e.start_mock()
        r = e2e.run(sys.argv[2] if len(sys.argv) > 2 else "STEPS: CMD: echo hi")
        print(r.stdout[-3000:], r.stderr[-3000:], sep="\n")
        print(f"{r.seconds:.1f}s, {len(r.requests)} requests; files: {sorted(p.name for p in e2e.project.iterdir())}")
