"""The GitHub Copilot CLI harness (`cupcake eval --harness copilot`; protocol: engine/harness_api.py,
shared parts: cupcake_py/harness/hook_agent.py).

Events (Copilot CLI 1.0.102, `.github/hooks/*.json` or `~/.copilot/hooks/*.json`): camelCase keys,
camelCase fields (sessionId, toolName, toolArgs, toolResult), and NO event name on stdin: the hook
command `cupcake init --harness copilot` writes (install.py) sets CUPCAKE_HOOK_EVENT to the event's
key; permissionRequest also carries `hookName`. An event whose name is unknown, missing or contradicts
`hookName` is invalid (fail closed). toolArgs arriving as a JSON string (older releases) is decoded.
Answers: response.py. Copilot runs the tool when a hook times out or prints something that is not its
JSON, so install.py's hook maps every failure to the blocking answer.
"""

from __future__ import annotations

import os

from cupcake_py.harness.copilot import response
from cupcake_py.harness.hook_agent import AGENT_EVENT, EVENT_ENV, Call, HookAgent, event_name_errors

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


# Copilot's event key -> the normalised hook_event_name policies route on
EVENTS = {"sessionStart": "SessionStart", "sessionEnd": "SessionEnd", "userPromptSubmitted": "UserPromptSubmit",
          "preToolUse": "PreToolUse", "postToolUse": "PostToolUse", "permissionRequest": "PermissionRequest",
          "agentStop": "Stop", "subagentStop": "SubagentStop", "errorOccurred": "ErrorOccurred",
          "notification": "Notification"}
# fields each event must carry beyond sessionId and cwd
REQUIRED = {"preToolUse": ("toolName", "toolArgs"), "postToolUse": ("toolName", "toolArgs", "toolResult"),
            "permissionRequest": ("toolName", "toolInput"), "userPromptSubmitted": ("prompt",)}
# Copilot's field -> the shared name policies read (the original stays too)
EXTRA = {"prompt": "prompt", "toolResult": "tool_response", "source": "source", "reason": "reason",
         "stop_hook_active": "stop_hook_active", "agentId": "agent_id", "agentType": "agent_type",
         "parentAgentId": "parent_agent_id", "initialPrompt": "initial_prompt", "transcriptPath": "transcript_path"}
# what the agent can enforce (policy input `harness_capabilities`, `cupcake verify`)
CAPABILITIES = {"can_ask": True, "can_rewrite_shell": True, "can_deny_tool": True, "subagent_calls_hooked": True}


class CopilotCli(HookAgent):
    def __init__(self) -> None:
        super().__init__("copilot", "GitHub Copilot CLI", EVENTS, CAPABILITIES, response.ANSWERS,
                         binaries=("copilot",))

    def parse(self, value: Any) -> dict[str, Any]:
        from cupcake_py.core import jsonio
        from cupcake_py.harness.schema import args_errors, checked, schema_errors

        if not isinstance(value, dict):
            return checked(value, schema_errors(value, self.data.event_schema()), self.title)
        event = dict(value)
        errors: list[str] = []
        name = os.environ.get(EVENT_ENV) or event.get("hookName")
        hook_name = event.get("hookName")
        errors += event_name_errors(name, EVENTS, "copilot")
        if not errors and isinstance(hook_name, str) and hook_name != name:
            errors.append(f"the event says hookName {hook_name!r} but the hook was installed for {name!r}")
        if isinstance(event.get("toolArgs"), str):
            try:
                event["toolArgs"] = jsonio.loads(event["toolArgs"].encode())
            except ValueError:
                errors.append("`toolArgs` is a string that is not JSON")
        errors += schema_errors(event, self.data.event_schema())
        if isinstance(name, str):
            errors += [f"missing required field `{k}` of {name}" for k in REQUIRED.get(name, ()) if k not in event]
        args = event.get("toolArgs", event.get("toolInput"))
        if not errors and isinstance(event.get("toolName"), str) and isinstance(args, dict):
            errors = args_errors(self.data.tool_map()["tool_args"], event["toolName"], args, "toolArgs")
        valid = checked(event, errors, self.title)
        valid[AGENT_EVENT] = name
        return valid

    def split(self, event: dict[str, Any]) -> Call:
        name = str(event[AGENT_EVENT])
        tool = event.get("toolName") if name in REQUIRED and name != "userPromptSubmitted" else None
        args = event.get("toolArgs", event.get("toolInput")) if tool is not None else None
        extra = {shared: event[key] for key, shared in EXTRA.items() if key in event}
        return Call(name, EVENTS[name], str(event["sessionId"]), str(event["cwd"]),
                    tool if isinstance(tool, str) else None, args if isinstance(args, dict) else None, extra)

    def canary(self, command: str, cwd: str) -> dict[str, Any]:
        return {"sessionId": "cupcake-verify-canary", "timestamp": 0, "cwd": cwd, "toolName": "bash",
                "toolArgs": {"command": command, "description": "cupcake verify canary"}}


HARNESS = CopilotCli()
