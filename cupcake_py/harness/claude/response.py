"""Claude Code's hook output (stdout JSON, exit 0) for a final decision, and the fail-closed
answer (exit 2, reason on stderr). Only fields Claude Code 2.1.197 knows are written
(schemas/response.schema.json): an answer it cannot parse would let the tool run.

| event                         | halt                                   | deny / block          | ask                   | modify                      | allow (+context)     |
| PreToolUse                    | permissionDecision deny + reason,      | permissionDecision    | permissionDecision    | updatedInput = the WHOLE    | additionalContext    |
|                               | continue false + stopReason            | deny + reason         | ask + reason (+ the   | input (no decision: Claude  | (or {})              |
|                               |                                        |                       | sandboxed updatedInput| Code's own checks still run)|                      |
| PermissionRequest             | decision.behavior deny + message,      | behavior deny + msg   | {} (the user decides) | {}                          | {}                   |
|                               | interrupt true                         |                       |                       |                             |                      |
| PostToolUse(Failure)          | decision block + reason, continue false| decision block+reason | decision block+reason | {}                          | additionalContext    |
| UserPromptSubmit              | decision block + reason, continue false| decision block+reason | decision block+reason | {}                          | additionalContext    |
| Stop / SubagentStop           | continue false + stopReason            | decision block + reason (keep working)        | {}                          | {}                   |
| SessionStart                  | continue false + stopReason (every stopping verb and ask)                     | {}                          | additionalContext    |
| PreCompact, Notification      | continue false + stopReason            | decision block + reason                       | {}                          | {}                   |
| SessionEnd                    | {} (nothing can be stopped any more)                                                                                |

Halts last: Claude Code 2.1.197 ignores `continue: false` next to a PreToolUse deny, so harness.py
(sticky_halt, cupcake_py/harness/session_halts.py) remembers a halted session and answers every later event of it as a halt.

Exit status: 0 with the JSON above. `--strict` turns PreToolUse deny/block/halt into exit 2 with
the reason on stderr (never exit 1: Claude Code runs the tool on exit 1). Failures: exit 2, the
reason on stderr, and on stdout the event's deny/block JSON (Claude Code reads stderr on exit 2); on
SessionStart, Stop, SubagentStop, PreCompact and Notification (where exit 2 stops nothing) the failure is
`continue: false` + stopReason with exit 0 instead, which ends the session.
"""

from __future__ import annotations

from cupcake_py.engine.harness_api import Answer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cupcake_py.engine.synthesis import FinalDecision

STOPPING = frozenset({"halt", "deny", "block"})
CONTEXT_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "SessionStart"})
FEEDBACK_EVENTS = frozenset({"PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "Stop", "SubagentStop",
                             "PreCompact", "Notification"})


def _specific(event_name: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event_name, **fields}}


def _stop(reason: str) -> dict[str, Any]:
    return {"continue": False, "stopReason": reason}


def whole_input(original: Any, updated: dict[str, Any] | None, drop: set[str]) -> dict[str, Any]:
    """Claude Code replaces the tool input with updatedInput (omitted fields are dropped), so
    the answer is the original input with the policies' fields laid over it, minus the
    aliases preprocessing added (`drop`) unless Claude Code sent them."""
    base = dict(original) if isinstance(original, dict) else {}
    for key, value in (updated or {}).items():
        if key in drop and key not in base:
            continue
        base[key] = value
    return base


def _pre_tool_use(final: FinalDecision, event: dict[str, Any], drop: set[str]) -> dict[str, Any]:
    kind, reason = final.kind, final.reason or ""
    if kind in STOPPING:
        out = _specific("PreToolUse", permissionDecision="deny", permissionDecisionReason=reason)
        return {**_stop(reason), **out} if kind == "halt" else out
    if kind == "ask":
        out = _specific("PreToolUse", permissionDecision="ask", permissionDecisionReason=reason)
        if final.updated_input:  # the sandboxed command: what runs when the user approves
            out["hookSpecificOutput"]["updatedInput"] = whole_input(event.get("tool_input"), final.updated_input, drop)
        return out
    if kind == "modify":
        out = _specific("PreToolUse", updatedInput=whole_input(event.get("tool_input"), final.updated_input, drop))
        if final.context:  # an allow the sandbox rewrote keeps its context
            out["hookSpecificOutput"]["additionalContext"] = "\n\n".join(final.context)
        return out
    return _context(final, "PreToolUse")


def _permission_request(final: FinalDecision) -> dict[str, Any]:
    if final.kind not in STOPPING:
        return {}
    decision: dict[str, Any] = {"behavior": "deny", "message": final.reason or ""}
    if final.kind == "halt":
        decision["interrupt"] = True
    return _specific("PermissionRequest", decision=decision)


def _context(final: FinalDecision, event_name: str) -> dict[str, Any]:
    if final.kind == "allow" and final.context and event_name in CONTEXT_EVENTS:
        return _specific(event_name, additionalContext="\n\n".join(final.context))
    return {}


def _feedback(final: FinalDecision, event_name: str) -> dict[str, Any]:
    """Events whose `decision: block` gives the model a reason (after the tool ran, instead
    of the prompt, instead of stopping)."""
    kind, reason = final.kind, final.reason or ""
    asks_block = event_name not in ("Stop", "SubagentStop", "PreCompact", "Notification")
    if kind == "halt":
        if event_name in ("Stop", "SubagentStop", "PreCompact", "Notification"):
            return _stop(reason)
        return {"decision": "block", "reason": reason, **_stop(reason)}
    if kind in STOPPING or (kind == "ask" and asks_block):
        return {"decision": "block", "reason": reason}
    return _context(final, event_name)


def claude_output(final: FinalDecision, event: dict[str, Any], drop: set[str] | None = None) -> dict[str, Any]:
    """The JSON Claude Code reads for `final` on `event` (see the table above)."""
    name = str(event.get("hook_event_name"))
    if name == "PreToolUse":
        return _pre_tool_use(final, event, drop or set())
    if name == "PermissionRequest":
        return _permission_request(final)
    if name in FEEDBACK_EVENTS:
        return _feedback(final, name)
    if name == "SessionStart":
        if final.kind in STOPPING or final.kind == "ask":
            return _stop(final.reason or "")
        return _context(final, name)
    return {}  # SessionEnd


def respond(final: FinalDecision, event: dict[str, Any], strict: bool, drop: set[str] | None = None) -> Answer:
    out = claude_output(final, event, drop)
    if strict and final.kind in STOPPING and event.get("hook_event_name") == "PreToolUse":
        return Answer(out, 2, final.reason or "denied by policy")
    return Answer(out, 0)


# Events where exit 2 would not stop anything useful (SessionStart: shown to the user only; Stop: the
# model keeps working, up to 8 times): a failure there ends the session instead.
STOP_ON_FAILURE = frozenset({"SessionStart", "Stop", "SubagentStop", "PreCompact", "Notification"})


def failure(message: str, event: Any) -> Answer:
    """Fail closed: exit 2 (Claude Code blocks the tool call / the prompt and shows stderr), plus the
    event's blocking JSON on stdout for readers other than Claude Code; for STOP_ON_FAILURE events
    `continue: false` (exit 0), which ends the session."""
    text = message if message.startswith("cupcake:") else f"cupcake: {message}"
    name = event.get("hook_event_name") if isinstance(event, dict) else None
    name = name if isinstance(name, str) else None  # a malformed event may carry any JSON value here
    if name in STOP_ON_FAILURE:
        return Answer(_stop(text), 0, text)
    if name == "PreToolUse":
        out = _specific("PreToolUse", permissionDecision="deny", permissionDecisionReason=text)
    elif name == "PermissionRequest":
        out = _specific("PermissionRequest", decision={"behavior": "deny", "message": text})
    else:
        out = {"decision": "block", "reason": text}
    return Answer(out, 2, text)
