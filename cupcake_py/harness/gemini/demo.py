"""`make demo` for the gemini harness: the example events of harness/gemini/examples through the real
`cupcake eval --harness gemini`, with Gemini CLI's answers summarised as decision -> reason."""

from __future__ import annotations

import sys
from typing import Any

from cupcake_py.harness.demo import main


def gemini_answer(resp: Any) -> tuple[str, str]:
    if not isinstance(resp, dict):
        return "?", str(resp)
    specific = resp.get("hookSpecificOutput") or {}
    if resp.get("continue") is False:
        return ("halt" if resp.get("decision") == "deny" else "stop"), str(resp.get("stopReason", ""))
    if resp.get("decision") == "deny":
        return "deny", str(resp.get("reason", ""))
    if "tool_input" in specific:
        return "modify", f"→ input {specific['tool_input']}"
    if "additionalContext" in specific:
        return "allow", "context: " + str(specific["additionalContext"])
    if "systemMessage" in resp:
        return "notice", str(resp["systemMessage"])
    return "allow", ""


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:], "gemini", gemini_answer, " (Gemini CLI)"))
