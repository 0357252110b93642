"""Drives the REAL Claude Code CLI (npm `@anthropic-ai/claude-code`, pinned in tests/e2e_claude/package.json;
its native binary comes from the platform package `@anthropic-ai/claude-code-linux-x64`) headlessly with the
REAL cupcake engine.

One `ClaudeE2E` owns a throwaway world:
- an isolated HOME (fresh `~/.claude`), XDG cache and config dirs (cupcake's bundle cache, no global config);
- a project made by the real `cupcake init --harness claude` (`.cupcake/` and the hooks merged into
  `.claude/settings.json`), to which the test adds the scenario policies of `project/policies/` and rulebook
  entries (the shipped `protected_paths` builtin, signals);
- the scripted mock Messages API (mock_api.py) on 127.0.0.1.
Claude Code gets `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1` (the reference saw no other traffic with it) and,
as a second fence, HTTP(S) proxies pointing at a closed loopback port with only loopback exempt: nothing it
does can leave the machine. Every run is bounded (RUN_TIMEOUT_S: an unreachable base URL means minutes of
retries) and every process started is stopped (process groups).

Manual run: `python tests/e2e_claude/driver.py "STEPS: CMD: echo hi ;; CMD: rm -rf x"` prints the result line.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
CLAUDE = HERE / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"
CLAUDE_VERSION = "2.1.197"
RUN_TIMEOUT_S = 180  # bound on one `claude -p` (a loaded 2-core machine; a normal run takes seconds)
SETUP_TIMEOUT_S = 180  # bound on each cupcake setup command (init, verify, warm-up eval)
DURATIONS: list[str] = []  # printed in pytest's terminal summary (conftest.py)
DEAD_PROXY = "http://127.0.0.1:9"  # discard port: nothing listens, so a stray non-loopback request fails at once


def cupcake_bin() -> Path:
    exe = Path(sys.executable).parent / "cupcake"
    assert exe.is_file(), f"{exe} is missing: run `make venv` (pip install -e .)"
    return exe


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


class ClaudeE2E:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.home = root / "home"
        self.project = root / "project"
        for d in (self.home, self.project, root / "cache", root / "config"):
            d.mkdir(parents=True, exist_ok=True)
        self.log = root / "requests.jsonl"
        self.mock: subprocess.Popen[bytes] | None = None
        self.port = 0

    # -- environment ----------------------------------------------------------------

    def env(self) -> dict[str, str]:
        keep = {k: v for k, v in os.environ.items() if k in ("PATH", "LANG", "LC_ALL", "TMPDIR", "TERM")}
        # a project's hooks run `cupcake` from PATH (as a team's would): this checkout's comes first
        keep["PATH"] = f"{cupcake_bin().parent}{os.pathsep}{keep.get('PATH', '')}"
        return {**keep, "HOME": str(self.home), "XDG_CACHE_HOME": str(self.root / "cache"),
                "XDG_CONFIG_HOME": str(self.root / "config"), "GIT_CONFIG_NOSYSTEM": "1"}

    def claude_env(self) -> dict[str, str]:
        return {**self.env(), "ANTHROPIC_BASE_URL": f"http://127.0.0.1:{self.port}", "ANTHROPIC_API_KEY": "dummy",
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
                "HTTP_PROXY": DEAD_PROXY, "HTTPS_PROXY": DEAD_PROXY, "http_proxy": DEAD_PROXY,
                "https_proxy": DEAD_PROXY, "NO_PROXY": "127.0.0.1,localhost", "no_proxy": "127.0.0.1,localhost"}

    # -- setup ---------------------------------------------------------------------

    def cupcake_run(self, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([str(cupcake_bin()), *args], cwd=self.project, env=self.env(), input=stdin,
                              capture_output=True, timeout=SETUP_TIMEOUT_S)

    def init(self, policies: tuple[str, ...], protected: tuple[str, ...] = (),
             signals: dict[str, dict[str, Any]] | None = None) -> None:
        proc = self.cupcake_run("init", "--harness", "claude")
        assert proc.returncode == 0, proc.stderr.decode()
        cupcake = self.project / ".cupcake"
        for name in policies:
            shutil.copy(HERE / "project" / "policies" / name, cupcake / "policies" / "claude" / name)
        rulebook = yaml.safe_load((cupcake / "rulebook.yml").read_text()) or {}
        builtins = rulebook.get("builtins") or {}
        if protected:
            builtins["protected_paths"] = {"paths": list(protected)}
        rulebook["builtins"] = builtins
        if signals:
            rulebook["signals"] = signals
        (cupcake / "rulebook.yml").write_text(yaml.safe_dump(rulebook))

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
        port_file = self.root / "port"
        self.mock = subprocess.Popen([sys.executable, str(HERE / "mock_api.py"), "--log", str(self.log),
                                      "--port-file", str(port_file)], start_new_session=True)
        deadline = time.monotonic() + 30
        while not (port_file.exists() and port_file.read_text().strip()):
            assert time.monotonic() < deadline, "the mock API did not start"
            assert self.mock.poll() is None, "the mock API exited"
            time.sleep(0.05)
        self.port = int(port_file.read_text())

    # -- runs ----------------------------------------------------------------------

    def run(self, prompt: str, *extra: str) -> RunResult:
        assert CLAUDE.is_file() and CLAUDE.stat().st_size > 1_000_000, \
            f"{CLAUDE} is missing or the stub: run `make node-deps` (npm install in tests/e2e_claude)"
        start = self.log.stat().st_size if self.log.exists() else 0
        t0 = time.monotonic()
        proc = subprocess.Popen(
            [str(CLAUDE), "-p", prompt, "--output-format", "stream-json", "--verbose", "--permission-mode",
             "acceptEdits", "--allowedTools", "Bash,Edit,Write,Read", *extra],
            cwd=self.project, env=self.claude_env(), stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=RUN_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            _stop_group(proc)
            out, err = proc.communicate()
            raise AssertionError(f"claude -p did not finish in {RUN_TIMEOUT_S}s: {err.decode()[-2000:]}") from None
        finally:
            _stop_group(proc)
        seconds = time.monotonic() - t0
        lines = []
        for raw in out.decode("utf-8", "replace").splitlines():
            try:
                lines.append(json.loads(raw))
            except ValueError:
                continue
        requests = []
        if self.log.exists():
            with self.log.open("rb") as f:
                f.seek(start)
                requests = [json.loads(x) for x in f.read().decode().splitlines() if x.strip()]
        return RunResult(proc.returncode, seconds, lines, err.decode("utf-8", "replace"), requests)

    def close(self) -> None:
        if self.mock is not None:
            _stop_group(self.mock)
            self.mock = None

    def __enter__(self) -> ClaudeE2E:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, ClaudeE2E(Path(tmp)) as e2e:
        e2e.init(("e2e_pre.rego", "e2e_context.rego", "e2e_post.rego", "e2e_stop.rego"), protected=("protected/",))
        print(e2e.warm_up())
        e2e.start_mock()
        r = e2e.run(sys.argv[1] if len(sys.argv) > 1 else "STEPS: CMD: echo hi")
        print(json.dumps(r.result, indent=2))
        print(f"{r.seconds:.1f}s, {len(r.requests)} requests")
