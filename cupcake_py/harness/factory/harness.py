"""The Factory Droid harness (`cupcake eval --harness factory`; protocol: engine/harness_api.py, shared
parts: cupcake_py/harness/hook_agent.py).

Events (droid 0.225.2, `.factory/hooks.json` or `~/.factory/hooks.json`): Claude Code's shape
(hook_event_name, session_id, cwd, tool_name, tool_input, tool_response as a string) with Droid's tool
names and arguments (Execute for the shell, Create for new files, old_str/new_str). Answers: response.py.
Droid runs the tool when a hook exits 1, times out or prints invalid JSON, and its `ask` lets the tool run
in `droid exec`, so install.py's hook maps every failure to exit 2 and an ask becomes the fallback.
"""

from __future__ import annotations

from cupcake_py.harness.factory import response
from cupcake_py.harness.hook_agent import HookAgent

TOOL_EVENTS = ("PreToolUse", "PostToolUse")
OTHER_EVENTS = ("UserPromptSubmit", "SessionStart", "Stop", "SubagentStop", "SessionEnd", "Notification", "PreCompact")

HARNESS = HookAgent("factory", "Factory Droid", {e: e for e in TOOL_EVENTS + OTHER_EVENTS},
                    {"can_ask": False, "can_rewrite_shell": True, "can_deny_tool": True, "subagent_calls_hooked": False},
                    response.ANSWERS, tool_events=frozenset(TOOL_EVENTS), binaries=("droid",),
                    canary_args={"summary": "cupcake verify canary", "riskLevel": "low", "riskLevelReason": "a canary"})
