"""Shared by the governance tests: settings, rows and a fresh database per test."""

from __future__ import annotations

from typing import Any

from cupcake_py.governance.audit import evaluation_row

SETTINGS: dict[str, Any] = {"mode": "on", "retention_days": 30, "max_rows": 200_000, "write_budget_ms": 2000,
                            "history_last_n": 10, "windows": [1, 5, 60], "timeout_rules": {"BUILTIN-ESCALATION": 600}}


def row(now: float, *, session: str = "s1", command: str = "ls", decision: str = "allow",
        rules: tuple[str, ...] = (), project: str = "/p", event: str = "PreToolUse", tool: str = "Bash",
        reason: str | None = None) -> dict[str, Any]:
    ev = {"hook_event_name": event, "session_id": session, "cwd": project, "tool": tool.lower(),
          "tool_name": tool, "tool_input": {"command": command}}
    return evaluation_row(ev, "opencode", project, decision, list(rules), reason, None, {"total": 0.01}, "k", now)


def event(command: str = "ls", session: str = "s1", tool: str = "Bash") -> dict[str, Any]:
    return {"hook_event_name": "PreToolUse", "session_id": session, "cwd": "/p", "tool": tool.lower(),
            "tool_name": tool, "tool_input": {"command": command}}
