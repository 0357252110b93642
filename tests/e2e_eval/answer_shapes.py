"""The one classifier of the hook agents' answers (Claude Code and the agents that copied its format, Gemini
CLI, Copilot CLI, Factory Droid, Cline, Cursor): expected JSON + exit status in, the answer's shape out, in
one vocabulary for every agent (the example suites check that each agent's case set covers its shapes).

Shapes: `fail` (exit 2); `halt` (`continue: false` NEXT TO a deny or block decision: the call is refused
and the session ends, e.g. Claude Code's PreToolUse halt); `deny` / `ask` (a permission decision: Claude's
`hookSpecificOutput.permissionDecision`, Copilot's `permissionDecision`, Cursor's `permission`; Gemini's
`decision: deny`); `modify` (a rewritten input: updatedInput, tool_input, modifiedArgs, overrideInput,
updated_input); `permission-deny` (an answer to a permission request: Claude's `decision.behavior`,
Copilot's `behavior`); `block` (`decision: block`, or Cursor's `followup_message`: the model goes on with the
reason); `cancel` (Cline: the task ends); `stop` (`continue: false` alone); `context` (text added for the
model: additionalContext, contextModification, additional_context); `message` (Gemini's systemMessage);
`allow` (nothing that stops or adds: `{}`, `permission: allow`, `cancel: false`, `continue: true`).
"""

from __future__ import annotations

from typing import Any

MODIFY_KEYS = ("updatedInput", "tool_input", "modifiedArgs", "overrideInput", "updated_input")
CONTEXT_KEYS = ("additionalContext", "contextModification", "additional_context")


def shape(expect: dict[str, Any], exit_code: int) -> str:
    if exit_code == 2:
        return "fail"
    specific = expect.get("hookSpecificOutput") or {}
    assert isinstance(specific, dict)
    both = {**expect, **specific}
    decision = specific.get("permissionDecision") or expect.get("permissionDecision") or expect.get("permission")
    if expect.get("continue") is False and (decision == "deny" or expect.get("decision") in ("deny", "block")):
        return "halt"
    if decision in ("deny", "ask"):
        return str(decision)
    if any(k in both for k in MODIFY_KEYS):
        return "modify"
    if "decision" in specific or expect.get("behavior") == "deny":
        return "permission-deny"
    if expect.get("decision") == "block" or "followup_message" in expect:
        return "block"
    if expect.get("decision") == "deny":
        return "deny"
    if expect.get("cancel") is True:
        return "cancel"
    if expect.get("continue") is False:
        return "stop"
    if any(k in both for k in CONTEXT_KEYS):
        return "context"
    return "message" if "systemMessage" in expect else "allow"
