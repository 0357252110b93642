"""Can a cupcake `ask` go to OpenCode's own approval flow? Evidence from the REAL OpenCode 1.18.33
(docs/serve.md, "ask and OpenCode's approval flow").

A plugin's `tool.execute.before` can only return (allow), throw (deny) or rewrite the args; the
`permission.ask` plugin hook has no call site in 1.18.33 (reference: opencode.md 3.2). The one documented
way to *create* a request is the v2 endpoint `POST /api/session/{sessionID}/permission` ("Evaluate and,
when approval is required, create a permission request"). This test starts `opencode serve` on loopback
and shows what that endpoint does:
- right after start-up it answers `deny` to every action (even ones the config allows) for a while:
  the configuration is not loaded yet (an earlier version of this test took that window for the rule);
- then it answers by the permission config: an action configured `ask` (`external_directory`, one of
  OpenCode's defaults) is answered `effect: "ask"` and creates a *pending* request, listed by
  `GET /api/session/{id}/permission`; `POST …/permission/{requestID}/reply` with `once` or `reject`
  answers it (204) and clears it.
So a request an API client (the TUI, an IDE) sees can be created from outside OpenCode's own tools. Not
shown here, and needed before `askMode: "native"` can be built: that the TUI prompts for such a request,
and how the plugin waits for the reply (the `permission.replied` event) within its time budget.
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


def _effect(base: str, where: str, sid: str, action: str) -> tuple[str, str | None]:
    body = {"action": action, "agent": "build", "resources": ["git push --force origin main"],
            "metadata": {"reason": "cupcake policy asks for approval"}}
    status, got = _call("POST", f"{base}/api/session/{sid}/permission?{where}", body)
    assert status == 200, got
    return got["data"]["effect"], got["data"].get("id")


def test_v2_permission_requests_can_be_created_and_answered(tmp_path: Path) -> None:
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
            seen: set[str] = set()
            while True:  # deny to everything until the configuration is loaded, then by the config
                status, session = _call("POST", f"{base}/session?{where}", {})
                assert status == 200, session
                sid = session["id"]
                effect, rid = _effect(base, where, sid, "external_directory")
                seen.add(effect)
                if effect == "ask":
                    break
                assert effect == "deny", effect
                assert time.monotonic() < deadline, f"external_directory was never asked for: {seen}"
                time.sleep(1)
            assert _effect(base, where, sid, "bash")[0] == "allow"  # the project's config allows bash
            for reply in ("reject", "once"):
                pending = _call("GET", f"{base}/api/session/{sid}/permission?{where}")
                assert pending[0] == 200 and [r["id"] for r in pending[1]["data"]] == [rid], pending
                assert pending[1]["data"][0]["action"] == "external_directory"
                status, _ = _call("POST", f"{base}/api/session/{sid}/permission/{rid}/reply?{where}", {"reply": reply})
                assert status == 204
                assert _call("GET", f"{base}/api/session/{sid}/permission?{where}") == (200, {"data": []})
                effect, rid = _effect(base, where, sid, "external_directory")
                assert effect == "ask"
        finally:
            _stop_group(server)
