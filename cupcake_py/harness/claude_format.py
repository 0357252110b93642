"""Answers in Claude Code's hook format for the agents that copied it (Codex CLI, Qwen Code), with the
differences each one measured (shared/reference/codex.md, qwen-code.md): the rows both share, and `table`, which
makes an agent's AnswerTable (answers.py) from its PreToolUse row.

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

from cupcake_py.harness.answers import (
    CONTEXT,
    EVENT,
    GIVEN_INPUT,
    INPUT,
    REASON,
    REFUSED,
    AnswerTable,
    EventAnswers,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def specific(event: Any, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, **fields}}


DENY = specific("PreToolUse", permissionDecision="deny", permissionDecisionReason=REASON)
ASK = specific("PreToolUse", permissionDecision="ask", permissionDecisionReason=REASON, updatedInput=GIVEN_INPUT)
MODIFY = specific("PreToolUse", updatedInput=INPUT)
MODIFY_WITH_ALLOW = specific("PreToolUse", permissionDecision="allow", updatedInput=INPUT)
CONTEXT_FORM = specific(EVENT, additionalContext=CONTEXT)
BLOCK = {"decision": "block", "reason": REASON}
STOP = {"continue": False, "stopReason": REASON}
PERMISSION_DENY = specific("PermissionRequest", decision={"behavior": "deny", "message": REASON})
# Where exit 2 would stop nothing (SessionStart) or make the model go on (Stop): a failure ends the session.
ROWS = (
    EventAnswers(("PermissionRequest",), deny=PERMISSION_DENY, ask={}, allow={}, failure=PERMISSION_DENY),
    EventAnswers(("PostToolUse", "PostToolUseFailure", "UserPromptSubmit"), deny=BLOCK, ask=BLOCK, modify={},
                 allow=CONTEXT_FORM, failure=BLOCK),
    EventAnswers(("Stop", "SubagentStop"), halt=STOP, deny=BLOCK, ask={}, allow={}, failure=STOP, failure_exit=0),
    EventAnswers(("SessionStart",), deny=STOP, ask=STOP, modify={}, allow=CONTEXT_FORM, failure=STOP, failure_exit=0),
)
OTHER = EventAnswers((), deny={}, ask={}, allow={}, failure=BLOCK)


def table(agent: str, *, can_ask: bool, can_rewrite: bool, modify_needs_allow: bool) -> AnswerTable:
    """The answers of `agent` (its name in the texts): its PreToolUse row from what it measured, the rest shared."""
    modify = (MODIFY_WITH_ALLOW if modify_needs_allow else MODIFY) if can_rewrite else REFUSED
    pre_tool = EventAnswers(("PreToolUse",), deny=DENY, ask=ASK if can_ask else None, modify=modify,
                            allow=CONTEXT_FORM, failure=DENY)
    return AnswerTable((pre_tool, *ROWS), OTHER, reason_default="denied by policy", ask_default="this call needs approval",
                       ask_denied=f"{{reason}} ({agent} hooks cannot ask for approval, so cupcake denies it; "
                                  "CUPCAKE_ASK_FALLBACK=allow lets such calls run)",
                       refused=f"the policy allows this call only with a rewritten input ({{input}}), which {agent} "
                               "cannot apply; denied instead of running the original",
                       strict_events=("PreToolUse",))
