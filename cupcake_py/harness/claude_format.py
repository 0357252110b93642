"""Answers in Claude Code's hook format for the agents that copied it (Codex CLI, Qwen Code), with the
differences each one measured (shared/reference/codex.md, qwen-code.md) as flags of `Dialect`.

| event                    | halt                        | deny / block          | ask                        | modify                         | allow (+context)   |
| PreToolUse               | permissionDecision deny +   | deny + reason         | dialect.can_ask: ask +     | can_rewrite: allow (Codex      | additionalContext  |
|                          | reason (no continue:false:  |                       | reason; else the ask       | needs it) + updatedInput = the | (or {})            |
|                          | Codex rejects it; the halt  |                       | fallback (default deny,    | WHOLE input; else deny: the    |                    |
|                          | is sticky: session_halts)   |                       | reason says so)            | agent would run the original   |                    |
| PermissionRequest        | decision.behavior deny + message                    | {}                         | {}                             | {}                 |
| PostToolUse(Failure)     | decision block + reason     | block + reason        | block + reason             | {}                             | additionalContext  |
| UserPromptSubmit         | decision block + reason     | block + reason        | block + reason             | {}                             | additionalContext  |
| SessionStart             | continue false + stopReason (every stopping verb and ask)                          | {}                             | additionalContext  |
| Stop / SubagentStop      | continue false + stopReason | decision block + reason (keep working)             | {}                             | {}                 |
| others                   | {}                                                                                                                   |

A deny always carries a non-empty reason (Codex runs the tool on a deny without one). Exit 0 with the
JSON; `--strict`: PreToolUse deny/block/halt exit 2 with the reason on stderr. Failures: exit 2 (both
agents block on it), the reason on stderr, the event's blocking JSON on stdout.
"""

from __future__ import annotations

from cupcake_py.core import jsonio
from cupcake_py.engine.harness_api import Answer
from cupcake_py.harness.hook_agent import STOPPING, ask_fallback, nonempty

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cupcake_py.engine.synthesis import FinalDecision
    from cupcake_py.harness.hook_agent import Call, ToolTable
CONTEXT_EVENTS = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit", "SessionStart"})
FEEDBACK_EVENTS = frozenset({"PostToolUse", "PostToolUseFailure", "UserPromptSubmit"})
STOP_EVENTS = frozenset({"Stop", "SubagentStop"})


class Dialect:
    __slots__ = ("agent", "can_ask", "can_rewrite", "modify_needs_allow")

    def __init__(self, agent: str, can_ask: bool, can_rewrite: bool, modify_needs_allow: bool) -> None:
        self.agent, self.can_ask, self.can_rewrite, self.modify_needs_allow = (agent, can_ask, can_rewrite,
                                                                               modify_needs_allow)

    def respond(self, final: FinalDecision, event: dict[str, Any], call: Call, table: ToolTable,
                strict: bool) -> Answer:
        return respond(self, final, event, call, table, strict)


def _specific(event_name: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event_name, **fields}}


def _deny(reason: str) -> dict[str, Any]:
    return _specific("PreToolUse", permissionDecision="deny", permissionDecisionReason=nonempty(reason))


def _context(final: FinalDecision, event_name: str) -> dict[str, Any]:
    if final.kind == "allow" and final.context and event_name in CONTEXT_EVENTS:
        return _specific(event_name, additionalContext="\n\n".join(final.context))
    return {}


def _pre_tool_use(d: Dialect, final: FinalDecision, call: Call, table: ToolTable) -> dict[str, Any]:
    kind, reason = final.kind, final.reason or ""
    if kind in STOPPING:
        return _deny(reason)
    if kind == "ask":
        if d.can_ask and not (final.updated_input and not d.can_rewrite):
            out = _specific("PreToolUse", permissionDecision="ask", permissionDecisionReason=nonempty(reason))
            if final.updated_input:  # what runs when the user approves (the sandboxed command)
                out["hookSpecificOutput"]["updatedInput"] = table.agent_args(call.tool, call.args, final.updated_input)
            return out
        if d.can_ask:  # approving would run the original, not the input the decision carries
            return _modified(d, final, call, table)
        if ask_fallback() == "allow":  # runs: with the input the decision carries (the sandboxed command)
            return _modified(d, final, call, table) if final.updated_input else {}
        return _deny(f"{nonempty(reason, 'this call needs approval')} ({d.agent} hooks cannot ask for approval, "
                     "so cupcake denies it; CUPCAKE_ASK_FALLBACK=allow lets such calls run)")
    if kind == "modify":
        return _modified(d, final, call, table)
    return _context(final, "PreToolUse")


def _modified(d: Dialect, final: FinalDecision, call: Call, table: ToolTable) -> dict[str, Any]:
    if not d.can_rewrite:
        rewritten = jsonio.dumps(final.updated_input or {}).decode("utf-8", "replace")
        return _deny(f"the policy allows this call only with a rewritten input ({rewritten}), which "
                     f"{d.agent} cannot apply; denied instead of running the original")
    updated = table.agent_args(call.tool, call.args, final.updated_input)
    if d.modify_needs_allow:
        return _specific("PreToolUse", permissionDecision="allow", updatedInput=updated)
    return _specific("PreToolUse", updatedInput=updated)


def output(d: Dialect, final: FinalDecision, event: dict[str, Any], call: Call, table: ToolTable) -> dict[str, Any]:
    name = str(event.get("hook_event_name"))
    kind, reason = final.kind, nonempty(final.reason)
    if name == "PreToolUse":
        return _pre_tool_use(d, final, call, table)
    if name == "PermissionRequest":
        if kind in STOPPING:
            return _specific("PermissionRequest", decision={"behavior": "deny", "message": reason})
        return {}
    if name in FEEDBACK_EVENTS:
        if kind in STOPPING or kind == "ask":
            return {"decision": "block", "reason": reason}
        return _context(final, name)
    if name in STOP_EVENTS:
        if kind == "halt":
            return {"continue": False, "stopReason": reason}
        if kind in STOPPING:
            return {"decision": "block", "reason": reason}
        return {}
    if name == "SessionStart":
        if kind in STOPPING or kind == "ask":
            return {"continue": False, "stopReason": reason}
        return _context(final, name)
    return {}


def respond(d: Dialect, final: FinalDecision, event: dict[str, Any], call: Call, table: ToolTable,
            strict: bool) -> Answer:
    out = output(d, final, event, call, table)
    if strict and final.kind in STOPPING and event.get("hook_event_name") == "PreToolUse":
        return Answer(out, 2, nonempty(final.reason))
    return Answer(out, 0)


# Where exit 2 would stop nothing (SessionStart) or make the model go on (Stop): end the session instead.
STOP_ON_FAILURE = frozenset({"SessionStart", "Stop", "SubagentStop"})


def failure(text: str, event: Any) -> Answer:
    """Fail closed: exit 2 (the tool call / the prompt is blocked, stderr is the reason `text`) plus the event's
    blocking JSON on stdout; STOP_ON_FAILURE events: `continue: false` (exit 0), which ends the session."""
    name = event.get("hook_event_name") if isinstance(event, dict) else None
    name = name if isinstance(name, str) else None  # a malformed event may carry any JSON value here
    if name in STOP_ON_FAILURE:
        return Answer({"continue": False, "stopReason": text}, 0, text)
    if name == "PreToolUse":
        out = _deny(text)
    elif name == "PermissionRequest":
        out = _specific("PermissionRequest", decision={"behavior": "deny", "message": text})
    else:
        out = {"decision": "block", "reason": text}
    return Answer(out, 2, text)
