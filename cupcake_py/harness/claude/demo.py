"""`make demo` for Claude Code: the example events of harness/claude/examples through the real
`cupcake eval --harness claude`, with Claude Code's answers summarised as decision → reason (the
table itself: cupcake_py/harness/demo.py)."""

from __future__ import annotations

import sys
from typing import Any

from cupcake_py.harness.demo import main


def claude_answer(resp: Any) -> tuple[str, str]:
    """(decision, detail) from Claude Code's hook JSON."""
    if not isinstance(resp, dict):
        return "?", str(resp)
    specific = resp.get("hookSpecificOutput") or {}
    notes = []
    if resp.get("continue") is False:
        notes.append("[session stops]")
    if "permissionDecision" in specific:
        decision, reason = specific["permissionDecision"], specific.get("permissionDecisionReason", "")
    elif "decision" in specific:
        decision, reason = specific["decision"]["behavior"], specific["decision"].get("message", "")
    elif resp.get("decision") == "block":
        decision, reason = "block", resp.get("reason", "")
    elif "updatedInput" in specific:
        decision, reason = "modify", f"→ input {specific['updatedInput']}"
    elif resp.get("continue") is False:
        decision, reason = "stop", resp.get("stopReason", "")
    else:
        decision, reason = "allow", ""
    if "additionalContext" in specific:
        reason = (reason + " context: " + specific["additionalContext"]).strip()
    return decision, " ".join([*notes, reason]).strip()


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:], "claude", claude_answer, " (Claude Code)"))
