"""Cline's hook output (stdout JSON; the exit status is ignored by Cline) for a final decision, and the
fail-closed answer, as the AnswerTable `ANSWERS` (answers.py). Cline's parser reads only objects with `cancel`, `review`, `context`,
`contextModification`, `overrideInput` or `errorMessage`; forms measured with the real Cline 3.0.65
(tests/e2e_chat, docs/cline.md):

| event                      | halt / deny / block                        | ask              | modify                    | allow (+context)          |
| PreToolUse                 | cancel true + errorMessage: the tool does  | the fallback     | overrideInput = the WHOLE | contextModification       |
|                            | not run and THE WHOLE TASK ENDS (Cline has | (default: deny = | input (Cline replaces it; | (or cancel false)         |
|                            | no per-call deny; the model gets nothing)  | cancel)          | run_commands measured)    |                           |
| PostToolUse                | halt: cancel; deny/block: contextModification "cupcake: <reason>" (the tool ran; feedback, the task goes on) |
| UserPromptSubmit,          | cancel true + errorMessage                 | fallback         | —                         | contextModification       |
| TaskStart, TaskResume      |                                            |                  |                           |                           |
| TaskComplete, TaskCancel,  | halt: cancel true; otherwise cancel false                                                                 |
| TaskError, PreCompact,     |                                                                                                           |
| SessionShutdown            |                                                                                                           |

Failure: `{"cancel": true, "errorMessage": <reason>}` (exit 2 for other readers; Cline only reads stdout).
"""

from __future__ import annotations

from cupcake_py.harness.answers import (
                                        ASK_DENIED,
                                        CONTEXT,
                                        FEEDBACK,
                                        GIVEN_INPUT,
                                        REASON,
                                        AnswerTable,
                                        EventAnswers,
)

CANCEL = {"cancel": True, "errorMessage": REASON}
GO_ON = {"cancel": False, "contextModification": CONTEXT}

ANSWERS = AnswerTable(
    (EventAnswers(("PreToolUse",), deny=CANCEL, modify={"cancel": False, "overrideInput": GIVEN_INPUT,
                                                        "contextModification": CONTEXT}, allow=GO_ON, failure=CANCEL),
     EventAnswers(("UserPromptSubmit", "TaskStart", "TaskResume"), deny=CANCEL, allow=GO_ON, failure=CANCEL),
     EventAnswers(("PostToolUse",), halt=CANCEL, deny={"cancel": False, "contextModification": FEEDBACK}, allow=GO_ON,
                  failure=CANCEL)),
    EventAnswers((), halt=CANCEL, deny={"cancel": False}, allow={"cancel": False}, failure=CANCEL),
    ask_denied=ASK_DENIED)

