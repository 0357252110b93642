"""GitHub Copilot CLI's hook output (stdout JSON) for a final decision, and the fail-closed answer, as the
AnswerTable `ANSWERS` (answers.py).
Forms measured with the real Copilot CLI 1.0.102 (tests/e2e_chat, docs/copilot-cli.md):

| event                | halt / deny / block                 | ask                                | modify                 | allow (+context)   |
| preToolUse           | permissionDecision deny + reason    | permissionDecision ask + reason    | modifiedArgs = the     | additionalContext  |
|                      | (the model gets "Denied by          | (headless: denied, reason to the   | WHOLE args (Copilot    | (or {})            |
|                      | preToolUse hook: <reason>")         | model; interactive: Copilot asks)  | replaces them)         |                    |
| permissionRequest    | behavior deny + message             | {} (Copilot's own prompt decides)  | {}                     | {}                 |
| userPromptSubmitted  | decision block + reason (the prompt is not sent; `copilot -p` exits 1)    | {}                     | additionalContext  |
| postToolUse          | additionalContext "cupcake: <reason>" (the tool already ran)              | {}                     | additionalContext  |
| sessionStart         | decision block + reason (not verified to stop anything: Copilot has no    | {}                     | additionalContext  |
| agentStop,           | session stop a hook can ask for that was measured)                        |                        |                    |
| subagentStop         |                                                                           |                        |                    |
| sessionEnd, errorOccurred, notification | {}                                                     |                        |                    |

Exit 0 with the JSON above. Failure: exit 2 and one JSON object that blocks on every event at once
(`permissionDecision: deny` for tools, `decision: block` for prompts, `behavior: deny` for permission
requests, each with the reason): Copilot reads the JSON of an exit-2 hook (measured) and blocks.
"""

from __future__ import annotations

from cupcake_py.harness.answers import (
            CONTEXT,
            FEEDBACK,
            GIVEN_INPUT,
            INPUT,
            REASON,
            AnswerTable,
            EventAnswers,
)

# The one JSON object every Copilot event treats as blocking (see the table).
BLOCKING = {"permissionDecision": "deny", "permissionDecisionReason": REASON, "decision": "block", "reason": REASON,
            "behavior": "deny", "message": REASON}
BLOCK = {"decision": "block", "reason": REASON}
CONTEXT_FORM = {"additionalContext": CONTEXT}

ANSWERS = AnswerTable(
    (EventAnswers(("preToolUse",), deny={"permissionDecision": "deny", "permissionDecisionReason": REASON},
                  ask={"permissionDecision": "ask", "permissionDecisionReason": REASON, "modifiedArgs": GIVEN_INPUT},
                  modify={"modifiedArgs": INPUT, "additionalContext": CONTEXT}, allow=CONTEXT_FORM, failure=BLOCKING),
     EventAnswers(("permissionRequest",), deny={"behavior": "deny", "message": REASON}, ask={}, allow={},
                  failure=BLOCKING),
     EventAnswers(("postToolUse",), deny={"additionalContext": FEEDBACK}, ask={"additionalContext": FEEDBACK},
                  allow=CONTEXT_FORM, failure=BLOCKING),
     EventAnswers(("userPromptSubmitted",), deny=BLOCK, ask=BLOCK, allow=CONTEXT_FORM, failure=BLOCKING),
     EventAnswers(("sessionStart",), deny=BLOCK, ask=CONTEXT_FORM, allow=CONTEXT_FORM, failure=BLOCKING),
     EventAnswers(("agentStop", "subagentStop"), deny=BLOCK, ask={}, allow={}, failure=BLOCKING)),
    EventAnswers((), deny={}, ask={}, allow={}, failure=BLOCKING),
    ask_denied="{reason}")  # never used: Copilot asks wherever it reads an answer

