"""The harness value shared by agents whose hooks are command hooks with a JSON event on stdin
(Codex CLI, Gemini CLI, Qwen Code): validation, normalisation and routing keys are the same
table-driven code for each; each agent supplies its data dir (`harness/<name>/`: tool_map.json,
schemas/event.schema.json, examples/), its event-name table, its capabilities and its answer
functions (`cupcake_py/harness/<name>/response.py`).

In: the decoded hook event. Out (protocol: cupcake_py/engine/harness_api.py):
- `validate`: the event when it matches the agent's schema and, for a tool event, the argument
  types of its known tools (`tool_args`); EventError otherwise (the caller answers the agent's
  fail-closed `fail`).
- `event_name`: the NORMALISED event (`EVENTS` of the agent: Gemini's BeforeTool -> PreToolUse, ...),
  so the shipped builtins (which route on PreToolUse/PostToolUse/...) answer every agent alike.
- `preprocess`: a copy of the event plus `harness`, `agent_event` (the event as the agent named it),
  `hook_event_name` (normalised), `harness_capabilities` (`can_rewrite_shell`, `can_ask`,
  `subagent_calls_hooked`: what the agent honours, so a policy can decide, e.g. ask instead of
  relying on a sandbox rewrite the agent would ignore), and for tool events `tool` (the agent's
  name), `tool_name` (mapped), `tool_input` (a copy with the aliases of tool_map.json `aliases`
  added: the names the shared builtins read), `mcp` ({server, tool}) for MCP tools, then the
  neutral enrichment (cupcake_py/enrich/tool_call.py; `workdir_arg`/`patch_arg`/`path_args`
  from tool_map.json).
Nothing here raises for a validated event.
"""

from __future__ import annotations

from cupcake_py import jsonio
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
    from cupcake_py.harness.hook_settings import HookInstaller

    Respond = Callable[[FinalDecision, dict[str, Any], bool, set[str]], Answer]
    Fail = Callable[[str, Any], Answer]


class Capabilities:
    """What an agent honours of cupcake's answers (reported in the policy input and by verify)."""

    __slots__ = ("can_rewrite_shell", "can_ask", "subagent_calls_hooked")

    def __init__(self, can_rewrite_shell: bool, can_ask: bool, subagent_calls_hooked: bool) -> None:
        self.can_rewrite_shell = can_rewrite_shell
        self.can_ask = can_ask
        self.subagent_calls_hooked = subagent_calls_hooked

    def as_dict(self) -> dict[str, bool]:
        return {"can_rewrite_shell": self.can_rewrite_shell, "can_ask": self.can_ask,
                "subagent_calls_hooked": self.subagent_calls_hooked}


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


class HookAgent:
    """One agent's harness. `events`: the agent's event names -> the normalised ones; `pre_tool`:
    the agent's event(s) asked before a tool runs (sticky halts are recorded there); `session_end`:
    its end-of-session event (forgets a halted session)."""

    def __init__(self, name: str, title: str, events: dict[str, str], capabilities: Capabilities,
                 respond: Respond, fail: Fail, *, pre_tool: frozenset[str], session_end: str | None,
                 mcp: Callable[[dict[str, Any]], dict[str, str] | None]) -> None:
        self.name = name
        self.title = title
        self.event_map = events
        self.events = frozenset(events.values())
        self.capabilities = capabilities
        self._respond = respond
        self._fail = fail
        self.pre_tool = pre_tool
        self.session_end = session_end
        self._mcp = mcp
        self.data = HarnessData(name)
        self._hints: PathHints | None = None

    # -- engine protocol ---------------------------------------------------------------------------

    def validate(self, value: Any) -> dict[str, Any]:
        from cupcake_py.harness.schema import args_errors, checked, schema_errors

        errors = schema_errors(value, self.data.event_schema())
        if not errors and isinstance(value.get("tool_name"), str) and isinstance(value.get("tool_input"), dict):
            errors = args_errors(self.data.tool_map()["tool_args"], value["tool_name"], value["tool_input"],
                                 "tool_input")
        return checked(value, errors, self.title)

    def event_name(self, event: dict[str, Any]) -> str:
        raw = str(event["hook_event_name"])
        return self.event_map.get(raw, raw)

    def tool_name(self, event: dict[str, Any]) -> str | None:
        tool = event.get("tool_name")
        return self.data.mapped_tool_name(tool) if isinstance(tool, str) else None

    def cwd(self, event: dict[str, Any]) -> str:
        return str(event["cwd"])

    def shell_command(self, event: dict[str, Any]) -> str | None:
        """The shell command of a pre-tool shell call exactly as the agent will run it, for the sandbox floor
        (engine/sandbox_floor.py) — only for agents that honour a modified input (`can_rewrite_shell`):
        for the others (Qwen) None, so the floor does not apply and `input.sandbox` says so."""
        if not self.capabilities.can_rewrite_shell or self.event_name(event) != "PreToolUse":
            return None
        tool = event.get("tool_name")
        args = event.get("tool_input")
        if not isinstance(tool, str) or self.data.mapped_tool_name(tool) != "Bash" or not isinstance(args, dict):
            return None
        command = args.get("command")
        return command if isinstance(command, str) else None

    def hints(self) -> PathHints:
        if self._hints is None:
            from cupcake_py.enrich.tool_call import PathHints

            m = self.data.tool_map()
            self._hints = PathHints(tuple(m["path_args"]), workdir_arg=m.get("workdir_arg"),
                                    patch_arg=m.get("patch_arg"))
        return self._hints

    def added_aliases(self, tool_name: str, tool_input: dict[str, Any]) -> dict[str, str]:
        """alias -> the agent's argument, for the aliases preprocessing adds to this input (never sent
        back in a modified input)."""
        table: dict[str, str] = self.data.tool_map()["aliases"].get(tool_name, {})
        return {alias: arg for arg, alias in table.items() if arg in tool_input and alias not in tool_input}

    def preprocess(self, event: dict[str, Any], *, script_inspection: bool) -> dict[str, Any]:
        out = dict(event)
        out["harness"] = self.name
        out["agent_event"] = event["hook_event_name"]
        out["hook_event_name"] = self.event_name(event)
        out["harness_capabilities"] = self.capabilities.as_dict()
        raw = event.get("tool_name")
        if not isinstance(raw, str) or not isinstance(event.get("tool_input"), dict):
            return out
        from cupcake_py.enrich.tool_call import enrich_tool_call

        tool_name = self.data.mapped_tool_name(raw)
        args: dict[str, Any] = jsonio.copy(event["tool_input"])
        for alias, arg in self.added_aliases(tool_name, args).items():
            args[alias] = args[arg]
        out["tool"] = raw
        out["tool_name"] = tool_name
        out["tool_input"] = args
        mcp = self._mcp(event)
        if mcp is not None:
            out["mcp"] = mcp
        return enrich_tool_call(out, self.hints(), script_inspection=script_inspection)

    def respond(self, final: FinalDecision, event: dict[str, Any], strict: bool) -> Answer:
        from cupcake_py.harness import session_halts

        final = session_halts.sticky(self.name, final, event, self.pre_tool, self.session_end)
        drop: set[str] = set()
        tool, args = event.get("tool_name"), event.get("tool_input")
        if isinstance(tool, str) and isinstance(args, dict):
            drop = set(self.added_aliases(self.data.mapped_tool_name(tool), args))
        return self._respond(final, event, strict, drop)

    def fail(self, message: str, event: Any) -> Answer:
        return self._fail(message, event)

    # -- setup (cupcake init, protect, verify): not on the eval path --------------------------------

    def examples_dir(self) -> str:
        import os

        return os.path.join(self.data.dir(), "examples")

    def install(self, directory: Path | None, force: bool) -> list[tuple[str, FileAction]]:
        return self.setup().install(directory)

    def uninstall(self, directory: Path | None) -> list[tuple[str, FileAction]]:
        return self.setup().uninstall(directory)

    # -- cupcake protect / verify --all (cupcake_py/authoring/agents.py) --------------------------------

    @property
    def binaries(self) -> tuple[str, ...]:
        return (self.name,)

    def config_home(self) -> Path:
        return self.setup().settings_path(None).parent

    def configured_hooks(self, directory: Path | None) -> list[tuple[str, str, float | None]]:
        return self.setup().configured(directory)

    def setup_notes(self, directory: Path | None) -> list[str]:
        return self.setup().notes(directory)

    def hook_problems(self, directory: Path | None) -> list[str]:
        """What the agent itself would do wrong with cupcake's configured hooks (Codex: untrusted ones)."""
        mod = __import__(f"cupcake_py.harness.{self.name}.install", fromlist=["INSTALLER"])
        check = getattr(mod, "problems", None)
        return list(check(directory)) if check else []

    def canary(self, command: str, cwd: str) -> dict[str, Any]:
        """A pre-tool shell event in this agent's own names (nothing runs: cupcake only evaluates it)."""
        pre = next(raw for raw, normal in self.event_map.items() if normal == "PreToolUse")
        shell = next((raw for raw, normal in self.data.tool_map()["map"].items() if normal == "Bash"), "Bash")
        return {"hook_event_name": pre, "session_id": "cupcake-verify-canary", "cwd": cwd,
                "tool_name": shell, "tool_input": {"command": command}}

    def setup(self) -> HookInstaller:
        """The agent's installer (`cupcake_py.harness.<name>.install.INSTALLER`)."""
        mod = __import__(f"cupcake_py.harness.{self.name}.install", fromlist=["INSTALLER"])
        installer: HookInstaller = mod.INSTALLER
        return installer


def whole_input(original: Any, updated: dict[str, Any] | None, drop: set[str]) -> dict[str, Any]:
    """The tool input an agent that REPLACES the input gets back: the original with the policies'
    fields laid over it, minus the aliases preprocessing added (`drop`) unless the agent sent them."""
    base = dict(original) if isinstance(original, dict) else {}
    for key, value in (updated or {}).items():
        if key in drop and key not in base:
            continue
        base[key] = value
    return base


def ask_fallback() -> str:
    """What `ask` becomes for an agent that cannot ask (Codex, Gemini headless): `deny` (default) or
    `allow`, from $CUPCAKE_ASK_FALLBACK; anything else is deny."""
    import os

    return "allow" if os.environ.get("CUPCAKE_ASK_FALLBACK", "").strip().lower() == "allow" else "deny"


def nonempty(reason: str | None, default: str = "denied by policy") -> str:
    """A reason an agent will accept (Codex ignores a deny without a reason: the tool would run)."""
    return reason if reason and reason.strip() else default
