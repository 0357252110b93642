"""The Cursor harness (`cupcake eval --harness cursor`; protocol: engine/harness_api.py, shared parts:
cupcake_py/harness/hook_agent.py).

Built from Cursor's DOCUMENTED hooks.json contract (docs/cursor.md): no Cursor agent runs headless here, so
nothing below was observed in a running Cursor; tests/harness prove the adapter against the documented
events. Events carry `hook_event_name` (camelCase), `conversation_id` (the session) and
`workspace_roots`. Tool events and the tool they stand for:

| event                                   | tool (agent name)          | arguments                        |
| preToolUse, postToolUse(Failure)        | tool_name                  | tool_input (object or JSON text) |
| beforeShellExecution, afterShellExecution | Shell                    | {command, cwd}                   |
| beforeMCPExecution, afterMCPExecution   | tool_name (mcp: server = url or command) | tool_input         |
| beforeReadFile, beforeTabFileRead       | Read                       | {file_path} (content not copied) |
| afterFileEdit, afterTabFileEdit         | Edit                       | {file_path, edits}               |
| subagentStart                           | Task                       | the event's subagent fields      |
Answers: response.py.
"""

from __future__ import annotations

import os

from cupcake_py.harness.cursor import response
from cupcake_py.harness.hook_agent import Call, HookAgent

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# Cursor's event -> the normalised hook_event_name policies route on
EVENTS = {"sessionStart": "SessionStart", "sessionEnd": "SessionEnd", "preToolUse": "PreToolUse",
          "postToolUse": "PostToolUse", "postToolUseFailure": "PostToolUseFailure", "subagentStart": "PreToolUse",
          "subagentStop": "SubagentStop", "beforeShellExecution": "PreToolUse", "afterShellExecution": "PostToolUse",
          "beforeMCPExecution": "PreToolUse", "afterMCPExecution": "PostToolUse", "beforeReadFile": "PreToolUse",
          "afterFileEdit": "PostToolUse", "beforeSubmitPrompt": "UserPromptSubmit", "preCompact": "PreCompact",
          "stop": "Stop", "afterAgentResponse": "AfterAgentResponse", "afterAgentThought": "AfterAgentThought",
          "beforeTabFileRead": "PreToolUse", "afterTabFileEdit": "PostToolUse"}
REQUIRED = {"preToolUse": ("tool_name", "tool_input"), "postToolUse": ("tool_name", "tool_input"),
            "postToolUseFailure": ("tool_name", "tool_input"), "beforeMCPExecution": ("tool_name", "tool_input"),
            "afterMCPExecution": ("tool_name", "tool_input"), "beforeShellExecution": ("command",),
            "afterShellExecution": ("command",), "beforeReadFile": ("file_path",), "beforeTabFileRead": ("file_path",),
            "afterFileEdit": ("file_path",), "afterTabFileEdit": ("file_path",), "beforeSubmitPrompt": ("prompt",)}
SHELL_EVENTS = frozenset({"beforeShellExecution", "afterShellExecution"})
READ_EVENTS = frozenset({"beforeReadFile", "beforeTabFileRead"})
EDIT_EVENTS = frozenset({"afterFileEdit", "afterTabFileEdit"})
MCP_EVENTS = frozenset({"beforeMCPExecution", "afterMCPExecution"})
GENERIC_TOOL_EVENTS = frozenset({"preToolUse", "postToolUse", "postToolUseFailure"})
# Cursor's field -> the shared name policies read (the original stays too)
EXTRA = {"output": "tool_response", "result_json": "tool_response", "tool_output": "tool_response",
         "status": "status", "loop_count": "loop_count"}
SUBAGENT_FIELDS = ("subagent_type", "prompt", "task", "description", "name")
# what the agent can enforce (policy input `harness_capabilities`, `cupcake verify`)
CAPABILITIES = {"can_ask": True, "can_rewrite_shell": False, "can_deny_tool": True, "subagent_calls_hooked": True}


class Cursor(HookAgent):
    def __init__(self) -> None:
        super().__init__("cursor", "Cursor", EVENTS, CAPABILITIES, response.ANSWERS,
                         binaries=("cursor-agent", "cursor"))

    def parse(self, value: Any) -> dict[str, Any]:
        from cupcake_py.core import jsonio
        from cupcake_py.harness.schema import args_errors, checked, schema_errors

        event = dict(value) if isinstance(value, dict) else value
        errors: list[str] = []
        if isinstance(event, dict) and isinstance(event.get("tool_input"), str):
            try:
                event["tool_input"] = jsonio.loads(event["tool_input"].encode())
            except ValueError:
                errors.append("`tool_input` is a string that is not JSON")
        errors += schema_errors(event, self.data.event_schema())
        if not errors:
            name = event["hook_event_name"]
            errors = [f"missing required field `{k}` of {name}" for k in REQUIRED.get(name, ()) if k not in event]
        if not errors and name in SHELL_EVENTS:
            errors = args_errors(self.data.tool_map()["tool_args"], "Shell", {"command": event["command"]}, "event")
        return checked(event, errors, self.title)

    def split(self, event: dict[str, Any]) -> Call:
        name = str(event["hook_event_name"])
        roots = event.get("workspace_roots")
        cwd = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) and roots[0] else \
            event.get("cwd") if isinstance(event.get("cwd"), str) and event.get("cwd") else os.getcwd()
        extra: dict[str, Any] = {shared: event[key] for key, shared in EXTRA.items() if key in event}
        tool: str | None = None
        args: dict[str, Any] | None = None
        if name in GENERIC_TOOL_EVENTS or name in MCP_EVENTS:
            tool, args = str(event["tool_name"]), event["tool_input"]
            if name in MCP_EVENTS:
                server = event.get("url") or event.get("command") or ""
                extra["mcp"] = {"server": str(server), "tool": tool}
        elif name in SHELL_EVENTS:
            tool, args = "Shell", {k: event[k] for k in ("command", "cwd") if k in event}
        elif name in READ_EVENTS:
            tool, args = "Read", {"file_path": event["file_path"]}
        elif name in EDIT_EVENTS:
            tool, args = "Edit", {k: event[k] for k in ("file_path", "edits") if k in event}
        elif name == "subagentStart":
            tool, args = "Task", {k: event[k] for k in SUBAGENT_FIELDS if k in event}
        if name == "beforeSubmitPrompt":
            extra["prompt"] = event["prompt"]
        return Call(name, EVENTS[name], str(event["conversation_id"]), str(cwd), tool,
                    args if isinstance(args, dict) else None, extra)

    def canary(self, command: str, cwd: str) -> dict[str, Any]:
        return {"hook_event_name": "beforeShellExecution", "conversation_id": "cupcake-verify-canary",
                "workspace_roots": [cwd], "command": command, "cwd": cwd}


HARNESS = Cursor()
