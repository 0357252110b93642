"""Cursor's hook output (stdout JSON) for a final decision, and the fail-closed answer, as the AnswerTable
`ANSWERS` (answers.py), per Cursor's DOCUMENTED contract (not verified against a running Cursor; docs/cursor.md):

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

from cupcake_py.harness.answers import (
                                        ASK_DENIED,
                                        CONTEXT,
                                        FEEDBACK,
                                        INPUT,
                                        REASON,
                                        REFUSED,
                                        AnswerTable,
                                        EventAnswers,
)

# The JSON every Cursor event form reads as blocking.
BLOCKING = {"permission": "deny", "continue": False, "user_message": REASON, "agent_message": REASON}
DENY = {"permission": "deny", "user_message": REASON, "agent_message": REASON}
ASK = {"permission": "ask", "user_message": REASON, "agent_message": REASON}
ALLOW = {"permission": "allow"}

ANSWERS = AnswerTable(
    (EventAnswers(("preToolUse",), deny=DENY, ask=ASK, modify={"permission": "allow", "updated_input": INPUT},
                  allow=ALLOW, failure=BLOCKING),
     EventAnswers(("beforeShellExecution", "beforeMCPExecution", "subagentStart"), deny=DENY, ask=ASK, modify=REFUSED,
                  allow=ALLOW, failure=BLOCKING),
     EventAnswers(("beforeReadFile", "beforeTabFileRead"), deny=DENY, modify=REFUSED, allow=ALLOW, failure=BLOCKING),
     EventAnswers(("beforeSubmitPrompt",), deny={"continue": False, "user_message": REASON}, allow={"continue": True},
                  failure=BLOCKING),
     EventAnswers(("stop", "subagentStop"), deny={"followup_message": REASON}, allow={}, failure=BLOCKING),
     EventAnswers(("sessionStart", "postToolUse", "postToolUseFailure"), deny={"additional_context": FEEDBACK},
                  allow={"additional_context": CONTEXT}, failure=BLOCKING)),
    EventAnswers((), deny={}, allow={}, failure=BLOCKING),
    ask_denied=ASK_DENIED,
    refused="{reason} (cupcake: a policy rewrote this call, but Cursor's {event} cannot run a rewritten call, so it is "
            "denied)")
