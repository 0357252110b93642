"""Factory Droid's hook output (Claude Code's JSON, stdout, exit 0) for a final decision, and the
fail-closed answer. Forms measured with the real droid 0.225.2 (tests/e2e_chat, docs/factory-droid.md):

| event                 | halt                         | deny / block                  | ask                          | modify                   | allow (+context) |
| PreToolUse            | permissionDecision deny +    | permissionDecision deny +     | the fallback (default deny   | updatedInput = the WHOLE | additionalContext|
|                       | reason, continue false +     | reason (the model gets        | with the reason): Droid's    | input (Droid merges it)  | (the model does  |
|                       | stopReason (session ends)    | "Error: <reason>")            | `ask` runs the tool headless |                          | not see it)      |
| PostToolUse           | decision block + reason + additionalContext "cupcake: <reason>" (the tool ran) | —              | additionalContext|
| UserPromptSubmit      | decision block + reason (+ continue false on halt)                             | —              | additionalContext|
| SessionStart          | continue false + stopReason                                                    | —              | additionalContext|
| Stop, SubagentStop    | decision block + reason (keep working) — ONLY when stop_hook_active is false:  | —              | {}               |
|                       | Droid has no cap on blocked stops (measured: it looped until killed)           |                |                  |
| SessionEnd, Notification, PreCompact | {}                                                              |                |                  |

Failure (`blocking`): on PreToolUse, PostToolUse and UserPromptSubmit exit 2 with the reason on stderr and
the event's blocking JSON on stdout (Droid reads the JSON of an exit-2 hook: the model gets "Error:
<reason>", measured); on every other event `continue: false` (exit 0), which ends the session (exit 2 on
Stop would make Droid keep working without end). An event too broken to name gets the PreToolUse deny.
"""

from __future__ import annotations

from cupcake_py.engine.harness_api import Answer
from cupcake_py.harness.hook_agent import STOPPING, ask_reason, effective_kind

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cupcake_py.engine.synthesis import FinalDecision
    from cupcake_py.harness.hook_agent import Call, ToolTable

CONTEXT_EVENTS = frozenset({"PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart"})


def _specific(event: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, **fields}}


def _stop(reason: str) -> dict[str, Any]:
    return {"continue": False, "stopReason": reason}


def _context(final: FinalDecision, event: str) -> dict[str, Any]:
    if final.context and event in CONTEXT_EVENTS:
        return _specific(event, additionalContext="\n\n".join(final.context))
    return {}


def deny(event: str, reason: str) -> dict[str, Any]:
    return _specific(event, permissionDecision="deny", permissionDecisionReason=reason)


def droid_output(final: FinalDecision, event: dict[str, Any], call: Call, table: ToolTable) -> dict[str, Any]:
    name = call.agent_event
    kind = effective_kind(final.kind, can_ask=False)
    reason = final.reason or ""
    if final.kind == "ask" and kind == "deny":
        reason = ask_reason(reason)
    if name == "PreToolUse":
        if kind in STOPPING:
            return {**_stop(reason), **deny(name, reason)} if kind == "halt" else deny(name, reason)
        if final.updated_input and call.tool is not None and kind in ("modify", "allow"):
            return _specific(name, updatedInput=table.agent_args(call.tool, call.args, final.updated_input))
        return _context(final, name)
    if kind not in STOPPING:
        return _context(final, name)
    if name in ("PostToolUse", "UserPromptSubmit"):
        out = {"decision": "block", "reason": reason}
        if name == "PostToolUse":
            out.update(_specific(name, additionalContext=f"cupcake: {reason}"))
        return {**out, **_stop(reason)} if kind == "halt" else out
    if name == "SessionStart":
        return _stop(reason)
    if name in ("Stop", "SubagentStop"):
        if kind == "halt":
            return _stop(reason)
        return {} if event.get("stop_hook_active") is True else {"decision": "block", "reason": reason}
    return {}


def respond(final: FinalDecision, event: dict[str, Any], call: Call, table: ToolTable, strict: bool) -> Answer:
    return Answer(droid_output(final, event, call, table), 0)


# Events where exit 2 blocks a model step; everywhere else a failure ends the session (`continue: false`):
# exit 2 on Stop would make Droid keep working, and it has no cap on that.
EXIT2_EVENTS = frozenset({"PreToolUse", "PostToolUse", "UserPromptSubmit"})


def blocking(name: str, reason: str) -> tuple[dict[str, Any], int]:
    """The blocking (JSON, exit) for a failure on event `name` (also what install.py's guard prints)."""
    if name == "PreToolUse":
        return deny(name, reason), 2
    if name in EXIT2_EVENTS:
        return {"decision": "block", "reason": reason}, 2
    return _stop(reason), 0


def failure(message: str, event: Any) -> Answer:
    name = event.get("hook_event_name") if isinstance(event, dict) else None
    out, code = blocking(name if isinstance(name, str) else "PreToolUse", message)
    return Answer(out, code, message)
