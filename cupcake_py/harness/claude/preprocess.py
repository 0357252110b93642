"""What policies see for a Claude Code event: the event normalised, then enriched by the
harness-neutral cupcake_py/enrich/tool_call.py.

Added to a copy of the (validated) event; everything Claude Code sent stays:
- `harness: "claude"`.
- tool events (PreToolUse, PostToolUse, PostToolUseFailure, PermissionRequest):
  `tool` = Claude Code's own tool name, `tool_name` = the normalised one (Agent -> Task,
  others unchanged), `tool_input` = a copy in Claude Code's field names (file_path,
  old_string, notebook_path, ...) plus the OpenCode-named aliases of tool_map.json (Grep
  `glob` also as `include`); for Bash the `command` is whitespace-normalised.
  MCP tools (`mcp__<server>__<tool>`): `mcp: {server, tool}`.
- the neutral fields (resolved_file_path from file_path/notebook_path/path, Bash analysis):
  see cupcake_py/enrich/tool_call.py.
Other events (UserPromptSubmit `prompt`, Stop `stop_hook_active`, SessionStart `source`, ...)
pass as sent. The engine adds `signals` and `builtin_config`.
"""

from __future__ import annotations

from cupcake_py.core import jsonio
from cupcake_py.enrich.tool_call import PathHints, enrich_tool_call
from cupcake_py.harness.claude import data

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_hints: list[PathHints] = []


def hints() -> PathHints:
    if not _hints:
        _hints.append(PathHints(tuple(data.tool_map()["path_args"])))
    return _hints[0]


def added_aliases(tool_name: str, tool_input: dict[str, Any]) -> dict[str, str]:
    """alias -> Claude Code argument, for the aliases preprocessing adds to this input."""
    table: dict[str, str] = data.tool_map()["aliases"].get(tool_name, {})
    return {alias: arg for arg, alias in table.items() if arg in tool_input and alias not in tool_input}


def preprocess(event: dict[str, Any], *, script_inspection: bool = True) -> dict[str, Any]:
    """The enriched copy of a validated event."""
    out = dict(event)
    out["harness"] = "claude"
    out["harness_capabilities"] = {"can_rewrite_shell": True, "can_ask": True, "subagent_calls_hooked": True}
    raw = event.get("tool_name")
    if not isinstance(raw, str) or not isinstance(event.get("tool_input"), dict):
        return out
    tool_name = data.mapped_tool_name(raw)
    args: dict[str, Any] = jsonio.copy(event["tool_input"])
    for alias, arg in added_aliases(tool_name, args).items():
        args[alias] = args[arg]
    out["tool"] = raw
    out["tool_name"] = tool_name
    out["tool_input"] = args
    mcp = data.mcp_parts(raw)
    if mcp is not None:
        out["mcp"] = mcp
    return enrich_tool_call(out, hints(), script_inspection=script_inspection)
