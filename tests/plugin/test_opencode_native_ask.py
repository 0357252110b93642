"""Can a cupcake `ask` go to OpenCode's own approval prompt? Evidence against the REAL OpenCode 1.18.33
(docs/serve.md, "ask and OpenCode's approval flow").

A plugin's `tool.execute.before` can only return (allow), throw (deny) or rewrite the args; the
`permission.ask` plugin hook has no call site in 1.18.33 (reference: opencode.md 3.2); the v1 API only
replies to requests OpenCode itself made. The one documented way to *create* a request is the v2 endpoint
`POST /api/session/{sessionID}/permission` ("Evaluate and, when approval is required, create a permission
request"). This test starts `opencode serve` on loopback and asks it to create requests: no action is
answered `effect: "ask"` (observed: "deny" for everything without an agent, also for `bash`, which the
project's config allows, and for `external_directory` / `doom_loop`, which OpenCode asks for by default;
with `agent: "build"` "deny" or "allow") and no request is ever pending, so nothing reaches the approval
prompt and `askMode: "native"` cannot be built on 1.18.33. When an OpenCode
upgrade makes this test fail, the path may have opened: revisit askMode.
"""

from __future__ import annotations

import json
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from tests.e2e_opencode.driver import OPENCODE, OPENCODE_VERSION, OpenCodeE2E, _stop_group

# external_directory and doom_loop default to "ask" in OpenCode's own permission config
ACTIONS = ("cupcake", "bash", "edit", "external_directory", "doom_loop", "question")


def _call(method: str, url: str, body: Any = None) -> tuple[int, Any]:
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, method=method, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode("utf-8", "replace")


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_v2_permission_create_never_asks(tmp_path: Path) -> None:
    with OpenCodeE2E(tmp_path) as e2e:
        port = _free_port()
        server = subprocess.Popen([str(OPENCODE), "serve", "--port", str(port), "--hostname", "127.0.0.1"],
                                  cwd=e2e.project, env=e2e.env(), stdin=subprocess.DEVNULL,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            base = f"http://127.0.0.1:{port}"
            deadline = time.monotonic() + 180
            while True:
                try:
                    status, health = _call("GET", f"{base}/global/health")
                    if status == 200:
                        break
                except OSError:
                    pass
                assert time.monotonic() < deadline, "opencode serve did not become healthy"
                time.sleep(0.2)
            assert health["version"] == OPENCODE_VERSION
            where = f"directory={e2e.project}"
            status, session = _call("POST", f"{base}/session?{where}", {})
            assert status == 200, session
            sid = session["id"]
            for agent in (None, "build"):
                for action in ACTIONS:
                    body = {"action": action, "resources": ["git push --force origin main"],
                            "metadata": {"reason": "cupcake policy asks for approval"}}
                    if agent:
                        body["agent"] = agent
                    status, got = _call("POST", f"{base}/api/session/{sid}/permission?{where}", body)
                    assert status == 200, got
                    assert got["data"]["effect"] in ("allow", "deny"), (agent, action, got)  # never "ask"
            assert _call("GET", f"{base}/api/session/{sid}/permission?{where}") == (200, {"data": []})
            assert _call("GET", f"{base}/permission?{where}") == (200, [])
        finally:
            _stop_group(server)
