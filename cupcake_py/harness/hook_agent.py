"""The harness value of every agent whose hooks are commands fed one JSON event on stdin (Codex CLI, Gemini
CLI, Qwen Code, GitHub Copilot CLI, Factory Droid, Cline, Cursor; protocol: cupcake_py/engine/harness_api.py).
An agent's package only declares its rows: its event names, capabilities, answer forms (its response.py or
claude_format.py: an AnswerTable that answers.py reads), installer (its install.py: INSTALLER), sticky halts, MCP naming, and where its
events are not shaped like Claude Code's (`hook_event_name`, `session_id`, `cwd`, `tool_name`, `tool_input`)
its own `parse` and `split`.

In: the decoded hook event. Out:
- `validate` (`parse`): the event when it matches `harness/<name>/schemas/event.schema.json` and, for a
  tool event, the argument types of its known tools (tool_map.json `tool_args`); EventError otherwise (the
  caller answers `fail`). An agent whose stdin lacks the event name keeps it under AGENT_EVENT.
- `split`: the event as a `Call` (the agent's event name, the normalised one, session, cwd, the agent's
  tool and arguments, extra fields); routing keys: the normalised event (Gemini's BeforeTool ->
  PreToolUse, ...) and tool name (tool_map.json `map`), so the shipped builtins answer every agent alike.
- `preprocess` (`policy_input`): everything the agent sent, plus `harness`, `agent_event`,
  `hook_event_name` (normalised), `session_id`, `cwd`, `harness_capabilities` (what the agent honours, so a
  policy can decide where it cannot: `can_rewrite_shell`, `can_ask`, `subagent_calls_hooked`, ...), the
  extra fields (`mcp`: {server, tool} for MCP tools, ...); for tool events `tool` (the agent's name),
  `tool_name` (mapped), `tool_input` (ToolTable.shared_args: the shared argument names policies read),
  `agent_tool_input` (the arguments as sent, for agents that rename them); then the neutral enrichment
  (cupcake_py/enrich/tool_call.py: resolved paths, shell analysis, `workdir_arg`/`patch_arg`).
- `respond`: the agent's answer form (answers.py, after a sticky halt where the agent's pre-tool answer cannot
  end the session: session_halts.py); a modified input goes back in the agent's names (ToolTable.agent_args).
- `fail`: the agent's blocking answer, the reason prefixed `cupcake:`.
Nothing here raises for a validated event.
"""

from __future__ import annotations

import os

from cupcake_py.core import jsonio
from cupcake_py.core.record import FrozenRecord
from cupcake_py.harness import answers
from cupcake_py.harness.data import HarnessData

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path
    from typing import Any

    from cupcake_py.engine.harness_api import Answer
    from cupcake_py.engine.synthesis import FinalDecision
    from cupcake_py.enrich.tool_call import PathHints
    from cupcake_py.harness.files import FileAction

AGENT_EVENT = "cupcake_agent_event"  # where parse() keeps the agent's own event name when stdin lacks it
EVENT_ENV = "CUPCAKE_HOOK_EVENT"  # the hook's environment names the event where stdin does not (Copilot, Cline)


def event_name_errors(name: object, events: dict[str, str], agent: str, setter: str = "the hook command") -> list[str]:
    """Why `name`, the event the hook's environment names (EVENT_ENV), is not one of the agent's `events`."""
    if not isinstance(name, str) or not name:
        return [f"no event name: {setter} must set {EVENT_ENV} (run `cupcake init --harness {agent}`)"]
    if name not in events:
        return [f"unknown event {name!r} (known: {', '.join(events)})"]
    return []


# -- normalisation ----------------------------------------------------------------------------------------


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
    """A harness's tool_map.json: `map` (the agent's tool -> the shared tool name); `args` (per agent tool:
    the agent's argument -> the shared name it is renamed to, `{"join": "command"}` for an array of shell
    commands, `{"first": "path", "to": "file_path"}` for an array of objects whose first entry's `path` is the
    call's path); `aliases` (per shared tool: the agent's argument -> a shared name ADDED next to it);
    `path_args` (shared names holding a path), `workdir_arg`, `patch_arg`; `tool_args` (types)."""

    def __init__(self, data: HarnessData) -> None:
        self.data = data
        self._hints: PathHints | None = None

    def tool_name(self, tool: str) -> str:
        return self.data.mapped_tool_name(tool)

    def renames(self, tool: str) -> dict[str, Any]:
        table: dict[str, Any] = self.data.tool_map().get("args", {}).get(tool, {})
        return table

    def added_aliases(self, tool: str, args: dict[str, Any]) -> dict[str, str]:
        """alias -> the agent's argument, for the aliases shared_args adds to `args` (never sent back)."""
        table: dict[str, str] = self.data.tool_map().get("aliases", {}).get(self.tool_name(tool), {})
        return {alias: arg for arg, alias in table.items() if arg in args and alias not in args}

    def hints(self) -> PathHints:
        if self._hints is None:
            from cupcake_py.enrich.tool_call import PathHints

            m = self.data.tool_map()
            self._hints = PathHints(tuple(m["path_args"]), workdir_arg=m.get("workdir_arg"),
                                    patch_arg=m.get("patch_arg"))
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
        for alias, arg in self.added_aliases(tool, args).items():
            out[alias] = out[arg]
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

    def agent_args(self, tool: str | None, original: Any, updated: dict[str, Any] | None) -> dict[str, Any]:
        """The modified input: the WHOLE argument object for the agent, `original` with the policy's `updated`
        fields (shared names) laid over it in the agent's names (a joined command goes back as a one-element
        array), minus the aliases shared_args added (unless the agent sent them)."""
        base = dict(original) if isinstance(original, dict) else {}
        back: dict[str, tuple[str, bool]] = {}
        drop: dict[str, str] = {}
        if tool is not None:
            for arg, rule in self.renames(tool).items():
                if isinstance(rule, dict) and "join" in rule:
                    back[rule["join"]] = (arg, True)
                elif isinstance(rule, str):
                    back[rule] = (arg, False)
            drop = self.added_aliases(tool, base)
        for key, value in (updated or {}).items():
            if key in drop:
                continue
            arg, as_list = back.get(key, (key, False))
            base[arg] = [value] if as_list else value
        return base


def policy_input(harness: str, call: Call, raw: dict[str, Any], table: ToolTable, capabilities: dict[str, bool], *,
                 script_inspection: bool, agent_args: bool = True) -> dict[str, Any]:
    """The enriched policy input of one validated event (see the module docstring); `agent_args`: add
    `agent_tool_input` (agents whose arguments are renamed)."""
    out = dict(raw)
    out.update(harness=harness, agent_event=call.agent_event, hook_event_name=call.event_name,
               session_id=call.session_id, cwd=call.cwd, harness_capabilities=dict(capabilities))
    out.update(call.extra)
    if call.tool is None or call.args is None:
        return out
    from cupcake_py.enrich.tool_call import enrich_tool_call

    out["tool"] = call.tool
    out["tool_name"] = table.tool_name(call.tool)
    if agent_args:
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


def mcp_from_name(tool: str) -> dict[str, str] | None:
    """`mcp__<server>__<tool>` (Codex, Qwen) -> {"server", "tool"}; None for other names."""
    if not tool.startswith("mcp__"):
        return None
    server, sep, name = tool[5:].partition("__")
    if not sep or not server or not name:
        return None
    return {"server": server, "tool": name}


def mcp_from_context(event: dict[str, Any]) -> dict[str, str] | None:
    """Gemini's `mcp_context: {server_name, tool_name}` (its `mcp_<server>_<tool>` name is ambiguous)."""
    ctx = event.get("mcp_context")
    if isinstance(ctx, dict) and isinstance(ctx.get("server_name"), str) and isinstance(ctx.get("tool_name"), str):
        return {"server": ctx["server_name"], "tool": ctx["tool_name"]}
    return None


# -- the harness ------------------------------------------------------------------------------------------


class HookAgent:
    """One agent's harness, from its rows: `events` (the agent's event names -> the normalised ones),
    `capabilities` (reported in the policy input and by verify), `answers` (its answer forms: answers.py), `halts` ((the agent's pre-tool events, its session-end
    event) where a halt must outlive the hook call: session_halts.py), `mcp(event)` ({server, tool} of an
    MCP call), `tool_events` (the events that carry a tool call; None: any with `tool_name`), `agent_args`
    (the policy input also carries `agent_tool_input`), `binaries` (what means it is installed),
    `canary_args` (extra arguments of its canary shell call)."""

    def __init__(self, name: str, title: str, events: dict[str, str], capabilities: dict[str, bool],
                 answer_table: answers.AnswerTable, *, halts: tuple[frozenset[str], str | None] | None = None,
                 mcp: Callable[[dict[str, Any]], dict[str, str] | None] | None = None,
                 tool_events: frozenset[str] | None = None, agent_args: bool = True,
                 binaries: tuple[str, ...] | None = None, canary_args: dict[str, Any] | None = None) -> None:
        self.name = name
        self.title = title
        self.event_map = events
        self.events = frozenset(events)
        self.capabilities = capabilities
        self.answers = answer_table
        self.halts = halts
        self._mcp = mcp
        self.tool_events = tool_events
        self.agent_args = agent_args
        self.binaries = binaries or (name,)
        self.canary_args = canary_args or {}
        self.data = HarnessData(name)
        self._table: ToolTable | None = None

    # -- the agent's event shape (Claude Code's unless an agent overrides them) -------------------------------

    def parse(self, value: Any) -> dict[str, Any]:
        from cupcake_py.harness.schema import args_errors, checked, schema_errors

        errors = schema_errors(value, self.data.event_schema())
        if not errors and isinstance(value.get("tool_name"), str) and isinstance(value.get("tool_input"), dict):
            errors = args_errors(self.data.tool_map()["tool_args"], value["tool_name"], value["tool_input"],
                                 "tool_input")
        return checked(value, errors, self.title)

    def split(self, event: dict[str, Any]) -> Call:
        """Claude Code's shape (every field read with a default: the routing keys are also asked of parts)."""
        name = str(event.get("hook_event_name", ""))
        tool = event.get("tool_name") if self.tool_events is None or name in self.tool_events else None
        args = event.get("tool_input") if isinstance(tool, str) else None
        mcp = self._mcp(event) if self._mcp is not None else None
        return Call(name, self.event_map.get(name, name), str(event.get("session_id", "")), str(event.get("cwd", "")),
                    tool if isinstance(tool, str) else None, args if isinstance(args, dict) else None,
                    {"mcp": mcp} if mcp is not None else None)

    def canary(self, command: str, cwd: str) -> dict[str, Any]:
        """A pre-tool shell event in this agent's own names (nothing runs: cupcake only evaluates it)."""
        pre = next(raw for raw, normal in self.event_map.items() if normal == "PreToolUse")
        shell = next((raw for raw, normal in self.data.tool_map()["map"].items() if normal == "Bash"), "Bash")
        return {"hook_event_name": pre, "session_id": "cupcake-verify-canary", "cwd": cwd,
                "tool_name": shell, "tool_input": {"command": command, **self.canary_args}}

    # -- the engine's protocol ------------------------------------------------------------------------------

    def table(self) -> ToolTable:
        if self._table is None:
            self._table = ToolTable(self.data)
        return self._table

    def validate(self, value: Any) -> dict[str, Any]:
        return self.parse(value)

    def event_name(self, event: dict[str, Any]) -> str:
        return self.split(event).event_name

    def tool_name(self, event: dict[str, Any]) -> str | None:
        tool = self.split(event).tool
        return None if tool is None else self.table().tool_name(tool)

    def cwd(self, event: dict[str, Any]) -> str:
        return self.split(event).cwd

    def shell_command(self, event: dict[str, Any]) -> str | None:
        """The shell command as the agent will run it, for the sandbox floor (engine/sandbox_floor.py asks
        only for pre-tool shell calls) — only where the agent runs a rewritten command
        (`can_rewrite_shell`); for the others None, so the floor does not apply and `input.sandbox` says so."""
        if not self.capabilities.get("can_rewrite_shell"):
            return None
        call = self.split(event)
        if call.event_name != "PreToolUse" or call.tool is None or call.args is None or \
                self.table().tool_name(call.tool) != "Bash":
            return None
        command = self.table().shared_args(call.tool, call.args).get("command")
        return command if isinstance(command, str) else None

    def preprocess(self, event: dict[str, Any], *, script_inspection: bool) -> dict[str, Any]:
        raw = {k: v for k, v in event.items() if k != AGENT_EVENT}
        return policy_input(self.name, self.split(event), raw, self.table(), self.capabilities,
                            script_inspection=script_inspection, agent_args=self.agent_args)

    def respond(self, final: FinalDecision, event: dict[str, Any], strict: bool) -> Answer:
        if self.halts is not None:
            from cupcake_py.harness import session_halts

            final = session_halts.sticky(self.name, final, event, *self.halts)
        return answers.answer(self.answers, final, event, self.split(event), self.table(), strict)

    def fail(self, message: str, event: Any) -> Answer:
        return answers.failure(self.answers, message if message.startswith("cupcake:") else f"cupcake: {message}", event)

    # -- setup (cupcake init, protect, verify --all: cupcake_py/authoring/agents.py); not on the eval path ----

    def examples_dir(self) -> str:
        return os.path.join(self.data.dir(), "examples")

    def setup(self) -> Any:
        """The agent's installer (`cupcake_py.harness.<name>.install.INSTALLER`: install, uninstall,
        configured, notes, config_home, problems)."""
        return __import__(f"cupcake_py.harness.{self.name}.install", fromlist=["INSTALLER"]).INSTALLER

    def install(self, directory: Path | None, force: bool) -> list[tuple[str, FileAction]]:
        rows: list[tuple[str, FileAction]] = self.setup().install(directory, force=force)
        return rows

    def uninstall(self, directory: Path | None) -> list[tuple[str, FileAction]]:
        rows: list[tuple[str, FileAction]] = self.setup().uninstall(directory)
        return rows

    def config_home(self) -> Path:
        """The agent's user config dir (an existing one also means the agent is installed)."""
        home: Path = self.setup().config_home()
        return home

    def configured_hooks(self, directory: Path | None) -> list[tuple[str, str, float | None]]:
        """(agent event, command, hook timeout in seconds) of cupcake's hooks for `directory` (None: the
        user's), exactly as the agent runs them."""
        rows: list[tuple[str, str, float | None]] = self.setup().configured(directory)
        return rows

    def setup_notes(self, directory: Path | None) -> list[str]:
        return list(self.setup().notes(directory))

    def hook_problems(self, directory: Path | None) -> list[str]:
        """What the agent itself would do wrong with cupcake's configured hooks (Codex: untrusted ones)."""
        return list(self.setup().problems(directory))
