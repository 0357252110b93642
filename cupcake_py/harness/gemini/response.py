"""Gemini CLI's hook output (stdout JSON, exit 0) for a final decision, and the fail-closed answer.
Gemini has its own format (a Claude-shaped `hookSpecificOutput.permissionDecision` is silently
ignored: the tool would run); only fields its hook reference documents are written.

| event (policies see)        | halt                             | deny / block         | ask                  | modify                           | allow (+context)       |
| BeforeTool (PreToolUse)     | decision deny + reason,          | decision deny +      | the ask fallback     | decision allow +                 | {} (context: written as|
|                             | continue false + stopReason      | reason               | (default deny; Gemini| hookSpecificOutput.tool_input =  | additionalContext, but |
|                             | (the agent loop ends)            |                      | headless would hang) | the WHOLE input                  | Gemini 0.61 drops it)  |
| AfterTool (PostToolUse)     | deny + reason, continue false    | decision deny + reason (replaces the tool output the model sees) | {}                  | additionalContext      |
| BeforeAgent (UserPromptSubmit)| deny + reason, continue false  | decision deny + reason (the prompt is discarded)                 | {}                  | additionalContext      |
| AfterAgent (Stop)           | continue false + stopReason      | decision deny + reason (the model retries with it) ; ask: {}     | {}                  | {}                     |
| SessionStart                | systemMessage (advisory only: Gemini never blocks start-up)                                          | {}                  | additionalContext      |
| SessionEnd, Notification, PreCompress | {} (observability only)                                                                    |

Exit status: 0 with the JSON; `--strict`: BeforeTool deny/block/halt exit 2 with the reason on stderr.
Failures: exit 2 with the reason on stderr (BeforeTool/AfterTool/BeforeAgent: blocked) and the deny JSON on
stdout; AfterAgent (where exit 2 would make the model retry forever): `continue: false` with exit 0.
"""

from __future__ import annotations

from cupcake_py.engine.harness_api import Answer
from cupcake_py.harness.hook_agent import STOPPING, ask_fallback, nonempty

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cupcake_py.engine.synthesis import FinalDecision
    from cupcake_py.harness.hook_agent import Call, ToolTable


def _deny(reason: str) -> dict[str, Any]:
    return {"decision": "deny", "reason": nonempty(reason)}


def _halt(reason: str) -> dict[str, Any]:
    return {**_deny(reason), "continue": False, "stopReason": nonempty(reason)}


def _context(final: FinalDecision, name: str) -> dict[str, Any]:
    if final.kind == "allow" and final.context:
        return {"hookSpecificOutput": {"hookEventName": name, "additionalContext": "\n\n".join(final.context)}}
    return {}


def _before_tool(final: FinalDecision, call: Call, table: ToolTable) -> dict[str, Any]:
    kind, reason = final.kind, final.reason or ""
    if kind == "halt":
        return _halt(reason)
    if kind in STOPPING:
        return _deny(reason)
    if kind == "ask":
        if ask_fallback() == "allow":  # runs: with the input the decision carries (the sandboxed command)
            return _modified(final, call, table) if final.updated_input else {}
        return _deny(f"{nonempty(reason, 'this call needs approval')} (Gemini CLI cannot ask for approval from a "
                     "hook without hanging a headless run, so cupcake denies it; CUPCAKE_ASK_FALLBACK=allow lets "
                     "such calls run)")
    if kind == "modify":
        return _modified(final, call, table)
    return _context(final, "BeforeTool")


def _modified(final: FinalDecision, call: Call, table: ToolTable) -> dict[str, Any]:
    return {"decision": "allow", "hookSpecificOutput": {
        "hookEventName": "BeforeTool", "tool_input": table.agent_args(call.tool, call.args, final.updated_input)}}


def gemini_output(final: FinalDecision, call: Call, table: ToolTable) -> dict[str, Any]:
    name = call.agent_event
    kind, reason = final.kind, final.reason or ""
    if name == "BeforeTool":
        return _before_tool(final, call, table)
    if name in ("AfterTool", "BeforeAgent"):
        if kind == "halt":
            return _halt(reason)
        if kind in STOPPING or kind == "ask":
            return _deny(reason)
        return _context(final, name)
    if name == "AfterAgent":
        if kind == "halt":
            return {"continue": False, "stopReason": nonempty(reason)}
        return _deny(reason) if kind in STOPPING else {}
    if name == "SessionStart":
        if kind in STOPPING or kind == "ask":
            return {"systemMessage": nonempty(reason)}
        return _context(final, name)
    return {}


def respond(final: FinalDecision, event: dict[str, Any], call: Call, table: ToolTable, strict: bool) -> Answer:
    out = gemini_output(final, call, table)
    if strict and final.kind in STOPPING and event.get("hook_event_name") == "BeforeTool":
        return Answer(out, 2, nonempty(final.reason))
    return Answer(out, 0)


def failure(text: str, event: Any) -> Answer:
    name = event.get("hook_event_name") if isinstance(event, dict) else None
    name = name if isinstance(name, str) else None  # a malformed event may carry any JSON value here
    if name == "AfterAgent":
        return Answer({"continue": False, "stopReason": text}, 0, text)
    return Answer(_deny(text), 2, text)
