"""The Gemini CLI harness as the value `cupcake eval --harness gemini` hands to the engine (protocol:
cupcake_py/engine/harness_api.py; the shared machinery: cupcake_py/harness/hook_agent.py).

Events (Gemini CLI 0.61.0, shared/reference/gemini-cli.md) and the names policies see:
BeforeTool -> PreToolUse, AfterTool -> PostToolUse, BeforeAgent -> UserPromptSubmit, AfterAgent -> Stop,
PreCompress -> PreCompact; SessionStart, SessionEnd, Notification unchanged (the original name is in
`input.agent_event`). Answers: response.py (Gemini's own `decision`/`reason` format). Gemini runs the
tool when a hook exits 1, times out or prints invalid JSON; install.py wraps the command so every
failure is exit 2.
"""

from __future__ import annotations

from cupcake_py.harness.gemini import response
from cupcake_py.harness.hook_agent import HookAgent, mcp_from_context

EVENTS = {"BeforeTool": "PreToolUse", "AfterTool": "PostToolUse", "BeforeAgent": "UserPromptSubmit",
          "AfterAgent": "Stop", "SessionStart": "SessionStart", "SessionEnd": "SessionEnd",
          "Notification": "Notification", "PreCompress": "PreCompact"}

HARNESS = HookAgent("gemini", "Gemini CLI", EVENTS,
                    {"can_rewrite_shell": True, "can_ask": False, "subagent_calls_hooked": True},
                    response.ANSWERS, halts=(frozenset({"BeforeTool"}), "SessionEnd"),
                    mcp=mcp_from_context, agent_args=False)
