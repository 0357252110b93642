"""What the lint rules know about each harness and Cupcake's conventions: events, the
verb/event matrix, tool names and their argument names (from each harness's tool_map.json),
and the top-level fields of the input policies see.

A policy file's harness is the directory it sits in (`policies/claude/**`, `policies/copilot/**`, …) or its
package (`cupcake.policies.claude.*`, …): those are linted against that agent (the hook-command agents with
the shared argument names their harness normalises to), everything else (policies/opencode/**, shared
builtins, loose files) against OpenCode (`facts_for`)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from cupcake_py.engine.routing import VERB_RULES

VERBS = VERB_RULES
# Events of Cupcake's harnesses cupcake-py does not speak (Cursor, Factory): valid names, never sent here.
FOREIGN_EVENTS = frozenset({"beforeShellExecution", "beforeMCPExecution", "afterFileEdit", "beforeReadFile",
                            "beforeSubmitPrompt", "stop"})

# Cupcake's matrix: the verbs that have an effect for each event.
VERB_MATRIX: dict[str, frozenset[str]] = {
    "PreToolUse": frozenset({"halt", "deny", "block", "ask", "modify", "add_context", "sandbox"}),
    "PermissionRequest": frozenset({"halt", "deny", "block", "modify"}),
    "PostToolUse": frozenset({"halt", "block", "add_context"}),
    "PostToolUseFailure": frozenset({"halt", "block", "add_context"}),
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

# Top-level input fields every harness's enrichment adds (cupcake_py/enrich/tool_call.py + the engine).
ENRICHED_FIELDS = frozenset({
    "tool", "tool_name", "tool_input", "tool_response", "resolved_file_path", "original_file_path", "is_symlink",
    "affected_parent_directories", "executed_script_path", "executed_script_content",
    "script_inspection_performed", "executed_scripts", "affected_files", "patch_operations", "signals",
    "builtin_config", "harness", "shell", "tool_paths", "link_uncertain", "secrets_below", "cupcake_routed",
    "history",  # the engine's `history` signal (docs/governance.md)
    "agent_event", "harness_capabilities", "mcp",  # hook-agent harnesses (cupcake_py/harness/hook_agent.py)
    "sandbox",  # the kernel floor of this call (docs/sandbox.md)
})


class Facts:
    """One harness as the linter sees it. `tool_names`: normalised tool_name -> the agent's own
    tool id; `tool_args`: normalised tool_name -> argument names."""

    def __init__(self, name: str, label: str, events: frozenset[str], legacy: frozenset[str],
                 tool_map: Callable[[], dict[str, Any]], event_schema: Callable[[], dict[str, Any]],
                 extra_fields: frozenset[str] = frozenset(), native_names: bool = False) -> None:
        self.name, self.label, self.events, self.legacy = name, label, events, legacy
        self._tool_map, self._event_schema, self._extra = tool_map, event_schema, extra_fields
        self.native_names = native_names  # the tool_args keys are the agent's names (Claude) or ids (OpenCode)

    @functools.cached_property
    def tool_names(self) -> dict[str, str]:
        tm = self._tool_map()
        if self.native_names:
            return {tm["map"].get(native, native): native for native in tm["tool_args"]
                    if tm["map"].get(native, native) != native or native not in tm["map"].values()}
        return {name: tool for tool, name in tm["map"].items()}

    @functools.cached_property
    def tool_args(self) -> dict[str, frozenset[str]]:
        tm = self._tool_map()
        out: dict[str, frozenset[str]] = {}
        for name, tool in self.tool_names.items():
            spec = tm["tool_args"].get(tool)
            if spec is not None:
                aliases = frozenset(tm.get("aliases", {}).get(name, {}).values())
                out[name] = frozenset(spec.get("required", {})) | frozenset(spec.get("optional", {})) | aliases
        return out

    @functools.cached_property
    def input_fields(self) -> frozenset[str]:
        return frozenset(self._event_schema()["properties"]) | ENRICHED_FIELDS | self._extra

    @functools.cached_property
    def current_tools(self) -> frozenset[str]:
        """tool_name values the agent really sends for its built-in tools."""
        return frozenset(self.tool_names) - self.legacy

    @property
    def all_events(self) -> frozenset[str]:
        return ALL_EVENTS


def _opencode() -> Facts:
    from cupcake_py.harness.opencode import data

    return Facts("opencode", "OpenCode", frozenset({"PreToolUse", "PostToolUse", "PermissionRequest"}),
                 # Tools that existed in older OpenCode (or Claude Code) but are not in OpenCode 1.18.33.
                 frozenset({"List", "Patch", "TodoRead", "MultiEdit", "NotebookEdit", "Batch", "CodeSearch"}),
                 data.tool_map, data.event_schema)


def _claude() -> Facts:
    from cupcake_py.harness.claude import data

    return Facts("claude", "Claude Code", frozenset(data.event_schema()["properties"]["hook_event_name"]["enum"]),
                 # Tools of older Claude Code versions (or of OpenCode) that 2.1.197 does not have.
                 frozenset({"MultiEdit", "TodoWrite", "TodoRead", "LS", "List", "Patch", "ApplyPatch"}),
                 data.tool_map, data.event_schema, frozenset({"mcp", "tool_response", "duration_ms", "prompt_id",
                                                              "effort", "agent_transcript_path", "custom_instructions",
                                                              "background_tasks", "session_crons"}),
                 native_names=True)


# The normalised events each hook-command harness produces (cupcake_py/harness/<name>/harness.py EVENTS).
HOOK_AGENTS = {
    "copilot": ("GitHub Copilot CLI", frozenset({"PreToolUse", "PostToolUse", "PermissionRequest", "UserPromptSubmit",
                                                 "SessionStart", "SessionEnd", "Stop", "SubagentStop", "Notification",
                                                 "ErrorOccurred"})),
    "factory": ("Factory Droid", frozenset({"PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "Stop",
                                            "SubagentStop", "SessionEnd", "Notification", "PreCompact"})),
    "cline": ("Cline", frozenset({"PreToolUse", "PostToolUse", "UserPromptSubmit", "SessionStart", "SessionEnd", "Stop",
                                  "ErrorOccurred", "PreCompact"})),
    "cursor": ("Cursor", frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "UserPromptSubmit",
                                    "SessionStart", "SessionEnd", "Stop", "SubagentStop", "PreCompact",
                                    "AfterAgentResponse", "AfterAgentThought"})),
}
HOOK_FIELDS = frozenset({"mcp", "prompt", "agent_event", "agent_tool_input", "harness_capabilities", "session_id",
                         "cwd", "hook_event_name", "source", "reason", "stop_hook_active", "agent_id", "agent_type",
                         "parent_agent_id"})


def _shared_name(table: dict[str, Any], arg: str) -> str:
    """The name policies see for the agent's argument `arg` (a tool_map.json `args` rule, else `arg`)."""
    rule = table.get(arg)
    if isinstance(rule, str):
        return rule
    if isinstance(rule, dict):
        return str(rule.get("join") or rule.get("to") or arg)
    return arg


def shared_tool_map(raw: dict[str, Any]) -> dict[str, Any]:
    """A hook harness's tool_map.json with `tool_args` in the shared argument names policies see."""
    out = dict(raw)
    renamed: dict[str, Any] = {}
    for tool, spec in raw["tool_args"].items():
        table = raw.get("args", {}).get(tool, {})
        renamed[tool] = {group: {_shared_name(table, a): t for a, t in spec[group].items()}
                         for group in ("required", "optional")}
    out["tool_args"] = renamed
    return out


def _hook_agent(agent: str) -> Facts:
    from cupcake_py.harness.data import HarnessData

    data = HarnessData(agent)
    label, events = HOOK_AGENTS[agent]
    return Facts(agent, label, events, frozenset(), lambda: shared_tool_map(data.tool_map()), data.event_schema,
                 HOOK_FIELDS, native_names=True)


ALL_EVENTS = frozenset(VERB_MATRIX) | FOREIGN_EVENTS | frozenset({"ErrorOccurred", "AfterAgentResponse",
                                                                  "AfterAgentThought"})
NAMED = ("claude", *HOOK_AGENTS)


@functools.cache
def facts(name: str) -> Facts:
    if name in HOOK_AGENTS:
        return _hook_agent(name)
    return {"opencode": _opencode, "claude": _claude}[name]()


def harness_of(path: str, package: str = "") -> str:
    """The harness whose policy directory holds `path` (`…/policies/claude/…` → claude, also copilot,
    factory, cline, cursor), or whose package the policy declares (`cupcake.policies.claude.…`); else
    opencode."""
    parts = path.replace("\\", "/").split("/")
    for i in range(len(parts) - 1):
        if parts[i] == "policies" and parts[i + 1] in NAMED:
            return parts[i + 1]
    for name in NAMED:
        if package.startswith((f"cupcake.policies.{name}.", f"cupcake.global.policies.{name}.")):
            return name
    return "opencode"


def facts_for(path: str, package: str = "") -> Facts:
    return facts(harness_of(path, package))
