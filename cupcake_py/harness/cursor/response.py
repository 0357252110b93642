"""Cursor's hook output (stdout JSON) for a final decision, and the fail-closed answer, per Cursor's
DOCUMENTED contract (not verified against a running Cursor; docs/cursor.md):

| event                                    | halt / deny / block            | ask                  | modify                         | allow (+context)        |
| preToolUse                               | permission deny + user_message | permission ask       | permission allow +             | permission allow        |
|                                          | + agent_message (the model)    | + messages           | updated_input (WHOLE input)    |                         |
| beforeShellExecution, beforeMCPExecution,| permission deny + messages     | permission ask       | cannot rewrite: deny with the  | permission allow        |
| subagentStart                            |                                |                      | reason (fail closed)           |                         |
| beforeReadFile, beforeTabFileRead        | permission deny                | the fallback (deny)  | deny (cannot rewrite)          | permission allow        |
| beforeSubmitPrompt                       | continue false + user_message  | the fallback         | —                              | continue true           |
| stop, subagentStop                       | followup_message = the reason (Cursor keeps working; it caps follow-ups at 5)          | {}                      |
| sessionStart, postToolUse(Failure)       | additional_context "cupcake: <reason>"                                                  | additional_context      |
| other after* events, sessionEnd, preCompact | {}                                                                                   | {}                      |

Failure: exit 2 (documented: "2 = deny/block") with one JSON object that blocks every event form
(`permission: deny`, `continue: false`, the messages); install.py also sets `failClosed: true`.
"""

from __future__ import annotations

from cupcake_py.engine.harness_api import Answer
from cupcake_py.harness.hook_agent import STOPPING, ask_reason, effective_kind

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cupcake_py.engine.synthesis import FinalDecision
    from cupcake_py.harness.hook_agent import Call, ToolTable

PERMISSION_ASK = frozenset({"preToolUse", "beforeShellExecution", "beforeMCPExecution", "subagentStart"})
PERMISSION_ONLY = frozenset({"beforeReadFile", "beforeTabFileRead"})
CONTEXT_EVENTS = frozenset({"sessionStart", "postToolUse", "postToolUseFailure"})


def blocking(reason: str) -> dict[str, Any]:
    """The JSON every Cursor event form reads as blocking."""
    return {"permission": "deny", "continue": False, "user_message": reason, "agent_message": reason}


def _deny(reason: str) -> dict[str, Any]:
    return {"permission": "deny", "user_message": reason, "agent_message": reason}


def cursor_output(final: FinalDecision, call: Call, table: ToolTable) -> dict[str, Any]:
    event = call.agent_event
    can_ask = event in PERMISSION_ASK
    kind = effective_kind(final.kind, can_ask)
    reason = final.reason or ""
    if final.kind == "ask" and kind == "deny":
        reason = ask_reason(reason)
    if event in PERMISSION_ASK or event in PERMISSION_ONLY:
        if kind in STOPPING:
            return _deny(reason)
        if kind == "ask":
            return {"permission": "ask", "user_message": reason, "agent_message": reason}
        if kind == "modify":
            if event == "preToolUse" and call.tool is not None:
                return {"permission": "allow",
                        "updated_input": table.agent_args(call.tool, call.args, final.updated_input)}
            return _deny(f"{reason} (cupcake: a policy rewrote this call, but Cursor's {event} cannot run a "
                         "rewritten call, so it is denied)")
        return {"permission": "allow"}
    if event == "beforeSubmitPrompt":
        return {"continue": False, "user_message": reason} if kind in STOPPING else {"continue": True}
    if event in ("stop", "subagentStop"):
        return {"followup_message": reason} if kind in STOPPING else {}
    if event in CONTEXT_EVENTS:
        if kind in STOPPING:
            return {"additional_context": f"cupcake: {reason}"}
        if final.context:
            return {"additional_context": "\n\n".join(final.context)}
    return {}


def respond(final: FinalDecision, event: dict[str, Any], call: Call, table: ToolTable, strict: bool) -> Answer:
    return Answer(cursor_output(final, call, table), 0)


def failure(message: str, event: Any) -> Answer:
    return Answer(blocking(message), 2, message)
