"""What the hook-command harnesses of agents with their own event vocabulary share (GitHub Copilot CLI,
Factory Droid, Cline, Cursor): one table-driven normalisation into the policy input every harness
produces, the configured fallback for `ask`, and the evaluation deadlines an installer writes.

In: a validated agent event, split by the harness into `Call` parts (the agent's event name, the
normalised event name, session, cwd, the agent's tool name and arguments, extra fields). Out: the
policy input (never raises for a validated event):
- everything the agent sent, plus `harness`, `agent_event` (the agent's own event name),
  `hook_event_name` (normalised: PreToolUse, PostToolUse, UserPromptSubmit, SessionStart, Stop, …),
  `session_id`, `cwd`, and `harness_capabilities` ({can_ask, can_rewrite_shell, can_deny_tool,
  subagent_calls_hooked}: what the agent can enforce, so a policy can decide where the agent cannot);
- tool events: `tool` (the agent's name), `tool_name` (normalised: Bash, Edit, Write, Read, Task,
  …), `tool_input` (the arguments renamed to the shared names: command, file_path, old_string,
  new_string, content, prompt; an array of shell commands joined into one `command`), and
  `agent_tool_input` (the arguments as sent); then the neutral enrichment
  (cupcake_py/enrich/tool_call.py: resolved paths, shell analysis).
`agent_args` maps a policy's `updated_input` (shared names) back to the agent's argument names.

`ask_fallback()`: the answer where an agent cannot ask (or its `ask` lets the tool run headless):
`deny` unless the environment of the hook sets CUPCAKE_ASK_FALLBACK=allow; any other value is
`deny` (fail closed).
"""

from __future__ import annotations

import os

from cupcake_py import jsonio
from cupcake_py.enrich.tool_call import PathHints, enrich_tool_call
from cupcake_py.record import FrozenRecord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cupcake_py.harness.data import HarnessData

ASK_FALLBACK_ENV = "CUPCAKE_ASK_FALLBACK"
STOPPING = frozenset({"halt", "deny", "block"})


def ask_fallback() -> str:
    """`allow` or `deny`: what an `ask` becomes where the agent cannot ask."""
    return "allow" if os.environ.get(ASK_FALLBACK_ENV, "").strip().lower() == "allow" else "deny"


def effective_kind(kind: str, can_ask: bool) -> str:
    """The decision kind after the ask fallback (`ask` stays only where the agent asks)."""
    if kind == "ask" and not can_ask:
        return ask_fallback()
    return kind


def ask_reason(reason: str) -> str:
    return f"{reason} (approval required; this agent cannot ask, so cupcake denies: set {ASK_FALLBACK_ENV}=allow " \
           "to let such calls run)"


class Call(FrozenRecord):
    """One agent event split into what normalisation needs."""

    __slots__ = ("agent_event", "event_name", "session_id", "cwd", "tool", "args", "extra", "more_paths")
    agent_event: str
    event_name: str
    session_id: str
    cwd: str
    tool: str | None
    args: dict[str, Any] | None
    extra: dict[str, Any]
    more_paths: tuple[tuple[str, str], ...]  # (argument, path) read beyond the first path argument

    def __init__(self, agent_event: str, event_name: str, session_id: str, cwd: str, tool: str | None = None,
                 args: dict[str, Any] | None = None, extra: dict[str, Any] | None = None,
                 more_paths: tuple[tuple[str, str], ...] = ()) -> None:
        self._fill(agent_event, event_name, session_id, cwd, tool, args, extra or {}, more_paths)


class ToolTable:
    """A harness's tool_map.json: `map` (the agent's tool -> the shared tool name), `args` (per agent
    tool: the agent's argument -> the shared argument name, `{"join": "command"}` for an array of
    shell commands, `{"first": "path", "to": "file_path"}` for an array of objects whose first entry's
    `path` is the call's path), `path_args` (shared names holding a path), `tool_args` (types)."""

    def __init__(self, data: HarnessData) -> None:
        self.data = data
        self._hints: PathHints | None = None

    def tool_name(self, tool: str) -> str:
        return self.data.mapped_tool_name(tool)

    def renames(self, tool: str) -> dict[str, Any]:
        table: dict[str, Any] = self.data.tool_map().get("args", {}).get(tool, {})
        return table

    def hints(self) -> PathHints:
        if self._hints is None:
            self._hints = PathHints(tuple(self.data.tool_map()["path_args"]))
        return self._hints

    def shared_args(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        """A private copy of `args` in the shared names (arguments without a rename keep theirs)."""
        out: dict[str, Any] = {}
        renames = self.renames(tool)
        for key, value in jsonio.copy(args).items():
            rule = renames.get(key)
            if isinstance(rule, dict) and "join" in rule:
                items = value if isinstance(value, list) else [value]
                out[rule["join"]] = "\n".join(str(v) for v in items)
                out[key] = value
            elif isinstance(rule, dict) and "first" in rule:
                first = value[0] if isinstance(value, list) and value else None
                if isinstance(first, dict) and isinstance(first.get(rule["first"]), str):
                    out[rule["to"]] = first[rule["first"]]
                out[key] = value
            elif isinstance(rule, str):
                out.setdefault(rule, value)
            else:
                out.setdefault(key, value)
        return out

    def more_paths(self, tool: str, args: dict[str, Any]) -> tuple[tuple[str, str], ...]:
        """(argument, path) of every entry after the first of a `first` rule's array (read too)."""
        out: list[tuple[str, str]] = []
        for key, rule in self.renames(tool).items():
            value = args.get(key)
            if isinstance(rule, dict) and "first" in rule and isinstance(value, list):
                for i, item in enumerate(value[1:], 1):
                    if isinstance(item, dict) and isinstance(item.get(rule["first"]), str) and item[rule["first"]]:
                        out.append((f"tool_input.{key}[{i}].{rule['first']}", item[rule["first"]]))
        return tuple(out)

    def agent_args(self, tool: str, original: Any, updated: dict[str, Any] | None) -> dict[str, Any]:
        """The WHOLE argument object for the agent: `original` with the policy's `updated` fields (shared
        names) laid over it in the agent's names (a joined command goes back as a one-element array)."""
        base = dict(original) if isinstance(original, dict) else {}
        back: dict[str, tuple[str, bool]] = {}
        for arg, rule in self.renames(tool).items():
            if isinstance(rule, dict) and "join" in rule:
                back[rule["join"]] = (arg, True)
            elif isinstance(rule, str):
                back[rule] = (arg, False)
        for key, value in (updated or {}).items():
            arg, as_list = back.get(key, (key, False))
            base[arg] = [value] if as_list else value
        return base


def policy_input(harness: str, call: Call, raw: dict[str, Any], table: ToolTable, capabilities: dict[str, bool], *,
                 script_inspection: bool) -> dict[str, Any]:
    """The enriched policy input of one validated event (see the module docstring)."""
    out = dict(raw)
    out.update(harness=harness, agent_event=call.agent_event, hook_event_name=call.event_name,
               session_id=call.session_id, cwd=call.cwd, harness_capabilities=dict(capabilities))
    out.update(call.extra)
    if call.tool is None or call.args is None:
        return out
    out["tool"] = call.tool
    out["tool_name"] = table.tool_name(call.tool)
    out["agent_tool_input"] = call.args
    out["tool_input"] = table.shared_args(call.tool, call.args)
    enriched = enrich_tool_call(out, table.hints(), script_inspection=script_inspection)
    more = call.more_paths + table.more_paths(call.tool, call.args)
    if more:  # e.g. Cline's read_files beyond the first file: every path a call reads is listed
        from cupcake_py.enrich.tool_paths import resolve

        base = os.path.realpath(call.cwd)
        paths = enriched.setdefault("tool_paths", [])
        for arg, p in more:
            paths.append({"path": resolve(p, base), "original": p, "arg": arg, "access": "read"})
    return enriched
