"""Drives a REAL OpenCode (npm `opencode-ai`, pinned in plugin-ts) headlessly with the REAL cupcake engine.

One `OpenCodeE2E` owns a throwaway world:
- an isolated HOME/XDG tree (so cupcake's global config and bundle cache are fresh and empty);
- a project made by the real `cupcake init --harness opencode` (it copies the plugin bundle to
  `.opencode/plugin/cupcake.js` and writes `.cupcake/`), to which the test adds the scenario policies of
  `project/` (`Scenario`), rulebook entries (the shipped `protected_paths` builtin, telemetry, signals) and
  `.cupcake/opencode.json` (plugin timeout);
- the scripted mock LLM (mock_llm.py) on 127.0.0.1.
The world's directories, the mock, the request log and the bounded, group-killed runs are tests/e2e_support's
`World` (the world every real-agent e2e shares); OpenCode's own are its environment and project.

`cupcake` is the console script next to the running Python (`.venv/bin/cupcake` from `pip install -e .`), or
`CUPCAKE_E2E_BIN`; it is found on PATH by the plugin's default `cupcakePath`. Before OpenCode starts, one
`cupcake eval` compiles and caches the policy bundle (seconds), so tool calls only pay the cached path.
`run(prompt)` executes `opencode run --format json` in the project and returns the tool parts OpenCode
reported plus every request the mock LLM received. The engine's rulebook telemetry (one JSON line per
evaluation) is readable with `telemetry()`. Every process started is stopped (process groups, bounded
waits). No network is used beyond loopback.

Manual run: `python -m tests.e2e_opencode.driver "CMD: echo hi ;; CMD: rm -rf x"` prints the tool parts.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.e2e_support import world as shared
from tests.e2e_support.mock_http import text_of
from tests.e2e_support.world import World, stop_group

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
SCENARIO_DIR = HERE / "project"
BUNDLE = REPO / "cupcake_py" / "harness" / "opencode" / "plugin" / "cupcake.js"
OPENCODE = REPO / "plugin-ts" / "node_modules" / ".bin" / "opencode"
OPENCODE_VERSION = "1.18.33"

RUN_TIMEOUT_S = 420  # bound on one `opencode run`: a loaded 2-core machine made single runs take minutes
SETUP_TIMEOUT_S = shared.SETUP_TIMEOUT_S  # bound on each cupcake setup command (init, verify, the warm-up eval)
DURATIONS: list[
    str
] = []  # one line per world, printed in pytest's terminal summary (tests/plugin/conftest.py)
ENV_FLAGS = {
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_CLAUDE_CODE": "1",
}


def cupcake_bin() -> Path:
    """The real engine: CUPCAKE_E2E_BIN, else the `cupcake` console script of the running venv."""
    if override := os.environ.get("CUPCAKE_E2E_BIN"):
        return Path(override).resolve()
    return shared.cupcake_bin()


@dataclass(frozen=True)
class Scenario:
    """What the test adds to the `cupcake init` project."""

    policies: tuple[str, ...] = ("e2e_pre.rego", "e2e_post.rego")  # from project/policies/
    tests: tuple[str, ...] = ("e2e_test.rego",)  # from project/tests/
    protected_paths: tuple[str, ...] = ("protected/",)  # the shipped builtin, enabled in the rulebook
    signals: dict[str, dict[str, Any]] = field(default_factory=dict)  # rulebook `signals:`
    plugin_timeout_ms: int = 30_000  # generous: under load one `cupcake eval` took 3 s here
    plugin_mode: str = "spawn"  # .cupcake/opencode.json "mode": "spawn" (cupcake eval per call) or "serve"
    rulebook: dict[str, Any] = field(default_factory=dict)  # more rulebook entries (`builtins:` entries are merged)


@dataclass
class ToolPart:
    tool: str
    call_id: str
    status: str
    input: dict[str, Any]
    output: str | None
    error: str | None


@dataclass
class RunResult:
    returncode: int
    seconds: float
    tools: list[ToolPart]
    texts: list[str]
    stderr: str
    requests: list[dict[str, Any]] = field(default_factory=list)

    def tool_message(self, call_id: str) -> str:
        """What the model received as the result of this tool call (from the mock LLM's request log)."""
        for body in self.requests:
            for msg in body.get("messages") or []:
                if msg.get("role") == "tool" and msg.get("tool_call_id") == call_id:
                    content = msg.get("content")
                    return text_of(content) if isinstance(content, list) else str(content)
        raise AssertionError(f"the model never received a result for {call_id}")


_stop_group = stop_group  # the name the OpenCode tests import


def _mark_dependencies_installed(config_dir: Path) -> None:
    """OpenCode npm-installs @opencode-ai/plugin (~63 MB, 10-60 s) into every config dir at startup, before
    loading plugins, unless node_modules/ exists and package-lock.json lists every package.json dependency.
    The cupcake bundle imports nothing, so the e2e marks the install as done and stays off the network."""
    config_dir.mkdir(parents=True, exist_ok=True)
    (config_dir / "node_modules").mkdir(exist_ok=True)
    deps = {"@opencode-ai/plugin": OPENCODE_VERSION}
    (config_dir / "package.json").write_text(json.dumps({"dependencies": deps}))
    lock = {"lockfileVersion": 3, "packages": {"": {"dependencies": deps}}}
    (config_dir / "package-lock.json").write_text(json.dumps(lock))


class OpenCodeE2E:
    def __init__(self, root: Path, scenario: Scenario | None = None) -> None:
        assert OPENCODE.exists(), f"{OPENCODE} is missing: run `make node-deps`"
        self.world = World(root)  # root/home, root/project, the mock and its request log, bounded runs
        self.root = root
        self.scenario = scenario or Scenario()
        self.home = self.world.home
        self.tmp = root / "tmp"  # TMPDIR of everything the world runs: OpenCode's Bun leaves native libraries there
        self.project = self.world.project
        self.cupcake = cupcake_bin()
        self.setup_seconds: dict[str, float] = {}
        self.extra_env: dict[str, str] = {}  # added to every process the world starts (env())

    @property
    def port(self) -> int:
        return self.world.port

    # -- lifecycle -----------------------------------------------------------------------------------------
    def __enter__(self) -> OpenCodeE2E:
        try:
            self.world.start_model("tests.e2e_opencode.mock_llm")
            self._write_project()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.world.close()

    def cupcake_run(self, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
        """Run the real cupcake in the project with the world's environment (bounded, group-killed)."""
        done = self._bounded([str(self.cupcake), *args], stdin, SETUP_TIMEOUT_S, f"`cupcake {' '.join(args)}`")
        self.setup_seconds[args[0]] = self.setup_seconds.get(args[0], 0.0) + done.seconds
        return subprocess.CompletedProcess([str(self.cupcake), *args], done.returncode, done.stdout, done.stderr)

    def _bounded(self, cmd: list[str], stdin: str | None, timeout: float, what: str) -> shared.Run:
        """`cmd` in the project with the world's environment, in its own process group, which is killed
        afterwards (also whatever the command left running in it); a command that outlives `timeout` fails
        the test with the end of its stderr."""
        return self.world.run_bounded(cmd, self.env(), timeout, what, stdin=None if stdin is None else stdin.encode())

    def _write_project(self) -> None:
        for sub in (".config", ".local/share", ".cache", ".local/state"):
            (self.home / sub).mkdir(parents=True, exist_ok=True)
        self.tmp.mkdir(exist_ok=True)
        init = self.cupcake_run("init", "--harness", "opencode")
        assert init.returncode == 0, f"cupcake init failed:\n{init.stdout}\n{init.stderr}"
        for config_dir in (self.project / ".opencode", self.home / ".config" / "opencode"):
            _mark_dependencies_installed(config_dir)
        cupcake_dir = self.project / ".cupcake"
        sc = self.scenario
        for name in sc.policies:
            shutil.copyfile(SCENARIO_DIR / "policies" / name, cupcake_dir / "policies" / "opencode" / name)
        for name in sc.tests:
            shutil.copyfile(SCENARIO_DIR / "tests" / name, cupcake_dir / "tests" / "opencode" / name)
        rulebook_path = cupcake_dir / "rulebook.yml"
        rulebook = yaml.safe_load(rulebook_path.read_text())
        if sc.protected_paths:
            rulebook["builtins"]["protected_paths"] = {"paths": list(sc.protected_paths)}
        rulebook["signals"] = dict(sc.signals)
        for key, value in sc.rulebook.items():
            if key == "builtins":
                rulebook["builtins"] = {**(rulebook.get("builtins") or {}), **value}
            else:
                rulebook[key] = value
        rulebook["telemetry"] = {"enabled": True, "destination": ".cupcake/telemetry"}
        rulebook_path.write_text(yaml.safe_dump(rulebook, sort_keys=False))
        plugin_config = {"timeoutMs": sc.plugin_timeout_ms, "logLevel": "info", "mode": sc.plugin_mode}
        (cupcake_dir / "opencode.json").write_text(json.dumps(plugin_config, indent=2))
        config = {
            "$schema": "https://opencode.ai/config.json",
            "model": "mock/mock-model",
            "small_model": "mock/mock-model",
            "autoupdate": False,
            "share": "disabled",
            "enabled_providers": ["mock"],
            "provider": {
                "mock": {
                    "npm": "@ai-sdk/openai-compatible",
                    "name": "Mock LLM",
                    "options": {"baseURL": f"http://127.0.0.1:{self.port}/v1", "apiKey": "dummy"},
                    "models": {
                        "mock-model": {
                            "name": "Mock Model",
                            "tool_call": True,
                            "limit": {"context": 128000, "output": 4096},
                        }
                    },
                }
            },
            "permission": {"bash": "allow", "edit": "allow", "read": "allow", "task": "allow"},
        }
        (self.project / "opencode.json").write_text(json.dumps(config, indent=2))

    def warm_up(self) -> dict[str, Any]:
        """One real `cupcake eval` (an allowed read): compiles and caches the bundle before OpenCode starts."""
        event = {
            "hook_event_name": "PreToolUse",
            "session_id": "ses_e2e_warmup",
            "cwd": str(self.project),
            "tool": "read",
            "args": {"filePath": str(self.project / "opencode.json")},
        }
        deadline = time.monotonic() + SETUP_TIMEOUT_S
        while True:
            res = self.cupcake_run("eval", "--harness", "opencode", stdin=json.dumps(event))
            # A loaded machine can outlast the evaluation deadline (while the bundle compiles, the build goes on
            # in the background and the engine says to retry).
            transient = "are being compiled" in res.stdout or "evaluation deadline" in res.stdout
            if res.returncode == 0 or not transient or time.monotonic() > deadline:
                break
            time.sleep(1.0)
        assert res.returncode == 0, f"warm-up eval failed ({res.returncode}):\n{res.stdout}\n{res.stderr}"
        return json.loads(res.stdout)

    def env(self) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if k in ("LANG", "LC_ALL", "TERM")}
        home = str(self.home)
        return {
            **keep,
            "TMPDIR": str(self.tmp),
            "PATH": f"{self.cupcake.parent}{os.pathsep}{os.environ.get('PATH', '/usr/bin:/bin')}",
            "HOME": home,
            "XDG_CONFIG_HOME": f"{home}/.config",
            "XDG_DATA_HOME": f"{home}/.local/share",
            "XDG_CACHE_HOME": f"{home}/.cache",
            "XDG_STATE_HOME": f"{home}/.local/state",
            **ENV_FLAGS,
            **self.extra_env,
        }

    # -- running -------------------------------------------------------------------------------------------
    def run(self, prompt: str) -> RunResult:
        done = self._bounded([str(OPENCODE), "run", "--print-logs", "--format", "json", prompt], None,
                             RUN_TIMEOUT_S, "opencode run")
        tools: list[ToolPart] = []
        texts: list[str] = []
        for line in done.stdout.splitlines():
            if not line.startswith("{"):
                continue
            item = json.loads(line)
            part = item.get("part") or {}
            if item.get("type") == "tool_use":
                state = part.get("state") or {}
                tools.append(ToolPart(tool=part.get("tool", ""), call_id=part.get("callID", ""),
                                      status=state.get("status", ""), input=state.get("input") or {},
                                      output=state.get("output"), error=state.get("error")))
            elif item.get("type") == "text":
                texts.append(part.get("text", ""))
        return RunResult(done.returncode, done.seconds, tools, texts, done.stderr,
                         [r["body"] for r in done.requests])

    def telemetry(self) -> list[dict[str, Any]]:
        """The engine's telemetry: one record per `cupcake eval` (session_id, hook_event_name, tool,
        routed_policies, response, timings_ms)."""
        log = self.project / ".cupcake" / "telemetry" / "events.jsonl"
        if not log.exists():
            return []
        return [json.loads(line) for line in log.read_text().splitlines() if line.strip()]


def main(argv: list[str]) -> int:
    prompt = argv[0] if argv else "CMD: echo hello"
    with tempfile.TemporaryDirectory(prefix="cupcake-e2e-") as tmp, OpenCodeE2E(Path(tmp)) as e2e:
        e2e.warm_up()
        result = e2e.run(prompt)
        for t in result.tools:
            print(json.dumps(t.__dict__, indent=2))
        print(f"exit {result.returncode} in {result.seconds:.1f} s; texts: {result.texts}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

