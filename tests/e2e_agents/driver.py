"""Drives the REAL Codex CLI, Gemini CLI and Qwen Code (npm packages pinned in tests/e2e_agents/package.json)
headlessly with the REAL cupcake engine.

One `AgentE2E` owns a throwaway world for one agent:
- an isolated HOME (the agent's user config: the mock model provider, no login), XDG cache and config dirs;
- a project made by the real `cupcake init --harness <agent> --no-global` (`.cupcake/` and the agent's hooks,
  which run `cupcake` FROM PATH: the venv's bin dir is first on the agents' PATH), to which the test adds the
  scenario policies of `project/policies/` and rulebook entries (the shipped `protected_paths`, signals);
- the scripted mock model API (mock_models.py) on 127.0.0.1 (port 0).
HTTP(S) proxies point at a closed loopback port with only loopback exempt: nothing can leave the machine.
Every run is bounded (RUN_TIMEOUT_S) and every process started is stopped (process groups).

Manual run: `python tests/e2e_agents/driver.py codex "STEPS: CMD: echo hi ;; CMD: rm -r x"`.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
BIN = HERE / "node_modules" / ".bin"
VERSIONS = {"codex": "0.171.0", "gemini": "0.61.0", "qwen": "0.24.4"}
API = {"codex": "responses", "gemini": "gemini", "qwen": "chat"}
RUN_TIMEOUT_S = 240  # one agent run (Gemini/Qwen take 5-10 s alone, far more on a loaded 2-core machine)
SETUP_TIMEOUT_S = 180
DURATIONS: list[str] = []  # printed in pytest's terminal summary (conftest.py)
DEAD_PROXY = "http://127.0.0.1:9"
MOCK_END = "# end of the e2e mock provider\n"


def cupcake_bin() -> Path:
    exe = Path(sys.executable).parent / "cupcake"
    assert exe.is_file(), f"{exe} is missing: run `make venv` (pip install -e .)"
    return exe


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


def _stop_group(proc: subprocess.Popen[Any], grace: float = 5.0) -> None:
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


class AgentE2E:
    def __init__(self, agent: str, root: Path) -> None:
        self.agent = agent
        self.root = root
        self.home = root / "home"
        self.project = root / "project"
        for d in (self.home, self.project, root / "cache", root / "config"):
            d.mkdir(parents=True, exist_ok=True)
        self.log = root / "requests.jsonl"
        self.mock: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.model = "gpt-5.5" if agent == "codex" else "gemini-2.5-flash" if agent == "gemini" else "mock-model"

    # -- environment ----------------------------------------------------------------------------

    def env(self) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if k in ("LANG", "LC_ALL", "TMPDIR", "TERM")}
        # cupcake from the venv; the pinned agents too (`cupcake init --harness codex` asks `codex` to trust its hooks)
        path = f"{cupcake_bin().parent}:{BIN}:{os.environ.get('PATH', '/usr/bin:/bin')}"
        return {**keep, "PATH": path, "HOME": str(self.home), "XDG_CACHE_HOME": str(self.root / "cache"),
                "XDG_CONFIG_HOME": str(self.root / "config"), "GIT_CONFIG_NOSYSTEM": "1"}

    def agent_env(self) -> dict[str, str]:
        env = {**self.env(), "HTTP_PROXY": DEAD_PROXY, "HTTPS_PROXY": DEAD_PROXY, "http_proxy": DEAD_PROXY,
               "https_proxy": DEAD_PROXY, "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
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

    def cupcake_run(self, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([str(cupcake_bin()), *args], cwd=self.project, env=self.env(), input=stdin,
                              capture_output=True, timeout=SETUP_TIMEOUT_S)

    def init(self, policies: tuple[str, ...] = (), protected: tuple[str, ...] = (),
             signals: dict[str, dict[str, Any]] | None = None) -> None:
        if self.agent == "codex":  # the user trusts the project in Codex first (codex --trust would persist this)
            (self.home / ".codex").mkdir(exist_ok=True)
            (self.home / ".codex" / "config.toml").write_text(
                f'[projects.{json.dumps(str(self.project.resolve()))}]\ntrust_level = "trusted"\n')
        proc = self.cupcake_run("init", "--harness", self.agent, "--no-global")
        assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()
        if self.agent == "codex":  # init had Codex itself trust cupcake's hooks (no bypass flag in the runs)
            assert b"Codex now runs cupcake's" in proc.stdout, proc.stdout.decode()
        cupcake = self.project / ".cupcake"
        for name in policies:
            shutil.copy(HERE / "project" / "policies" / name, cupcake / "policies" / self.agent / name)
        rulebook = yaml.safe_load((cupcake / "rulebook.yml").read_text()) or {}
        builtins = rulebook.get("builtins") or {}
        if protected:
            builtins["protected_paths"] = {"paths": list(protected)}
        rulebook["builtins"] = builtins
        if signals:
            rulebook["signals"] = signals
        (cupcake / "rulebook.yml").write_text(yaml.safe_dump(rulebook))
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
        port_file = self.root / "port"
        self.mock = subprocess.Popen([sys.executable, str(HERE / "mock_models.py"), "--api", API[self.agent],
                                      "--log", str(self.log), "--port-file", str(port_file)], start_new_session=True)
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text().strip()):
            assert time.monotonic() < deadline, "the mock API did not start"
            assert self.mock.poll() is None, "the mock API exited"
            time.sleep(0.05)
        self.port = int(port_file.read_text())
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
        start = self.log.stat().st_size if self.log.exists() else 0
        t0 = time.monotonic()
        proc = subprocess.Popen(self.argv(prompt), cwd=self.project, env=self.agent_env(), stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=RUN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            _stop_group(proc)
            out, err = proc.communicate()
            raise AssertionError(f"{self.agent} did not finish in {RUN_TIMEOUT_S}s: {err.decode()[-2000:]}") from None
        finally:
            _stop_group(proc)
        seconds = time.monotonic() - t0
        requests = []
        if self.log.exists():
            with self.log.open("rb") as f:
                f.seek(start)
                requests = [json.loads(x) for x in f.read().decode().splitlines() if x.strip()]
        return RunResult(proc.returncode, seconds, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"),
                         requests)

    def close(self) -> None:
        if self.mock is not None:
            _stop_group(self.mock)
            self.mock = None

    def __enter__(self) -> AgentE2E:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, AgentE2E(sys.argv[1], Path(tmp)) as e2e:
        e2e.init(("e2e_pre.rego",), protected=("protected/",))
        e2e.warm_up()
        e2e.start_mock()
        r = e2e.run(sys.argv[2] if len(sys.argv) > 2 else "STEPS: CMD: echo hi")
        print(r.stdout[-3000:], r.stderr[-3000:], sep="\n")
        print(f"{r.seconds:.1f}s, {len(r.requests)} requests; files: {sorted(p.name for p in e2e.project.iterdir())}")
