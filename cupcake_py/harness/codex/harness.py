"""The Codex CLI harness as the value `cupcake eval --harness codex` hands to the engine (protocol:
cupcake_py/engine/harness_api.py; the shared machinery: cupcake_py/harness/hook_agent.py).

Events (Codex 0.171.0, shared/reference/codex.md): SessionStart, UserPromptSubmit, PreToolUse,
PostToolUse, PermissionRequest, Stop, SubagentStart/Stop, Pre/PostCompact, SessionEnd; Codex already
uses Claude Code's names, so they route unchanged. Answers: Claude Code's format with Codex's limits
(cupcake_py/harness/claude_format.py): no ask (the configured fallback, default deny), a modified
input needs `permissionDecision: allow`, a deny needs a reason, no `continue:false` next to a
PreToolUse deny (a halt is remembered per session instead). Codex runs the tool when a hook exits 1,
times out or prints anything it does not accept; install.py wraps the command so every failure is exit 2.
"""

from __future__ import annotations

from cupcake_py.harness import claude_format
from cupcake_py.harness.hook_agent import HookAgent, mcp_from_name

EVENTS = {e: e for e in ("SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "PermissionRequest", "Stop",
                         "SubagentStart", "SubagentStop", "PreCompact", "PostCompact", "SessionEnd")}
ANSWERS = claude_format.table("Codex", can_ask=False, can_rewrite=True, modify_needs_allow=True)

HARNESS = HookAgent("codex", "Codex CLI", EVENTS,
                    {"can_rewrite_shell": True, "can_ask": False, "subagent_calls_hooked": True},
                    ANSWERS, halts=(frozenset({"PreToolUse", "PermissionRequest"}),
                                                                   "SessionEnd"),
                    mcp=lambda e: mcp_from_name(str(e.get("tool_name", ""))), agent_args=False)
