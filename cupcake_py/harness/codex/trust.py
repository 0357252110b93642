"""Codex's hook-trust step, done through Codex itself: Codex (0.171.0) runs a hook only when its settings
hold `hooks.state."<hook key>".trusted_hash` equal to the hook's current hash, and skips an untrusted hook
silently. cupcake does not compute that hash: it asks the installed `codex` over its app-server protocol
(JSON-RPC on stdio: `initialize`, `hooks/list` for the project or home directory, then `config/batchWrite`
of `hooks.state` for cupcake's own hooks only; the user's other hooks keep their trust state), which is
what Codex's own /hooks review writes.

In: the directory whose hooks to trust (the project, or HOME for the user's hooks). Out: the config file
Codex wrote and the number of hooks trusted. Fails (TrustError, with the reason) when `codex` is not on
PATH, the app-server does not answer within TIMEOUT_S, or it reports an error; `cupcake init` then prints
the manual step instead. Project trust itself (`projects."<path>".trust_level`) is the user's decision and
is not touched, and Codex lists (and runs) a project's hooks only in a trusted project: for a project
install, trust the project in Codex first, then (re-)run `cupcake init --harness codex`. User-level hooks
(`--global`, `cupcake protect`) need no project trust.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from cupcake_py.core.errors import CupcakeError

TIMEOUT_S = 30
MARK = "eval --harness codex"


class TrustError(CupcakeError):
    pass


class _AppServer:
    def __init__(self, codex: str) -> None:
        self.proc = subprocess.Popen([codex, "app-server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        self.timer = threading.Timer(TIMEOUT_S, self.proc.kill)
        self.timer.start()
        self.next_id = 0

    def call(self, method: str, params: dict[str, Any]) -> Any:
        self.next_id += 1
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params}) + "\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise TrustError(f"codex app-server ended without answering {method}")
            try:
                msg = json.loads(line)
            except ValueError:
                continue
            if msg.get("id") != self.next_id:
                continue  # notifications
            if "error" in msg:
                raise TrustError(f"codex app-server: {method}: {msg['error']}")
            return msg.get("result")

    def notify(self, method: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": method}) + "\n")
        self.proc.stdin.flush()

    def close(self) -> None:
        self.timer.cancel()
        self.proc.kill()
        self.proc.wait()


@contextmanager
def _listed(directory: Path) -> Iterator[tuple[_AppServer, list[dict[str, Any]]]]:
    """A session with the installed `codex` app-server and the hooks it lists for `directory`; TrustError for
    any failure in the session (the caller's included), the server stopped in every case."""
    codex = shutil.which("codex")
    if codex is None:
        raise TrustError("`codex` is not on PATH")
    server = _AppServer(codex)
    try:
        server.call("initialize", {"clientInfo": {"name": "cupcake", "version": "1"}})
        server.notify("initialized")
        listing = server.call("hooks/list", {"cwds": [str(directory)]})
        yield server, [h for d in (listing or {}).get("data", []) for h in d.get("hooks", [])]
    except (OSError, KeyError, TypeError) as e:
        raise TrustError(f"codex app-server: {e}") from None
    finally:
        server.close()


def untrusted_cupcake_hooks(directory: Path) -> list[str]:
    """Keys of cupcake's hooks Codex lists for `directory` that it would skip (not trusted, or edited since)."""
    with _listed(directory) as (_server, listed):
        return [str(h.get("key")) for h in listed
                if MARK in str(h.get("command") or "") and h.get("trustStatus") not in ("trusted", "managed")]


def trust_cupcake_hooks(directory: Path, mark: str = MARK) -> tuple[str, int]:
    """Trust the hooks whose command holds `mark` (cupcake's) that Codex lists for `directory`."""
    with _listed(directory) as (server, listed):
        hooks = [h for h in listed if mark in str(h.get("command") or "")]
        if not hooks:  # Codex lists a project's hooks only once the project itself is trusted
            raise TrustError("Codex does not list cupcake's hooks here: trust the project in Codex first "
                             "(`codex --trust`, or when Codex asks), then re-run `cupcake init --harness codex`")
        state = {h["key"]: {"trusted_hash": h["currentHash"]} for h in hooks}
        written = server.call("config/batchWrite", {"edits": [{"keyPath": "hooks.state", "value": state,
                                                                "mergeStrategy": "upsert"}]})
        return str((written or {}).get("filePath") or "config.toml"), len(hooks)
