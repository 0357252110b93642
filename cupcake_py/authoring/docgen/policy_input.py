"""docs/writing-policies.md: the hand-written guide (docs/_parts/writing-policies.md) with
generated reference sections spliced in where it says `<!-- generated: NAME -->`:

- `input`: the input document per harness, from harness/<name>/schemas/event.schema.json
  (the event as sent) plus the fields the engine adds (ENRICHED below, checked against
  authoring/harness_facts.ENRICHED_FIELDS so a new field cannot go undocumented);
- `tools`: tool_name -> the agent's tool id and its arguments (harness/<name>/tool_map.json);
- `verbs`: which decision verbs have an effect on which event (harness_facts.VERB_MATRIX)
  and the fields a decision object needs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from cupcake_py.authoring.docgen.page import REPO, banner

PART = REPO / "docs" / "_parts" / "writing-policies.md"

# Fields the engine adds to every event before policies see it (engine + harness preprocessing).
ENRICHED: dict[str, str] = {
    "harness": "The harness the event came from: `\"opencode\"`, `\"claude\"`, `\"codex\"`, `\"gemini\"` or "
               "`\"qwen\"` (a policy may test it).",
    "agent_event": "Codex, Gemini CLI, Qwen Code: the event name as the agent sent it (Gemini's `BeforeTool`; "
                   "`hook_event_name` holds the normalised name, `PreToolUse`).",
    "harness_capabilities": "What the agent honours: `{can_rewrite_shell, can_ask, subagent_calls_hooked}` "
                            "(Claude Code, Codex, Gemini CLI, Qwen Code); e.g. ask or deny instead of a rewrite "
                            "where `can_rewrite_shell` is false.",
    "mcp": "MCP tools: `{server, tool}` (Claude Code, Codex, Qwen: from `mcp__<server>__<tool>`; Gemini: from "
           "`mcp_context`).",
    "tool": "The agent's own tool id as sent (OpenCode `bash`, `edit`, …; Claude Code `Bash`, `mcp__s__t`, …).",
    "tool_name": "The tool as policies name it (`Bash`, `Edit`, …; MCP and custom tools unchanged).",
    "tool_input": "The tool's arguments (the event's `args`).",
    "tool_response": "PostToolUse: what the tool returned (the event's `result`).",
    "resolved_file_path": "File tools: the target path made absolute, symlinks resolved.",
    "project_file_path": "File tools: the target relative to the project root (`migrations/x.sql`), however the "
                         "agent spelled it (absolute, `./`, `..`, symlinks); absent outside the project. Test this, "
                         "not the raw argument (`tool_input.filePath`/`file_path`).",
    "original_file_path": "File tools: the target path as the tool got it.",
    "is_symlink": "File tools: whether the target is a symbolic link.",
    "affected_parent_directories": "Bash: directories a destructive command operates on.",
    "executed_script_path": "Bash: the first script file the command runs (./x.sh, python x.py).",
    "executed_script_content": "Bash: that script's text (`preprocessing.script_inspection`).",
    "script_inspection_performed": "Bash: whether a script was read.",
    "executed_scripts": "Bash: every script the command runs, `[{path, content}]`.",
    "affected_files": "ApplyPatch: every file the patch touches (resolved).",
    "patch_operations": "ApplyPatch: `[{action, path, resolved_path}]` per file.",
    "signals": "Values of the signals the policy's `required_signals` lists (input.signals.<name>).",
    "builtin_config": "Builtin policies: their rulebook settings (input.builtin_config.<builtin>).",
    "tool_paths": "Every path a tool names: `[{path, original, arg, access}]`, access read/write/delete/unknown "
                  "([builtin-policies.md](builtin-policies.md)).",
    "link_uncertain": "Paths whose hard-link identity could not be compared completely (count as uncertain).",
    "secrets_below": "Bash commands reading whole trees: the secret-looking files inside the directories read.",
    "search_reads": "File searches (Grep, Glob, List, a directory Read, MCP search tools) with "
                    "sensitive_data_protection on: `{tool, kind, dirs: {dir: [file, …]}}`, the secret-looking files "
                    "the search would read (`content`) or list (`names`).",
    "history": "What the session did before (audit records; `required_signals: [\"history\"]`; "
               "[governance.md](governance.md)).",
    "cupcake_routed": "Internal: booleans by position in the sorted package list, true for the policies "
                      "routed to this event (read by the generated aggregator, not by policies).",
    "sandbox": "The kernel floor of this call: `{enabled, available, applies, reason, writable, covers}` "
               "(applies: a Bash call that will run in cupcake's bubblewrap sandbox; "
               "[sandbox.md](sandbox.md)).",
    "shell": "Bash: the command parsed and resolved: commands, effects on paths, git facts, what is opaque "
             "([shell-analysis.md](shell-analysis.md)).",
}


def harnesses() -> list[Path]:
    return sorted(p for p in (REPO / "harness").iterdir() if (p / "schemas" / "event.schema.json").is_file())


def _type(p: dict[str, Any]) -> str:
    if "enum" in p:
        return " \\| ".join(f"`{v}`" for v in p["enum"])
    return str(p.get("type", "any"))


def input_section() -> str:
    from cupcake_py.authoring.harness_facts import ENRICHED_FIELDS

    missing = sorted(set(ENRICHED_FIELDS) - set(ENRICHED))
    if missing:
        raise KeyError(f"describe the input fields {missing} in cupcake_py/authoring/docgen/policy_input.py ENRICHED")
    out = []
    for h in harnesses():
        schema = json.loads((h / "schemas" / "event.schema.json").read_text("utf-8"))
        required = set(schema.get("required", []))
        out += [f"### {h.name}: the event as sent\n\n", f"{schema.get('title', '')}.\n\n",
                "| Field | Type | Required | Description |\n| --- | --- | --- | --- |\n"]
        for name, p in schema.get("properties", {}).items():
            desc = " ".join(p.get("description", "").split()).replace("|", "\\|")
            out.append(f"| `input.{name}` | {_type(p)} | {'yes' if name in required else 'no'} | {desc} |\n")
        out.append("\n")
    out += ["### Added by the engine (every harness)\n\n", "| Field | Description |\n| --- | --- |\n"]
    out += [f"| `input.{k}` | {v} |\n" for k, v in ENRICHED.items()]
    return "".join(out)


def tools_section() -> str:
    out = []
    for h in harnesses():
        path = h / "tool_map.json"
        if not path.is_file():
            continue
        tm = json.loads(path.read_text("utf-8"))
        out += [f"### {h.name} tools\n\n", "| `input.tool_name` | tool id | `input.tool_input` arguments |\n",
                "| --- | --- | --- |\n"]
        tools = list(tm["map"]) + [t for t in tm["tool_args"] if t not in tm["map"]]  # renamed, then passed through
        for tool in tools:
            name = tm["map"].get(tool, tool)
            spec = tm["tool_args"].get(tool, {})
            args = [f"`{a}` ({t})" for a, t in spec.get("required", {}).items()]
            args += [f"`{a}` ({t}, optional)" for a, t in spec.get("optional", {}).items()]
            out.append(f"| `{name}` | `{tool}` | {', '.join(args) or '—'} |\n")
        out.append("\nOther tools (MCP `<server>_<tool>`, custom tools) keep their name.\n\n")
    return "".join(out)


def verbs_section() -> str:
    from cupcake_py.authoring import harness_facts as H

    verbs = ["halt", "deny", "block", "ask", "modify", "add_context", "sandbox"]
    out = ["| Event | " + " | ".join(f"`{v}`" for v in verbs) + " |\n", "| --- |" + " --- |" * len(verbs) + "\n"]
    for event, allowed in H.VERB_MATRIX.items():
        out.append(f"| {event} | " + " | ".join("yes" if v in allowed else "—" for v in verbs) + " |\n")
    out.append(f"\nA decision object needs {', '.join(f'`{f}`' for f in H.DECISION_REQUIRED)} "
               f"(`modify`: {', '.join(f'`{f}`' for f in H.MODIFY_REQUIRED)}); `severity` is one of "
               f"{', '.join(H.SEVERITIES)}; optional: "
               f"{', '.join(f'`{f}`' for f in sorted((H.DECISION_FIELDS | H.MODIFY_FIELDS) - set(H.MODIFY_REQUIRED) - set(H.DECISION_REQUIRED)))}. "
               "`add_context` rules produce strings; `sandbox` rules produce `{read_only, hidden}` path lists "
               "added to a Bash call's sandbox profile ([sandbox.md](sandbox.md)).\n")
    return "".join(out)


SECTIONS = {"input": input_section, "tools": tools_section, "verbs": verbs_section}


def render() -> str:
    text = PART.read_text("utf-8")
    for name, make in SECTIONS.items():
        marker = f"<!-- generated: {name} -->"
        if marker not in text:
            raise KeyError(f"{PART} lost its `{marker}` line")
        text = text.replace(marker, make().rstrip())
    return banner("docs/_parts/writing-policies.md, harness/*/schemas, harness/*/tool_map.json") + text
