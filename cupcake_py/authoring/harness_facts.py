"""What the lint rules know about the OpenCode harness and Cupcake's conventions: events,
the verb/event matrix, tool names and their argument names (from tool_map.json), and the
top-level fields of the input policies see."""

from __future__ import annotations

import functools

from cupcake_py.engine.routing import KNOWN_EVENTS, VERB_RULES
from cupcake_py.harness.opencode import data

VERBS = VERB_RULES
HARNESS_EVENTS: frozenset[str] = KNOWN_EVENTS
# Events of Cupcake's other harnesses (Claude Code, Cursor, Factory): valid names, never sent by OpenCode.
OTHER_HARNESS_EVENTS = frozenset({
    "UserPromptSubmit", "Stop", "SubagentStop", "Notification", "PreCompact", "SessionStart", "SessionEnd",
    "beforeShellExecution", "beforeMCPExecution", "afterFileEdit", "beforeReadFile", "beforeSubmitPrompt", "stop",
})
ALL_EVENTS = HARNESS_EVENTS | OTHER_HARNESS_EVENTS

# Cupcake's matrix: the verbs that have an effect for each event.
VERB_MATRIX: dict[str, frozenset[str]] = {
    "PreToolUse": frozenset({"halt", "deny", "block", "ask", "modify", "add_context"}),
    "PermissionRequest": frozenset({"halt", "deny", "block", "modify"}),
    "PostToolUse": frozenset({"halt", "block", "add_context"}),
    "Stop": frozenset({"halt", "block"}),
    "SubagentStop": frozenset({"halt", "block"}),
    "Notification": frozenset({"halt", "block"}),
    "UserPromptSubmit": frozenset({"halt", "block", "add_context"}),
    "SessionStart": frozenset({"add_context"}),
    "PreCompact": frozenset({"add_context"}),
    "SessionEnd": frozenset(),
}

SEVERITIES = ("LOW", "MEDIUM", "HIGH", "CRITICAL")
DECISION_REQUIRED = ("reason", "severity", "rule_id")
MODIFY_REQUIRED = ("reason", "rule_id", "updated_input")
DECISION_FIELDS = frozenset({"reason", "severity", "rule_id", "agent_context", "question"})
MODIFY_FIELDS = frozenset({"reason", "severity", "rule_id", "agent_context", "updated_input", "priority"})

# Tools that existed in older OpenCode (or Claude Code) but are not in OpenCode 1.18.33.
LEGACY_TOOLS = frozenset({"List", "Patch", "TodoRead", "MultiEdit", "NotebookEdit", "Batch", "CodeSearch"})

# Top-level input fields: the event as sent (event.schema.json) plus the engine's enrichment.
ENRICHED_FIELDS = frozenset({
    "tool_name", "tool_input", "tool_response", "resolved_file_path", "original_file_path", "is_symlink",
    "affected_parent_directories", "executed_script_path", "executed_script_content",
    "script_inspection_performed", "executed_scripts", "affected_files", "patch_operations", "signals",
    "builtin_config", "shell", "tool_paths", "link_uncertain", "secrets_below", "cupcake_routed",
    "history",  # the engine's `history` signal (docs/governance.md)
})


@functools.cache
def tool_names() -> dict[str, str]:
    """tool_name (as policies see it) -> OpenCode tool id, for the mapped built-in tools."""
    return {name: tool for tool, name in data.tool_map()["map"].items()}


@functools.cache
def tool_args() -> dict[str, frozenset[str]]:
    """tool_name -> every argument name OpenCode sends for that tool."""
    out: dict[str, frozenset[str]] = {}
    args = data.tool_map()["tool_args"]
    for name, tool in tool_names().items():
        spec = args.get(tool)
        if spec is not None:
            out[name] = frozenset(spec.get("required", {})) | frozenset(spec.get("optional", {}))
    return out


@functools.cache
def input_fields() -> frozenset[str]:
    return frozenset(data.event_schema()["properties"]) | ENRICHED_FIELDS


def current_tools() -> frozenset[str]:
    """tool_name values OpenCode 1.18 really sends for its built-in tools."""
    return frozenset(tool_names()) - LEGACY_TOOLS
