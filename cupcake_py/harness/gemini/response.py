"""Gemini CLI's hook output (stdout JSON, exit 0) for a final decision, and the fail-closed answer, as the
AnswerTable `ANSWERS` (answers.py).
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

from cupcake_py.harness.answers import CONTEXT, EVENT, INPUT, REASON, AnswerTable, EventAnswers

DENY = {"decision": "deny", "reason": REASON}
HALT = {**DENY, "continue": False, "stopReason": REASON}
STOP = {"continue": False, "stopReason": REASON}
CONTEXT_FORM = {"hookSpecificOutput": {"hookEventName": EVENT, "additionalContext": CONTEXT}}
MODIFY = {"decision": "allow", "hookSpecificOutput": {"hookEventName": "BeforeTool", "tool_input": INPUT}}

ANSWERS = AnswerTable(
    (EventAnswers(("BeforeTool",), halt=HALT, deny=DENY, modify=MODIFY, allow=CONTEXT_FORM, failure=DENY),
     EventAnswers(("AfterTool", "BeforeAgent"), halt=HALT, deny=DENY, ask=DENY, modify={}, allow=CONTEXT_FORM,
                  failure=DENY),
     # exit 2 on AfterAgent would make the model retry forever: a failure ends the session instead
     EventAnswers(("AfterAgent",), halt=STOP, deny=DENY, ask={}, allow={}, failure=STOP, failure_exit=0),
     EventAnswers(("SessionStart",), deny={"systemMessage": REASON}, ask={"systemMessage": REASON}, modify={},
                  allow=CONTEXT_FORM, failure=DENY)),
    EventAnswers((), deny={}, ask={}, allow={}, failure=DENY),
    reason_default="denied by policy", ask_default="this call needs approval",
    ask_denied="{reason} (Gemini CLI cannot ask for approval from a hook without hanging a headless run, so cupcake "
               "denies it; CUPCAKE_ASK_FALLBACK=allow lets such calls run)",
    strict_events=("BeforeTool",))
