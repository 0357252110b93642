"""Drives a REAL OpenCode (npm `opencode-ai`, pinned in plugin-ts) headlessly with the cupcake plugin installed.

One `OpenCodeE2E` owns a throwaway world: an isolated HOME/XDG tree, a project directory with the committed
plugin bundle at `.opencode/plugin/cupcake.js` and its `.cupcake/opencode.json`, and the scripted mock LLM
(mock_llm.py) on 127.0.0.1. `run(prompt)` executes `opencode run --format json` in the project and returns
the tool parts OpenCode reported plus every request the mock LLM received. Every process it starts is
stopped (process groups, bounded waits). No network is used beyond loopback.

The cupcake executable is `CUPCAKE_E2E_BIN` when set, else fake_cupcake.py (the engine's stand-in).
With the real engine, `CUPCAKE_E2E_POLICY_DIR` (copied to the project's `.cupcake/`) must provide policies
implementing the rules listed in fake_cupcake.py.

Manual run: `python tests/e2e_opencode/driver.py "CMD: echo hi ;; CMD: rm -rf x"` prints the tool parts.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
BUNDLE = REPO / "cupcake_py" / "harness" / "opencode" / "plugin" / "cupcake.js"
OPENCODE = REPO / "plugin-ts" / "node_modules" / ".bin" / "opencode"
FAKE_CUPCAKE = HERE / "fake_cupcake.py"
OPENCODE_VERSION = "1.18.33"

RUN_TIMEOUT_S = 300  # generous: a loaded 2-core machine made single runs take over a minute
ENV_FLAGS = {
    "OPENCODE_DISABLE_MODELS_FETCH": "1",
    "OPENCODE_DISABLE_AUTOUPDATE": "1",
    "OPENCODE_DISABLE_SHARE": "1",
    "OPENCODE_DISABLE_LSP_DOWNLOAD": "1",
    "OPENCODE_DISABLE_CLAUDE_CODE": "1",
}


def cupcake_bin() -> Path:
    """The one switch between the fake and the real engine."""
    return Path(os.environ.get("CUPCAKE_E2E_BIN") or FAKE_CUPCAKE).resolve()


def uses_fake() -> bool:
    return cupcake_bin() == FAKE_CUPCAKE


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
                    if isinstance(content, list):
                        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
                    return str(content)
        raise AssertionError(f"the model never received a result for {call_id}")


def _stop_group(proc: subprocess.Popen[Any], grace: float = 5.0) -> None:
    if proc.poll() is not None:
        return
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
    def __init__(self, root: Path, *, timeout_ms: int = 2000) -> None:
        assert OPENCODE.exists(), f"{OPENCODE} is missing: run `make node-deps`"
        self.root = root
        self.home = root / "home"
        self.project = root / "project"
        self.fake_log = root / "fake-cupcake.jsonl"
        self.request_log = root / "llm-requests.jsonl"
        self._mock: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.timeout_ms = timeout_ms

    # -- lifecycle -----------------------------------------------------------------------------------------
    def __enter__(self) -> OpenCodeE2E:
        try:
            self._start_mock()
            self._write_project()
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        if self._mock is not None:
            _stop_group(self._mock)
            self._mock = None

    def _start_mock(self) -> None:
        port_file = self.root / "mock-port"
        self._mock = subprocess.Popen(
            [
                sys.executable,
                str(HERE / "mock_llm.py"),
                "--log",
                str(self.request_log),
                "--port-file",
                str(port_file),
            ],
            stdin=subprocess.DEVNULL,
            start_new_session=True,
        )
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline:
            if self._mock.poll() is not None:
                raise RuntimeError(f"mock LLM exited with status {self._mock.returncode}")
            if port_file.exists() and port_file.read_text().strip():
                self.port = int(port_file.read_text())
                try:
                    with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/v1/models", timeout=2) as resp:
                        if resp.status == 200:
                            return
                except OSError:
                    pass
            time.sleep(0.05)
        raise RuntimeError("mock LLM did not become ready within 15 s")

    def _write_project(self) -> None:
        for sub in (".config", ".local/share", ".cache", ".local/state"):
            (self.home / sub).mkdir(parents=True, exist_ok=True)
        oc = self.project / ".opencode"
        (oc / "plugin").mkdir(parents=True)
        shutil.copyfile(BUNDLE, oc / "plugin" / "cupcake.js")
        for config_dir in (oc, self.home / ".config" / "opencode"):
            _mark_dependencies_installed(config_dir)
        cupcake_dir = self.project / ".cupcake"
        policy_src = os.environ.get("CUPCAKE_E2E_POLICY_DIR")
        if policy_src:
            shutil.copytree(policy_src, cupcake_dir)
        cupcake_dir.mkdir(exist_ok=True)
        plugin_config = {"cupcakePath": str(cupcake_bin()), "timeoutMs": self.timeout_ms, "logLevel": "info"}
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

    def env(self) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR", "TERM")}
        home = str(self.home)
        return {
            **keep,
            "HOME": home,
            "XDG_CONFIG_HOME": f"{home}/.config",
            "XDG_DATA_HOME": f"{home}/.local/share",
            "XDG_CACHE_HOME": f"{home}/.cache",
            "XDG_STATE_HOME": f"{home}/.local/state",
            "FAKE_CUPCAKE_LOG": str(self.fake_log),
            **ENV_FLAGS,
        }

    # -- running -------------------------------------------------------------------------------------------
    def run(self, prompt: str) -> RunResult:
        seen = self._request_count()
        t0 = time.monotonic()
        proc = subprocess.Popen(
            [str(OPENCODE), "run", "--print-logs", "--format", "json", prompt],
            cwd=self.project,
            env=self.env(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        try:
            stdout, stderr = proc.communicate(timeout=RUN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            _stop_group(proc, grace=2)
            stdout, stderr = proc.communicate()
            raise AssertionError(
                f"opencode run did not finish in {RUN_TIMEOUT_S} s\n{stderr[-4000:]}"
            ) from None
        finally:
            _stop_group(proc, grace=2)  # anything the run left in its process group
        seconds = time.monotonic() - t0
        tools: list[ToolPart] = []
        texts: list[str] = []
        for line in stdout.splitlines():
            if not line.startswith("{"):
                continue
            item = json.loads(line)
            part = item.get("part") or {}
            if item.get("type") == "tool_use":
                state = part.get("state") or {}
                tools.append(
                    ToolPart(
                        tool=part.get("tool", ""),
                        call_id=part.get("callID", ""),
                        status=state.get("status", ""),
                        input=state.get("input") or {},
                        output=state.get("output"),
                        error=state.get("error"),
                    )
                )
            elif item.get("type") == "text":
                texts.append(part.get("text", ""))
        return RunResult(proc.returncode, seconds, tools, texts, stderr, self._requests()[seen:])

    def _requests(self) -> list[dict[str, Any]]:
        if not self.request_log.exists():
            return []
        return [json.loads(line) for line in self.request_log.read_text().splitlines() if line.strip()]

    def _request_count(self) -> int:
        return len(self._requests())

    def cupcake_events(self) -> list[dict[str, Any]]:
        """Events the fake cupcake received (empty with the real engine)."""
        if not self.fake_log.exists():
            return []
        return [json.loads(line) for line in self.fake_log.read_text().splitlines() if line.strip()]


def main(argv: list[str]) -> int:
    prompt = argv[0] if argv else "CMD: echo hello"
    with tempfile.TemporaryDirectory(prefix="cupcake-e2e-") as tmp, OpenCodeE2E(Path(tmp)) as e2e:
        result = e2e.run(prompt)
        for t in result.tools:
            print(json.dumps(t.__dict__, indent=2))
        print(f"exit {result.returncode} in {result.seconds:.1f} s; texts: {result.texts}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
