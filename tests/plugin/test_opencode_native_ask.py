"""How can a cupcake `ask` reach OpenCode's own approval prompt? Evidence from the REAL OpenCode 1.18.33 (the
version pinned in plugin-ts; docs/serve.md, "Ask and OpenCode's approval flow"). A plugin cannot open a
prompt itself; `askMode: "native"` therefore lets OpenCode ask under its own `ask` permissions and answers
the requests of allowed calls (tests/plugin/test_e2e_opencode_native.py). Each test below pins one fact that
design rests on, so a new OpenCode pin that changes any of them fails here and says what to revisit:

1. The v2 endpoint `POST /api/session/{id}/permission` creates permission requests from outside a tool and
   they can be answered, but only through the v2 reply route; the v1 routes that OpenCode's clients use
   answer 404 for them (`test_v2_requests_are_answered_only_by_the_v2_reply_route`).
2. The terminal UI draws a prompt for the requests OpenCode's own tools make, and never for a v2 request a
   plugin makes: the tool call waits until something else answers
   (`test_tui_prompts_for_tool_asks_but_not_for_v2_requests`).
3. `opencode run` auto-rejects the asks of OpenCode's own tools and ignores v2 requests
   (`test_run_ignores_v2_requests`, `test_run_auto_rejects_the_asks_of_opencodes_own_tools`).
4. The other ways are closed or need a guard:
   - a session rule added while the tool call is being checked does not apply to it
     (`test_session_rules_added_during_a_call_do_not_apply`);
   - OpenCode's bash tool does not ask about every command: a command without command words runs unasked
     (`test_bash_ask_skips_commands_without_command_words`, seen with cupcake's plugin disabled; with the kernel
     floor the call becomes the sandbox launcher, which is asked about), which is why native mode guards bash
     in the `shell.env` hook.

The `permission.ask` plugin hook, the documented one, has no call site in 1.18.33 (shared/reference/opencode.md
section 3.2). `tests/e2e_opencode/ask_probe.js` is the test plugin used for 2–4."""

from __future__ import annotations

import json
import shutil
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e_opencode.driver import OPENCODE, OPENCODE_VERSION, OpenCodeE2E, _stop_group
from tests.e2e_opencode.tui import OpenCodeTUI, free_port, http

PROBE = Path(__file__).resolve().parents[1] / "e2e_opencode" / "ask_probe.js"
REJECTED = "The user rejected permission to use this specific tool call."


def _set_permission(e2e: OpenCodeE2E, **rules: str) -> None:
    config = json.loads((e2e.project / "opencode.json").read_text())
    config["permission"].update(rules)
    (e2e.project / "opencode.json").write_text(json.dumps(config, indent=2))


def _install_probe(e2e: OpenCodeE2E, mode: str, wait_ms: int) -> Path:
    """The probe plugin next to cupcake's; returns its log."""
    shutil.copyfile(PROBE, e2e.project / ".opencode" / "plugin" / "ask_probe.js")
    log = e2e.root / f"probe-{mode}.jsonl"
    e2e.extra_env.update({"PROBE_LOG": str(log), "PROBE_MODE": mode, "PROBE_WAIT_MS": str(wait_ms)})
    return log


def _records(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


@pytest.fixture
def world(tmp_path: Path) -> Iterator[OpenCodeE2E]:
    with OpenCodeE2E(tmp_path) as e2e:
        e2e.warm_up()
        yield e2e


# -- 1. the v2 endpoint ------------------------------------------------------------------------------------
def test_v2_requests_are_answered_only_by_the_v2_reply_route(world: OpenCodeE2E) -> None:
    port = free_port()
    server = subprocess.Popen([str(OPENCODE), "serve", "--port", str(port), "--hostname", "127.0.0.1"],
                              cwd=world.project, env=world.env(), stdin=subprocess.DEVNULL,
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        base, where = f"http://127.0.0.1:{port}", f"directory={world.project}"
        deadline = time.monotonic() + 180
        while True:
            try:
                status, health = http("GET", f"{base}/global/health", timeout=5)
                if status == 200:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, "opencode serve did not become healthy"
            time.sleep(0.2)
        assert health["version"] == OPENCODE_VERSION
        status, session = http("POST", f"{base}/session?{where}", {})
        assert status == 200, session
        sid = session["id"]

        def create(action: str) -> tuple[str, str]:
            body = {"action": action, "agent": "build", "resources": ["git push --force origin main"],
                    "metadata": {"reason": "cupcake policy asks for approval"}}
            status, got = http("POST", f"{base}/api/session/{sid}/permission?{where}", body)
            assert status == 200, got
            return got["data"]["effect"], got["data"]["id"]

        seen: set[str] = set()
        while True:  # `deny` to everything until the agents are loaded, then by the permission config
            effect, rid = create("external_directory")  # OpenCode's default for it is `ask`
            seen.add(effect)
            if effect == "ask":
                break
            assert effect == "deny", effect
            assert time.monotonic() < deadline, f"external_directory was never asked for: {seen}"
            time.sleep(0.5)
        assert create("bash")[0] == "allow"  # the project's config allows bash: no request is made

        def pending() -> list[str]:
            status, got = http("GET", f"{base}/api/session/{sid}/permission?{where}")
            assert status == 200, got
            return [r["id"] for r in got["data"]]

        assert pending() == [rid]
        # The v1 routes, which OpenCode's own clients answer with, do not know the request.
        status, v1_list = http("GET", f"{base}/permission?{where}")
        assert status == 200 and rid not in [r["id"] for r in v1_list]
        for route, body in ((f"/permission/{rid}/reply", {"reply": "once"}),
                            (f"/session/{sid}/permissions/{rid}", {"response": "once"})):
            status, text = http("POST", f"{base}{route}?{where}", body)
            assert status == 404 and "PermissionNotFoundError" in text, (route, status, text)
        assert pending() == [rid]
        # The v2 reply route answers it.
        for reply in ("reject", "once"):
            status, _ = http("POST", f"{base}/api/session/{sid}/permission/{rid}/reply?{where}", {"reply": reply})
            assert status == 204
            assert pending() == []
            effect, rid = create("external_directory")
            assert effect == "ask"
    finally:
        _stop_group(server)


# -- 2. the terminal UI ------------------------------------------------------------------------------------
def test_tui_prompts_for_tool_asks_but_not_for_v2_requests(world: OpenCodeE2E) -> None:
    # Control: OpenCode's bash tool asks (config `bash: ask`); the TUI draws its prompt; Enter allows once.
    _set_permission(world, bash="ask")
    with OpenCodeTUI(world, "CMD: echo control-ask") as tui:
        assert tui.wait_for("Permission required", 180), tui.text()[-3000:]
        status, asked = tui.api("GET", "/permission")
        # With cupcake's kernel floor (on, as `cupcake init` writes it) the request is about the sandbox launcher.
        assert status == 200 and [r["permission"] for r in asked] == ["bash"], asked
        assert "/bin/bash -c 'echo control-ask' 3< " in asked[0]["metadata"]["command"], asked
        for word in ("Allow once", "Allow always", "Reject"):
            assert word in tui.text()
        tui.pump(1.0)
        tui.press(b"\r")
        assert tui.wait_for("MOCK DONE: control-ask", 120), tui.text()[-3000:]

    # A plugin's v2 request for the same kind of call: pending, but nothing is drawn and nothing answers.
    _set_permission(world, bash="allow", cupcake="ask")
    log = _install_probe(world, "v2", wait_ms=120_000)
    with OpenCodeTUI(world, "CMD: echo v2-ask") as tui:
        deadline = time.monotonic() + 180
        while not any(r.get("data", {}).get("effect") == "ask" for r in _records(log)):
            assert time.monotonic() < deadline, (_records(log), tui.text()[-3000:])
            tui.pump(0.5)
        tui.pump(10.0)  # far longer than the 16 ms the TUI batches events for
        assert "Permission required" not in tui.text() and "Allow once" not in tui.text()
        status, v1_pending = tui.api("GET", "/permission")
        assert (status, v1_pending) == (200, [])
        asked = [r for r in _records(log) if r.get("event") == "permission.v2.asked"]
        assert len(asked) == 1, asked  # the plugin does see its own request on the bus
        sid = asked[0]["properties"]["sessionID"]
        status, v2_pending = tui.api("GET", f"/api/session/{sid}/permission")
        assert status == 200 and [(r["action"], r["resources"]) for r in v2_pending["data"]] == [
            ("cupcake", ["echo v2-ask"])]
        assert "MOCK DONE" not in tui.text()  # the tool call is still waiting
        # Only an API client that uses the v2 reply route can let it go on.
        rid = v2_pending["data"][0]["id"]
        assert tui.api("POST", f"/api/session/{sid}/permission/{rid}/reply", {"reply": "once"})[0] == 204
        assert tui.wait_for("MOCK DONE: v2-ask", 120), tui.text()[-3000:]
    events = [r["event"] for r in _records(log) if "event" in r]
    assert events == ["permission.v2.asked", "permission.v2.replied"]


# -- 3. opencode run ---------------------------------------------------------------------------------------
def test_run_ignores_v2_requests(world: OpenCodeE2E) -> None:
    _set_permission(world, cupcake="ask")
    log = _install_probe(world, "v2", wait_ms=15_000)
    result = world.run("CMD: echo run-v2")
    assert [(t.tool, t.status) for t in result.tools] == [("bash", "error")], result.tools
    assert "no answer" in (result.tools[0].error or "")
    records = _records(log)
    assert [r["data"]["effect"] for r in records if r.get("step") == "create"][-1] == "ask"
    assert [r["event"] for r in records if "event" in r] == ["permission.v2.asked"]  # never answered
    assert "auto-rejecting" not in result.stderr


def test_run_auto_rejects_the_asks_of_opencodes_own_tools(world: OpenCodeE2E) -> None:
    _set_permission(world, bash="ask")
    result = world.run("CMD: echo own-ask")
    assert [(t.tool, t.status, t.error) for t in result.tools] == [("bash", "error", REJECTED)]


# -- 4. the other ways in ----------------------------------------------------------------------------------
def test_session_rules_added_during_a_call_do_not_apply(world: OpenCodeE2E) -> None:
    log = _install_probe(world, "session-rule", wait_ms=0)
    result = world.run("CMD: echo first ;; CMD: echo second")
    assert [(t.tool, t.status, t.output) for t in result.tools] == [
        ("bash", "completed", "first\n"), ("bash", "completed", "second\n")]
    records = _records(log)
    added = [r for r in records if r.get("step") == "session-rule"]
    assert len(added) == 2 and all(r["status"] == 200 for r in added)
    assert {"permission": "bash", "pattern": "*", "action": "ask"} in added[-1]["permission"]
    assert not [r for r in records if "event" in r]  # nothing was asked


def test_bash_ask_skips_commands_without_command_words(world: OpenCodeE2E) -> None:
    """OpenCode's own fact, seen with cupcake's plugin disabled (nothing rewritten): `x=1` runs unasked. With the
    plugin and its floor, the same call is rewritten to the launcher, which OpenCode does ask about."""
    _set_permission(world, bash="ask")
    with_floor = world.run("CMD: x=1")
    assert [(t.status, t.error) for t in with_floor.tools] == [("error", REJECTED)]
    plugin_config = world.project / ".cupcake" / "opencode.json"
    plugin_config.write_text(json.dumps({**json.loads(plugin_config.read_text()), "enabled": False}))
    result = world.run("CMD: x=1 ;; CMD: echo asked")
    assert [(t.input.get("command"), t.status, t.error) for t in result.tools] == [
        ("x=1", "completed", None), ("echo asked", "error", REJECTED)]
