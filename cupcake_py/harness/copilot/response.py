"""GitHub Copilot CLI's hook output (stdout JSON) for a final decision, and the fail-closed answer.
Forms measured with the real Copilot CLI 1.0.102 (tests/e2e_chat, docs/copilot-cli.md):

| event                | halt / deny / block                 | ask                                | modify                 | allow (+context)   |
| preToolUse           | permissionDecision deny + reason    | permissionDecision ask + reason    | modifiedArgs = the     | additionalContext  |
|                      | (the model gets "Denied by          | (headless: denied, reason to the   | WHOLE args (Copilot    | (or {})            |
|                      | preToolUse hook: <reason>")         | model; interactive: Copilot asks)  | replaces them)         |                    |
| permissionRequest    | behavior deny + message             | {} (Copilot's own prompt decides)  | {}                     | {}                 |
| userPromptSubmitted  | decision block + reason (the prompt is not sent; `copilot -p` exits 1)    | {}                     | additionalContext  |
| postToolUse          | additionalContext "cupcake: <reason>" (the tool already ran)              | {}                     | additionalContext  |
| sessionStart         | decision block + reason (not verified to stop anything: Copilot has no    | {}                     | additionalContext  |
| agentStop,           | session stop a hook can ask for that was measured)                        |                        |                    |
| subagentStop         |                                                                           |                        |                    |
| sessionEnd, errorOccurred, notification | {}                                                     |                        |                    |

Exit 0 with the JSON above. Failure: exit 2 and one JSON object that blocks on every event at once
(`permissionDecision: deny` for tools, `decision: block` for prompts, `behavior: deny` for permission
requests, each with the reason): Copilot reads the JSON of an exit-2 hook (measured) and blocks.
"""

from __future__ import annotations

from cupcake_py.engine.harness_api import Answer
from cupcake_py.harness.hook_agent import STOPPING

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cupcake_py.engine.synthesis import FinalDecision
    from cupcake_py.harness.hook_agent import Call, ToolTable

BLOCKING_EVENTS = frozenset({"userPromptSubmitted", "sessionStart", "agentStop", "subagentStop"})
CONTEXT_EVENTS = frozenset({"preToolUse", "postToolUse", "userPromptSubmitted", "sessionStart"})


def blocking(reason: str) -> dict[str, Any]:
    """The one JSON object every Copilot event treats as blocking (see the table)."""
    return {"permissionDecision": "deny", "permissionDecisionReason": reason, "decision": "block", "reason": reason,
            "behavior": "deny", "message": reason}


def _context(final: FinalDecision, event: str) -> dict[str, Any]:
    if final.context and event in CONTEXT_EVENTS:
        return {"additionalContext": "\n\n".join(final.context)}
    return {}


def copilot_output(final: FinalDecision, call: Call, table: ToolTable) -> dict[str, Any]:
    kind, reason, event = final.kind, final.reason or "", call.agent_event
    if event == "preToolUse":
        if kind in STOPPING:
            return {"permissionDecision": "deny", "permissionDecisionReason": reason}
        if kind == "ask":
            out: dict[str, Any] = {"permissionDecision": "ask", "permissionDecisionReason": reason}
            if final.updated_input and call.tool is not None:  # what runs once approved (the sandboxed command)
                out["modifiedArgs"] = table.agent_args(call.tool, call.args, final.updated_input)
            return out
        if kind == "modify" and call.tool is not None:
            return {"modifiedArgs": table.agent_args(call.tool, call.args, final.updated_input), **_context(final, event)}
        return _context(final, event)
    if event == "permissionRequest":
        return {"behavior": "deny", "message": reason} if kind in STOPPING else {}
    if event == "postToolUse":
        if kind in STOPPING or kind == "ask":
            return {"additionalContext": f"cupcake: {reason}"}
        return _context(final, event)
    if event in BLOCKING_EVENTS and (kind in STOPPING or (kind == "ask" and event == "userPromptSubmitted")):
        return {"decision": "block", "reason": reason}
    return _context(final, event)


def respond(final: FinalDecision, event: dict[str, Any], call: Call, table: ToolTable, strict: bool) -> Answer:
    return Answer(copilot_output(final, call, table), 0)


def failure(message: str, event: Any) -> Answer:
    return Answer(blocking(message), 2, message)
