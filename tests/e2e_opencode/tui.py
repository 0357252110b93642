"""Drives the REAL OpenCode terminal UI (the default `opencode` command) in a pseudo-terminal.

`OpenCodeTUI(e2e, prompt)` starts `opencode --port <p> --prompt <prompt>` in the project of an `OpenCodeE2E`
world, attached to a pty of 140×40 cells, so the TUI draws exactly what a user would see and submits the
prompt itself. The test reads what was drawn (`text()`: every byte written so far with the terminal
control sequences blanked out, so words the TUI drew stay searchable) and types keys (`press`). The TUI's
own HTTP server listens on the given loopback port, so `api()` can look at the same OpenCode instance
(pending permission requests, sessions). Everything started is stopped (process group, bounded waits).
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import re
import select
import socket
import struct
import subprocess
import termios
import threading
import time
import urllib.error
import urllib.request
from typing import Any

from tests.e2e_opencode.driver import OPENCODE, OpenCodeE2E, _stop_group

ROWS, COLUMNS = 40, 140
_CONTROL = re.compile(
    r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]"  # CSI (cursor moves, colours, modes)
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)"  # OSC (title, clipboard)
    r"|\x1b[P^_][^\x1b]*\x1b\\"  # DCS / PM / APC
    r"|\x1b[()][A-Za-z0-9]|\x1b[=>78cDEHMNOZ]"
)
_CURSOR_QUERY = b"\x1b[6n"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def http(method: str, url: str, body: Any = None, timeout: float = 60, password: str | None = None) -> tuple[int, Any]:
    """One JSON request (with OpenCode's basic auth when a server password is given); an HTTP error status is
    returned with its body text, not raised."""
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"}
    if password is not None:
        headers["Authorization"] = "Basic " + base64.b64encode(f"opencode:{password}".encode()).decode()
    req = urllib.request.Request(url, method=method, data=data, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")


class OpenCodeTUI:
    def __init__(self, e2e: OpenCodeE2E, prompt: str, extra_env: dict[str, str] | None = None) -> None:
        self.e2e = e2e
        self.prompt = prompt
        self.extra_env = extra_env or {}
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self._out = bytearray()
        self._fd = -1
        self._proc: subprocess.Popen[bytes] | None = None
        self._listening = False
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._reader: threading.Thread | None = None

    def __enter__(self) -> OpenCodeTUI:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        env = {**self.e2e.env(), "TERM": "xterm-256color", "COLORTERM": "truecolor", **self.extra_env}
        try:
            self._proc = subprocess.Popen(
                [str(OPENCODE), "--port", str(self.port), "--prompt", self.prompt],
                cwd=self.e2e.project, env=env, stdin=slave, stdout=slave, stderr=slave, start_new_session=True,
            )
        finally:
            os.close(slave)
        self._fd = master
        self._reader = threading.Thread(target=self._drain, name="tui-pty-reader", daemon=True)
        self._reader.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if self._proc is not None:
            _stop_group(self._proc)
            self._proc = None
        self._closing.set()
        if self._reader is not None:
            self._reader.join(timeout=5)
            self._reader = None
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1

    # -- the screen ---------------------------------------------------------------------------------------
    def _drain(self) -> None:
        """The terminal's side of the pty, in its own thread for the TUI's whole life: read everything drawn
        (answering the cursor-position query like a terminal) so the TUI never blocks writing to a full pty
        while the test waits on its HTTP server; a test that only read between requests once deadlocked it."""
        fd = self._fd
        while not self._closing.is_set():
            ready, _, _ = select.select([fd], [], [], 0.1)
            if not ready:
                continue
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the TUI closed the terminal: it exited
                return
            if not chunk:
                return
            with self._lock:
                self._out += chunk
            if _CURSOR_QUERY in chunk:
                os.write(fd, b"\x1b[1;1R")

    def pump(self, seconds: float) -> None:
        """Let the TUI draw for `seconds` (the reader thread keeps reading meanwhile)."""
        time.sleep(seconds)

    def text(self) -> str:
        """Everything drawn so far, control sequences blanked and runs of blanks squeezed."""
        with self._lock:
            drawn = bytes(self._out)
        plain = _CONTROL.sub(" ", drawn.decode("utf-8", "replace"))
        return re.sub(r"[ \t]+", " ", plain)

    def wait_for(self, needle: str, timeout: float) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if needle in self.text():
                return True
            self.pump(0.5)
        return needle in self.text()

    def press(self, keys: bytes) -> None:
        os.write(self._fd, keys)

    # -- the TUI's own server ------------------------------------------------------------------------------
    def api(self, method: str, path: str, body: Any = None) -> tuple[int, Any]:
        """One request to the TUI's server (the first waits, drawing, until the server listens)."""
        password = {**self.e2e.env(), **self.extra_env}.get("OPENCODE_SERVER_PASSWORD")
        deadline = time.monotonic() + 180
        while not self._listening:
            try:
                self._listening = http("GET", f"{self.base}/global/health", timeout=5, password=password)[0] == 200
            except OSError:
                assert time.monotonic() < deadline, f"the TUI's server never listened\n{self.text()[-3000:]}"
                self.pump(0.3)
        sep = "&" if "?" in path else "?"
        # generous: under a load average of 20 the TUI server once took over 60 s to answer
        try:
            return http(method, f"{self.base}{path}{sep}directory={self.e2e.project}", body, timeout=180,
                        password=password)
        except TimeoutError as e:
            raise TimeoutError(f"{method} {path}: OpenCode did not answer in 180 s\n{self.logs()}") from e

    def logs(self, tail: int = 12000) -> str:
        """The end of OpenCode's own log files (its HOME is the world's), for a failure's message."""
        files = sorted((self.e2e.home / ".local" / "share" / "opencode" / "log").glob("*.log"))
        return "\n".join(f"== {f.name}\n{f.read_text(errors='replace')[-tail:]}" for f in files[-2:])
