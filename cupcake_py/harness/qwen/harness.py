"""The Qwen Code harness as the value `cupcake eval --harness qwen` hands to the engine (protocol:
cupcake_py/engine/harness_api.py; the shared machinery: cupcake_py/harness/hook_agent.py).

Events (Qwen Code 0.24.4, shared/reference/qwen-code.md): Claude Code's names (PreToolUse,
PostToolUse, PostToolUseFailure, PermissionRequest, UserPromptSubmit, SessionStart, SessionEnd, Stop,
SubagentStart, SubagentStop, Notification, PreCompact). Answers: Claude Code's format
(cupcake_py/harness/claude_format.py) with Qwen's limits: `updatedInput` is ignored (the ORIGINAL
input would run), so a policy's modify is answered as a deny naming the rewrite; `ask` is passed as
ask (headless in yolo mode Qwen treats it as a block); `continue:false` only blocks the one tool,
so a halt is remembered per session. Qwen runs the tool when a hook exits 1, times out or prints
invalid JSON; install.py wraps the command so every failure is exit 2.
"""

from __future__ import annotations

from cupcake_py.harness import claude_format
from cupcake_py.harness.hook_agent import HookAgent, mcp_from_context, mcp_from_name

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

EVENTS = {e: e for e in ("PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "UserPromptSubmit",
                         "SessionStart", "SessionEnd", "Stop", "SubagentStart", "SubagentStop", "Notification",
                         "PreCompact")}
ANSWERS = claude_format.table("Qwen Code", can_ask=True, can_rewrite=False, modify_needs_allow=False)


def _mcp(event: dict[str, Any]) -> dict[str, str] | None:
    return mcp_from_context(event) or mcp_from_name(str(event.get("tool_name", "")))


HARNESS = HookAgent("qwen", "Qwen Code", EVENTS,
                    {"can_rewrite_shell": False, "can_ask": True, "subagent_calls_hooked": True},
                    ANSWERS, halts=(frozenset({"PreToolUse", "PermissionRequest"}),
                                                                   "SessionEnd"),
                    mcp=_mcp, agent_args=False)
