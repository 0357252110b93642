"""askMode "native" end to end: the REAL OpenCode terminal UI (in a pty), the REAL plugin bundle and the REAL
cupcake engine, with the kernel sandbox floor ON (as `cupcake init` writes it). OpenCode's permission is "ask"
for bash, edit and read, so OpenCode asks before each of those calls; for a bash call it asks about the
command cupcake rewrote it to (the bubblewrap launcher). The plugin answers the requests of the calls the
policies allow (only for exactly the command cupcake decided), and a call a policy asks about
(tests/e2e_opencode/project/policies/e2e_ask.rego) gets OpenCode's own prompt, drawn with the command the model
asked for, which the test answers with the keys a user would press; the effects of approved and rejected
commands are checked on disk. In `opencode run` the same configuration blocks such calls with the approval
message instead (OpenCode rejects every request there by itself).
"""

from __future__ import annotations

import dataclasses
import json
import re
import shlex
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e_opencode.driver import OpenCodeE2E, Scenario
from tests.e2e_opencode.tui import OpenCodeTUI, http

ENTER, RIGHT = b"\r", b"\x1b[C"
REJECTED = "The user rejected permission to use this specific tool call."
TAMPER = Path(__file__).resolve().parents[1] / "e2e_opencode" / "tamper_plugin.js"
SCENARIO = Scenario(policies=("e2e_pre.rego", "e2e_post.rego", "e2e_ask.rego"))


@pytest.fixture(params=["spawn"])
def world(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[OpenCodeE2E]:
    """A native-mode project; the plugin's evaluator mode is the param (`spawn` unless a test asks for more)."""
    with OpenCodeE2E(tmp_path, dataclasses.replace(SCENARIO, plugin_mode=request.param)) as e2e:
        plugin_config = e2e.project / ".cupcake" / "opencode.json"
        plugin_config.write_text(json.dumps({**json.loads(plugin_config.read_text()), "askMode": "native"}))
        config = json.loads((e2e.project / "opencode.json").read_text())
        config["permission"].update(bash="ask", edit="ask", read="ask")
        (e2e.project / "opencode.json").write_text(json.dumps(config, indent=2))
        (e2e.project / "approval.txt").write_text("original\n")
        (e2e.project / "notes.txt").write_text("original\n")
        e2e.warm_up()
        yield e2e


def _pending(tui: OpenCodeTUI) -> list[dict[str, Any]]:
    status, pending = tui.api("GET", "/permission")
    assert status == 200, pending
    return list(pending)


def _wait_pending(tui: OpenCodeTUI, pattern: str, timeout: float = 180) -> dict[str, Any]:
    """The one pending request, once it is for a pattern ending in `pattern` (an allowed call's request may come
    and go first; OpenCode gives edit patterns relative to the worktree, "/" outside git)."""
    deadline = time.monotonic() + timeout
    while True:
        pending = _pending(tui)
        if len(pending) == 1 and len(pending[0]["patterns"]) == 1 and pending[0]["patterns"][0].endswith(pattern):
            return pending[0]
        assert time.monotonic() < deadline, (pending, tui.text()[-3000:])
        tui.pump(0.3)


def _tool_parts(tui: OpenCodeTUI) -> list[dict[str, Any]]:
    status, sessions = tui.api("GET", "/session")
    assert status == 200, sessions
    parts: list[dict[str, Any]] = []
    for session in sessions:
        status, messages = tui.api("GET", f"/session/{session['id']}/message")
        assert status == 200, messages
        parts += [p for m in messages for p in m["parts"] if p["type"] == "tool"]
    return parts


def _wait_bash_pending(tui: OpenCodeTUI, command: str, timeout: float = 180) -> dict[str, Any]:
    """The one pending request, once it is OpenCode's bash request for the model's `command`: the request is
    about the sandbox launcher wrapping it, and the tool part the prompt draws (its input) shows `command`."""
    deadline = time.monotonic() + timeout
    while True:
        pending = _pending(tui)
        if len(pending) == 1 and pending[0]["permission"] == "bash":
            request = pending[0]
            [part] = [p for p in _tool_parts(tui) if p["callID"] == request["tool"]["callID"]]
            if part["state"]["input"].get("command") == command:
                launched = request["metadata"]["command"]
                assert re.search(r"/usr/bin/bwrap --args 3 -- (\S+ 4 )?/bin/bash -c " + re.escape(shlex.quote(command)) + " 3< ",
                                 launched), launched
                assert part["state"]["status"] == "running", part
                return request
        assert time.monotonic() < deadline, (pending, tui.text()[-3000:])
        tui.pump(0.3)


def _prompt_box(tui: OpenCodeTUI) -> str:
    """What the TUI drew for its latest permission prompt (from "Permission required" to its choices)."""
    screen = tui.text()
    start = screen.rindex("Permission required")
    return screen[start:screen.index("Allow once", start)]


def _wait_tools(tui: OpenCodeTUI, count: int, timeout: float = 120) -> list[tuple[str, str, Any]]:
    """(tool, status, output or error) of every tool call, once `count` of them have finished."""
    deadline = time.monotonic() + timeout
    while True:
        parts = _tool_parts(tui)
        done = [p for p in parts if p["state"]["status"] in ("completed", "error")]
        if len(done) >= count:
            return [(p["tool"], p["state"]["status"], p["state"].get("output") or p["state"].get("error")) for p in parts]
        assert time.monotonic() < deadline, (parts, tui.text()[-3000:])
        tui.pump(0.3)


@pytest.mark.parametrize("world", ["spawn", "serve"], indirect=True)
def test_policy_ask_goes_to_the_tui_prompt_and_allowed_calls_run_sandboxed_unprompted(world: OpenCodeE2E) -> None:
    """Also with OpenCode's server password set (its API then needs it): the plugin still answers, and the
    shell does not see the password. The allowed calls run inside the sandbox (pid 1 is bubblewrap); the asked
    one waits, with nothing run, until the user allows it, and then runs sandboxed too."""
    prompt = ("CMD: echo fine-one ${OPENCODE_SERVER_PASSWORD:-}; tr '\\0' ' ' < /proc/1/cmdline"
              " ;; CMD: echo NEEDS_APPROVAL yes | tee consented.txt ;; CMD: echo fine-two")
    world.extra_env["OPENCODE_SERVER_PASSWORD"] = "e2e-secret"
    with OpenCodeTUI(world, prompt) as tui:
        _wait_bash_pending(tui, "echo NEEDS_APPROVAL yes | tee consented.txt")
        assert http("GET", f"{tui.base}/permission")[0] == 401  # no password, no answer
        # The allowed call before it already ran, sandboxed: its request was answered by the plugin, not the user.
        tool, status, output = _wait_tools(tui, 1)[0]
        assert (tool, status) == ("bash", "completed")
        assert str(output).startswith("fine-one\n")  # no password in the shell
        assert re.search(r"bwrap --args 3|/mounter-\w+ ", str(output)), output  # pid 1 of its pid namespace
        tui.pump(1.0)
        assert not (world.project / "consented.txt").exists()  # waits for the user
        box = _prompt_box(tui)
        assert "$ echo NEEDS_APPROVAL yes | tee consented.txt" in box and "bwrap" not in box, box
        screen = tui.text()
        assert "Cupcake: approve or reject in OpenCode's prompt" in screen  # the toast gives the policy's reason
        assert "commands marked NEEDS_APPROVAL need the user's" in screen
        tui.press(ENTER)  # "Allow once", the prompt's first choice
        assert tui.wait_for("MOCK DONE: fine-two", 120), tui.text()[-3000:]
        tools = _wait_tools(tui, 3)
        assert [(t, s, o) for t, s, o in tools[1:]] == [
            ("bash", "completed", "NEEDS_APPROVAL yes\n"),
            ("bash", "completed", "fine-two\n"),
        ]
        assert _pending(tui) == []
    assert (world.project / "consented.txt").read_text() == "NEEDS_APPROVAL yes\n"


def test_a_rejected_bash_prompt_runs_nothing(world: OpenCodeE2E) -> None:
    with OpenCodeTUI(world, "CMD: echo fine | tee before.txt ;; CMD: echo NEEDS_APPROVAL no | tee refused.txt") as tui:
        _wait_bash_pending(tui, "echo NEEDS_APPROVAL no | tee refused.txt")
        tui.pump(1.0)
        tui.press(RIGHT + RIGHT + ENTER)  # "Reject"
        tools = _wait_tools(tui, 2)
        assert _pending(tui) == []
    assert tools == [("bash", "completed", "fine\n"), ("bash", "error", REJECTED)]
    assert (world.project / "before.txt").read_text() == "fine\n"
    assert not (world.project / "refused.txt").exists()


def test_a_request_for_a_command_changed_after_cupcakes_check_is_rejected(world: OpenCodeE2E) -> None:
    """A plugin loaded after cupcake's appends to the command once cupcake allowed it: OpenCode's request is then
    about a command cupcake never decided, so the plugin rejects it; neither part runs."""
    shutil.copyfile(TAMPER, world.project / ".opencode" / "plugin" / "zz_tamper.js")
    with OpenCodeTUI(world, "CMD: echo TAMPER_ME | tee decided.txt ;; CMD: echo fine-after") as tui:
        tools = _wait_tools(tui, 1)
        assert _pending(tui) == []
    assert tools[0] == ("bash", "error", REJECTED), tools
    assert not (world.project / "decided.txt").exists()
    assert not (world.project / "tampered.txt").exists()


def test_a_rejected_prompt_blocks_the_edit_and_allowed_reads_run(world: OpenCodeE2E) -> None:
    with OpenCodeTUI(world, "READ: notes.txt ;; EDIT: approval.txt") as tui:
        request = _wait_pending(tui, "/approval.txt")
        assert request["permission"] == "edit"
        tui.pump(1.0)
        tui.press(RIGHT + RIGHT + ENTER)  # "Reject"
        tools = _wait_tools(tui, 2)
        assert [(tool, status) for tool, status, _ in tools] == [("read", "completed"), ("edit", "error")]
        assert "original" in str(tools[0][2])
        assert tools[1][2] == REJECTED
    assert (world.project / "approval.txt").read_text() == "original\n"


def test_opencode_run_blocks_what_a_policy_asks_about(world: OpenCodeE2E) -> None:
    """In `opencode run` native mode is off: the policy's ask is blocked with the approval message, and
    OpenCode itself rejects the calls its "ask" permission covers (the documented cost of that config)."""
    allowed = world.run("CMD: echo allowed")
    assert [(t.tool, t.status, t.error) for t in allowed.tools] == [("bash", "error", REJECTED)]
    result = world.run("CMD: echo NEEDS_APPROVAL no")
    [tool] = result.tools
    assert (tool.tool, tool.status) == ("bash", "error")
    message = tool.error or ""
    assert message.startswith("Approval required by cupcake policy [rule E2E-ASK-COMMAND]"), message
    assert "opencode run rejects every approval request by itself" in message
    assert result.tool_message(tool.call_id) == message


def test_after_allow_always_for_a_sandboxed_call_later_asked_calls_are_blocked(world: OpenCodeE2E) -> None:
    """Under the floor OpenCode asks about every command, even one without command words (`x=…`): it asks about
    the launcher. Its "Allow always" then covers the launcher (`/usr/bin/bwrap *`), so OpenCode approves later
    calls silently: one a policy asks about must not run unapproved (stopped in shell.env), allowed ones run."""
    prompt = "CMD: x=NEEDS_APPROVAL ;; CMD: echo NEEDS_APPROVAL second | tee second.txt ;; CMD: echo fine-after"
    with OpenCodeTUI(world, prompt) as tui:
        request = _wait_bash_pending(tui, "x=NEEDS_APPROVAL")
        assert "/usr/bin/bwrap *" in request["always"], request["always"]
        # "Allow always", answered the way the TUI does after its confirmation step.
        assert tui.api("POST", f"/permission/{request['id']}/reply", {"reply": "always"}) == (200, True)
        assert tui.wait_for("MOCK DONE", 120), tui.text()[-3000:]
        tools = _wait_tools(tui, 3)
        assert _pending(tui) == []
    assert [(tool, status) for tool, status, _ in tools] == [("bash", "completed"), ("bash", "error"), ("bash", "completed")]
    assert tools[2][2] == "fine-after\n"
    message = str(tools[1][2])
    assert message.startswith("Approval required by cupcake policy [rule E2E-ASK-COMMAND]"), message
    assert 'an earlier "Allow always" covers this call' in message, message
    assert 'this bash call (command: "echo NEEDS_APPROVAL second | tee second.txt")' in message, message
    assert not (world.project / "second.txt").exists()


def test_after_allow_always_for_an_edit_later_asked_edits_are_blocked(world: OpenCodeE2E) -> None:
    """OpenCode's "Allow always" for an edit approves every later edit silently (`*`), and no hook runs between
    its request and the write: so once the user gives it for a call a policy asked about, the plugin blocks
    the edits the policies ask about up front, while allowed edits go on."""
    for name in ("approval-2.txt", "notes.txt"):
        (world.project / name).write_text("original\n")
    with OpenCodeTUI(world, "EDIT: approval.txt ;; EDIT: approval-2.txt ;; EDIT: notes.txt") as tui:
        request = _wait_pending(tui, "/approval.txt")
        assert request["always"] == ["*"]  # OpenCode's "always" for edit covers every file
        assert tui.api("POST", f"/permission/{request['id']}/reply", {"reply": "always"}) == (200, True)
        tools = _wait_tools(tui, 3)
        assert _pending(tui) == []
    assert [(tool, status) for tool, status, _ in tools] == [("edit", "completed"), ("edit", "error"), ("edit", "completed")]
    message = str(tools[1][2])
    assert message.startswith("Approval required by cupcake policy [rule E2E-ASK-FILE]"), message
    assert 'after an "Allow always" for edit, OpenCode approves such calls without asking' in message
    assert (world.project / "approval-2.txt").read_text() == "original\n"
    assert (world.project / "notes.txt").read_text() == "tampered\n"


def test_a_write_a_policy_asks_about_waits_for_the_prompt(world: OpenCodeE2E) -> None:
    with OpenCodeTUI(world, "WRITE: approval-new.txt") as tui:
        request = _wait_pending(tui, "/approval-new.txt")
        assert request["permission"] == "edit"  # OpenCode's write tool asks under "edit"
        assert not (world.project / "approval-new.txt").exists()
        tui.pump(1.0)
        tui.press(ENTER)
        assert [(tool, status) for tool, status, _ in _wait_tools(tui, 1)] == [("write", "completed")]
    assert (world.project / "approval-new.txt").read_text() == "written\n"


def test_a_subagents_asked_call_gets_the_prompt_too(world: OpenCodeE2E) -> None:
    """A `task` subagent runs in a child session; its bash call a policy asks about is asked in the TUI too."""
    with OpenCodeTUI(world, "TASK: echo NEEDS_APPROVAL sub") as tui:
        request = _wait_bash_pending(tui, "echo NEEDS_APPROVAL sub")
        tui.pump(1.0)
        assert "Permission required" in tui.text()
        tui.press(ENTER)
        tools = _wait_tools(tui, 2)
    assert sorted((tool, status) for tool, status, _ in tools) == [("bash", "completed"), ("task", "completed")]
    [parent_task] = [t for t in tools if t[0] == "task"]
    assert request["sessionID"] in str(parent_task[2])  # the prompt was the child session's


def test_a_read_a_policy_asks_about_waits_for_the_prompt(world: OpenCodeE2E) -> None:
    with OpenCodeTUI(world, "READ: approval.txt") as tui:
        request = _wait_pending(tui, "/approval.txt")
        assert request["permission"] == "read"
        tui.pump(1.0)
        tui.press(ENTER)
        tool, status, output = _wait_tools(tui, 1)[0]
    assert (tool, status) == ("read", "completed") and "original" in str(output)
