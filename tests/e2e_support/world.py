"""What every real-agent e2e driver shares (tests/e2e_claude, tests/e2e_agents, tests/e2e_chat, tests/e2e_opencode): a throwaway
world per agent, the loopback fence, the scripted mock model, bounded runs.

`World(root)` owns `root/home` (an isolated HOME), `root/project`, `root/cache` and `root/config` (XDG dirs),
`root/requests.jsonl` (the mock's request log). `env()`: only LANG/LC_ALL/TMPDIR/TERM of the caller, this
checkout's `cupcake` first on PATH (a project's hooks run `cupcake` FROM PATH, as a user's install would),
no system git config. `FENCE`: HTTP(S) proxies at a closed loopback port with only loopback exempt, so a
stray request cannot leave the machine. `init_project`: the real `cupcake init --harness X`, then scenario
policies and rulebook entries (`protected_paths`, signals). `start_model`: a mock model (tests/<suite>/<mock>.py
on tests/e2e_support/mock_http.py) on 127.0.0.1, port 0. `run_bounded`: one agent run, ended (its whole
process group) after `timeout` seconds with an AssertionError, returning its output and the requests the
model received meanwhile. `close`: stops the mock. `summary`: the durations pytest prints (conftest.py).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, Self

import pytest
import yaml

REPO = Path(__file__).resolve().parents[2]
DEAD_PROXY = "http://127.0.0.1:9"  # discard port: nothing listens, so a stray non-loopback request fails at once
FENCE = {"HTTP_PROXY": DEAD_PROXY, "HTTPS_PROXY": DEAD_PROXY, "http_proxy": DEAD_PROXY, "https_proxy": DEAD_PROXY,
         "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}
SETUP_TIMEOUT_S = 180  # bound on each cupcake setup command (init, warm-up eval)


def cupcake_bin() -> Path:
    exe = Path(sys.executable).parent / "cupcake"
    assert exe.is_file(), f"{exe} is missing: run `make venv` (pip install -e .)"
    return exe


def stop_group(proc: subprocess.Popen[Any], grace: float = 5.0) -> None:
    """SIGTERM, then SIGKILL, the process group `proc` leads (started with start_new_session): the SIGKILL also
    reaches what the leader left running in its group (OpenCode's Bun children, a hook's signal)."""
    for sig in (signal.SIGTERM, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return  # the group is empty
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            pass


class Run:
    """What one bounded agent run gave: exit status, seconds, stdout, stderr, the model's requests."""

    def __init__(self, returncode: int, seconds: float, stdout: str, stderr: str,
                 requests: list[dict[str, Any]]) -> None:
        self.returncode, self.seconds, self.stdout, self.stderr, self.requests = (returncode, seconds, stdout, stderr,
                                                                                  requests)


class World:
    def __init__(self, root: Path, path_extra: str = "") -> None:
        self.root = root
        self.home = root / "home"
        self.project = root / "project"
        for d in (self.home, self.project, root / "cache", root / "config"):
            d.mkdir(parents=True, exist_ok=True)
        self.log = root / "requests.jsonl"
        self.mock: subprocess.Popen[bytes] | None = None
        self.port = 0
        self.path_extra = path_extra  # more PATH entries after cupcake's (e.g. the pinned agents' bin dir)

    def env(self) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if k in ("LANG", "LC_ALL", "TMPDIR", "TERM")}
        extra = f"{self.path_extra}:" if self.path_extra else ""
        path = f"{cupcake_bin().parent}:{extra}{os.environ.get('PATH', '/usr/bin:/bin')}"
        return {**keep, "PATH": path, "HOME": str(self.home), "XDG_CACHE_HOME": str(self.root / "cache"),
                "XDG_CONFIG_HOME": str(self.root / "config"), "GIT_CONFIG_NOSYSTEM": "1"}

    def cupcake_run(self, *args: str, stdin: bytes | None = None,
                    env: dict[str, str] | None = None) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([str(cupcake_bin()), *args], cwd=self.project, env=env or self.env(), input=stdin,
                              capture_output=True, timeout=SETUP_TIMEOUT_S)

    def init_project(self, harness: str, policies: dict[str, str], protected: tuple[str, ...] = (),
                     signals: dict[str, dict[str, Any]] | None = None,
                     *init_args: str) -> subprocess.CompletedProcess[bytes]:
        """`cupcake init --harness <harness>`, then `policies` (file name -> text) in its policy dir, the
        shipped `protected_paths` builtin on `protected` and `signals` in the rulebook."""
        proc = self.cupcake_run("init", "--harness", harness, *init_args)
        assert proc.returncode == 0, proc.stdout.decode() + proc.stderr.decode()
        cupcake = self.project / ".cupcake"
        for name, text in policies.items():
            (cupcake / "policies" / harness / name).write_text(text)
        rulebook = yaml.safe_load((cupcake / "rulebook.yml").read_text()) or {}
        builtins = rulebook.get("builtins") or {}
        if protected:
            builtins["protected_paths"] = {"paths": list(protected)}
        rulebook["builtins"] = builtins
        if signals:
            rulebook["signals"] = signals
        (cupcake / "rulebook.yml").write_text(yaml.safe_dump(rulebook))
        return proc

    def start_model(self, module: str, *args: str) -> None:
        """`python -m <module> --log ... --port-file ...` (a mock of tests/<suite>/) on 127.0.0.1, port 0."""
        port_file = self.root / "port"
        self.mock = subprocess.Popen([sys.executable, "-m", module, *args, "--log", str(self.log),
                                      "--port-file", str(port_file)], cwd=REPO, start_new_session=True)
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text().strip()):
            assert time.monotonic() < deadline, "the mock API did not start"
            assert self.mock.poll() is None, "the mock API exited"
            time.sleep(0.05)
        self.port = int(port_file.read_text())

    def run_bounded(self, argv: list[str], env: dict[str, str], timeout: float, label: str,
                    after: Callable[[], object] | None = None, stdin: bytes | None = None) -> Run:
        """One agent run (see the module docstring); `after` runs once it has ended, however it ended; `stdin`:
        its input (None: /dev/null)."""
        start = self.log.stat().st_size if self.log.exists() else 0
        t0 = time.monotonic()
        proc = subprocess.Popen(argv, cwd=self.project, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                stdin=subprocess.DEVNULL if stdin is None else subprocess.PIPE, start_new_session=True)
        try:
            out, err = proc.communicate(stdin, timeout=timeout)
        except subprocess.TimeoutExpired:
            stop_group(proc)
            out, err = proc.communicate()
            raise AssertionError(f"{label} did not finish in {timeout:g}s: {err.decode()[-2000:]}") from None
        finally:
            stop_group(proc)
            if after is not None:
                after()
        seconds = time.monotonic() - t0
        requests = []
        if self.log.exists():
            with self.log.open("rb") as f:
                f.seek(start)
                requests = [json.loads(x) for x in f.read().decode().splitlines() if x.strip()]
        return Run(proc.returncode, seconds, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), requests)

    def close(self) -> None:
        if self.mock is not None:
            stop_group(self.mock)
            self.mock = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def summary(terminalreporter: pytest.TerminalReporter, title: str, durations: list[str]) -> None:
    """The durations of a suite's runs in pytest's terminal summary (its prints are captured)."""
    if durations:
        terminalreporter.write_sep("-", title)
        for line in durations:
            terminalreporter.write_line(line)
