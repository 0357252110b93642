"""Cline's hook output (stdout JSON; the exit status is ignored by Cline) for a final decision, and the
fail-closed answer. Cline's parser reads only objects with `cancel`, `review`, `context`,
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

from cupcake_py.engine.harness_api import Answer
from cupcake_py.harness.hook_agent import STOPPING, ask_reason, effective_kind

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cupcake_py.engine.synthesis import FinalDecision
    from cupcake_py.harness.hook_agent import Call, ToolTable

CANCELLING = frozenset({"PreToolUse", "UserPromptSubmit", "TaskStart", "TaskResume"})
CONTEXT_EVENTS = frozenset({"PreToolUse", "PostToolUse", "UserPromptSubmit", "TaskStart", "TaskResume"})


def cancel(reason: str) -> dict[str, Any]:
    return {"cancel": True, "errorMessage": reason}


def _go_on(final: FinalDecision, event: str) -> dict[str, Any]:
    if final.context and event in CONTEXT_EVENTS:
        return {"cancel": False, "contextModification": "\n\n".join(final.context)}
    return {"cancel": False}


def cline_output(final: FinalDecision, call: Call, table: ToolTable) -> dict[str, Any]:
    event = call.agent_event
    kind = effective_kind(final.kind, can_ask=False)
    reason = final.reason or ""
    if final.kind == "ask" and kind == "deny":
        reason = ask_reason(reason)
    if kind == "halt" or (kind in STOPPING and event in CANCELLING):
        return cancel(reason)
    if kind in STOPPING and event == "PostToolUse":
        return {"cancel": False, "contextModification": f"cupcake: {reason}"}
    if event == "PreToolUse" and final.updated_input and call.tool is not None and kind in ("modify", "allow"):
        out = {"cancel": False, "overrideInput": table.agent_args(call.tool, call.args, final.updated_input)}
        return {**out, **({"contextModification": "\n\n".join(final.context)} if final.context else {})}
    return _go_on(final, event)


def respond(final: FinalDecision, event: dict[str, Any], call: Call, table: ToolTable, strict: bool) -> Answer:
    return Answer(cline_output(final, call, table), 0)


def failure(message: str, event: Any) -> Answer:
    return Answer(cancel(message), 2, message)
