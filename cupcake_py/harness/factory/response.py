"""Factory Droid's hook output (Claude Code's JSON, stdout, exit 0) for a final decision, and the
fail-closed answer, as the AnswerTable `ANSWERS` (answers.py). Forms measured with the real droid 0.225.2 (tests/e2e_chat, docs/factory-droid.md):

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

Failure: on PreToolUse, PostToolUse and UserPromptSubmit exit 2 with the reason on stderr and
the event's blocking JSON on stdout (Droid reads the JSON of an exit-2 hook: the model gets "Error:
<reason>", measured); on every other event `continue: false` (exit 0), which ends the session (exit 2 on
Stop would make Droid keep working without end). An event too broken to name gets the PreToolUse deny.
"""

from __future__ import annotations

from cupcake_py.harness.answers import (
                                        ASK_DENIED,
                                        CONTEXT,
                                        EVENT,
                                        FEEDBACK,
                                        GIVEN_INPUT,
                                        REASON,
                                        AnswerTable,
                                        EventAnswers,
)

STOP = {"continue": False, "stopReason": REASON}
BLOCK = {"decision": "block", "reason": REASON}
DENY = {"hookSpecificOutput": {"hookEventName": EVENT, "permissionDecision": "deny", "permissionDecisionReason": REASON}}
CONTEXT_FORM = {"hookSpecificOutput": {"hookEventName": EVENT, "additionalContext": CONTEXT}}
POST_BLOCK = {**BLOCK, "hookSpecificOutput": {"hookEventName": EVENT, "additionalContext": FEEDBACK}}

ANSWERS = AnswerTable(
    (EventAnswers(("PreToolUse",), halt={**STOP, **DENY}, deny=DENY,
                  modify={"hookSpecificOutput": {"hookEventName": EVENT, "updatedInput": GIVEN_INPUT}},
                  allow=CONTEXT_FORM, failure=DENY),
     EventAnswers(("PostToolUse",), halt={**POST_BLOCK, **STOP}, deny=POST_BLOCK, allow=CONTEXT_FORM, failure=BLOCK),
     EventAnswers(("UserPromptSubmit",), halt={**BLOCK, **STOP}, deny=BLOCK, allow=CONTEXT_FORM, failure=BLOCK),
     # exit 2 on any other event would make Droid keep working: a failure ends the session (exit 0)
     EventAnswers(("SessionStart",), deny=STOP, allow=CONTEXT_FORM, failure=STOP, failure_exit=0),
     # Droid has no cap on blocked stops (measured: it looped until killed): block only the first
     EventAnswers(("Stop", "SubagentStop"), halt=STOP, deny={}, allow={}, failure=STOP, failure_exit=0,
                  when="stop_hook_active"),
     EventAnswers(("Stop", "SubagentStop"), halt=STOP, deny=BLOCK, allow={}, failure=STOP, failure_exit=0)),
    EventAnswers((), deny={}, allow={}, failure=STOP, failure_exit=0),
    ask_denied=ASK_DENIED, unnamed="PreToolUse")
