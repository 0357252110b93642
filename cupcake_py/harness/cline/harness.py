"""The Cline harness (`cupcake eval --harness cline`; protocol: engine/harness_api.py, shared parts:
cupcake_py/harness/hook_agent.py).

Events (Cline CLI 3.0.65): one executable per event in `.clinerules/hooks/` or `~/.cline/hooks/`, named
after the event (PreToolUse, PostToolUse, UserPromptSubmit, TaskStart, TaskResume, TaskCancel,
TaskComplete, TaskError, PreCompact, SessionShutdown). The hook script `cupcake init --harness cline`
writes (install.py) passes the file's event as CUPCAKE_HOOK_EVENT; the payload also has a key named
after its event (preToolUse, taskStart, ...), which must agree. The tool is `tool_call` (PreToolUse) or
`tool_result` (PostToolUse) {name, input}; the session is `taskId` (a subagent has its own, with
`parent_agent_id`); the working directory is the first of `workspaceRoots` (else the hook's cwd, which
Cline sets to the project). MCP tools are `<server>__<tool>` (policy input `mcp: {server, tool}`).
Answers: response.py. Cline can only cancel the whole task, and runs the tool on any hook failure and
after any delay, so install.py's hook turns every failure into `cancel: true` within cupcake's deadline.
"""

from __future__ import annotations

import os

from cupcake_py.harness.cline import response
from cupcake_py.harness.hook_agent import AGENT_EVENT, EVENT_ENV, Call, HookAgent, event_name_errors

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# Cline's hook file name -> the normalised hook_event_name policies route on
EVENTS = {"PreToolUse": "PreToolUse", "PostToolUse": "PostToolUse", "UserPromptSubmit": "UserPromptSubmit",
          "TaskStart": "SessionStart", "TaskResume": "SessionStart", "TaskCancel": "SessionEnd",
          "TaskComplete": "Stop", "TaskError": "ErrorOccurred", "PreCompact": "PreCompact",
          "SessionShutdown": "SessionEnd"}
# the object that carries each tool event's call
TOOL_FIELD = {"PreToolUse": "tool_call", "PostToolUse": "tool_result"}
REQUIRED = {"PreToolUse": ("tool_call",), "PostToolUse": ("tool_result",)}
EXTRA = {"agent_id": "agent_id", "parent_agent_id": "parent_agent_id"}


def payload_key(event: str) -> str:
    """The key Cline's payload names the event by (PreToolUse -> preToolUse)."""
    return event[0].lower() + event[1:]


def mcp_parts(tool: str, known: dict[str, Any]) -> dict[str, str] | None:
    if tool in known:
        return None
    server, sep, name = tool.partition("__")
    return {"server": server, "tool": name} if sep and server and name else None
# what the agent can enforce (policy input `harness_capabilities`, `cupcake verify`)
CAPABILITIES = {"can_ask": False, "can_rewrite_shell": True, "can_deny_tool": False, "subagent_calls_hooked": True}


class Cline(HookAgent):
    def __init__(self) -> None:
        super().__init__("cline", "Cline", EVENTS, CAPABILITIES, response.ANSWERS,
                         binaries=("cline",))

    def parse(self, value: Any) -> dict[str, Any]:
        from cupcake_py.harness.schema import args_errors, checked, schema_errors

        errors = schema_errors(value, self.data.event_schema())
        if errors:
            return checked(value, errors, self.title)
        name = os.environ.get(EVENT_ENV)
        errors += event_name_errors(name, EVENTS, "cline", "the hook")
        if not errors and name:
            others = [e for e in EVENTS if e != name and payload_key(e) in value]
            if others:
                errors.append(f"the payload is a {others[0]} event but the hook was installed for {name}")
            errors += [f"missing required field `{k}` of {name}" for k in REQUIRED.get(name, ()) if k not in value]
            field = TOOL_FIELD.get(name)
            call = value.get(field) if field else None
            if not errors and isinstance(call, dict):
                errors = args_errors(self.data.tool_map()["tool_args"], call["name"], call["input"], f"{field}.input")
                commands = call["input"].get("commands") if call["name"] == "run_commands" else []
                if isinstance(commands, list) and not all(isinstance(c, str) for c in commands):
                    errors.append(f"every entry of `{field}.input.commands` must be a string")
        valid = checked(value, errors, self.title)
        valid = dict(valid)
        valid[AGENT_EVENT] = name
        return valid

    def split(self, event: dict[str, Any]) -> Call:
        name = str(event[AGENT_EVENT])
        roots = event.get("workspaceRoots")
        cwd = roots[0] if isinstance(roots, list) and roots and isinstance(roots[0], str) and roots[0] else os.getcwd()
        extra: dict[str, Any] = {shared: event[key] for key, shared in EXTRA.items() if key in event}
        field = TOOL_FIELD.get(name)
        call = event.get(field) if field else None
        tool = args = None
        if isinstance(call, dict):
            tool, args = call.get("name"), call.get("input")
            if name == "PostToolUse" and "output" in call:
                extra["tool_response"] = call["output"]
            mcp = mcp_parts(str(tool), self.data.tool_map()["map"])
            if mcp is not None:
                extra["mcp"] = mcp
        prompt = event.get(payload_key(name))
        if name == "UserPromptSubmit" and isinstance(prompt, dict) and isinstance(prompt.get("prompt"), str):
            extra["prompt"] = prompt["prompt"]
        return Call(name, EVENTS[name], str(event["taskId"]), cwd, tool if isinstance(tool, str) else None,
                    args if isinstance(args, dict) else None, extra)

    def canary(self, command: str, cwd: str) -> dict[str, Any]:
        return {"taskId": "cupcake-verify-canary", "workspaceRoots": [cwd], "hookName": "tool_call",
                "tool_call": {"id": "canary", "name": "run_commands", "input": {"commands": [command]}}}


HARNESS = Cline()
