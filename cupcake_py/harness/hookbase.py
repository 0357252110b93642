"""The harness value shared by the hook-command agents with their own event vocabulary (copilot,
factory, cline, cursor; protocol: cupcake_py/engine/harness_api.py).

A subclass names its agent and supplies:
- `parse(value) -> dict`: the validated event (cupcake_py/harness/schema.py checks against
  `harness/<name>/schemas/event.schema.json` and the `tool_args` of tool_map.json), with the agent's
  own event name stored under AGENT_EVENT;
- `split(event) -> Call`: the parts normalisation needs (cupcake_py/harness/hooked.py);
- `answer(final, event, call) -> Answer` and `failure(message, event) -> Answer`: the agent's wire format;
- `install` / `uninstall` for `cupcake init`.
The base turns those into the engine's protocol: routing keys (normalised event and tool names), the
policy input (hooked.policy_input), the shell command the sandbox floor may wrap (only where the
agent runs a rewritten command: `capabilities["can_rewrite_shell"]`), the ask fallback.
"""

from __future__ import annotations

from cupcake_py.harness.data import HarnessData

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from cupcake_py.engine.harness_api import Answer
    from cupcake_py.engine.synthesis import FinalDecision
    from cupcake_py.harness.files import FileAction
    from cupcake_py.harness.hooked import Call, ToolTable

EVENT_ENV = "CUPCAKE_HOOK_EVENT"  # the event name a hook command passes when the payload lacks it (Copilot, Cline)
AGENT_EVENT = "cupcake_agent_event"  # where parse() keeps the agent's own event name when stdin lacks it


class HookHarness:
    name = ""
    title = ""
    events: frozenset[str] = frozenset()
    # what the agent can enforce (policy input `harness_capabilities`, `cupcake verify`)
    capabilities: dict[str, bool] = {}

    def __init__(self) -> None:
        self.data = HarnessData(self.name)
        self._table: ToolTable | None = None

    # -- subclass hooks --------------------------------------------------------------------------------

    def parse(self, value: Any) -> dict[str, Any]:
        raise NotImplementedError

    def split(self, event: dict[str, Any]) -> Call:
        raise NotImplementedError

    def answer(self, final: FinalDecision, event: dict[str, Any], call: Call) -> Answer:
        raise NotImplementedError

    def failure(self, message: str, event: Any) -> Answer:
        raise NotImplementedError

    def install(self, directory: Path | None, force: bool) -> list[tuple[str, FileAction]]:
        raise NotImplementedError

    def uninstall(self, directory: Path | None) -> list[tuple[str, FileAction]]:
        raise NotImplementedError

    # -- cupcake protect / verify --all (cupcake_py/authoring/agents.py) --------------------------------

    binaries: tuple[str, ...] = ()  # executables that mean the agent is installed

    def config_home(self) -> Path:
        """The agent's user config dir (an existing one also means the agent is installed)."""
        raise NotImplementedError

    def configured_hooks(self, directory: Path | None) -> list[tuple[str, str, float | None]]:
        """(agent event, command, hook timeout in seconds) of cupcake's hooks for `directory` (None: the
        user's), exactly as the agent runs them."""
        raise NotImplementedError

    def canary(self, command: str, cwd: str) -> dict[str, Any]:
        """A pre-tool shell event in the agent's own format (nothing runs: cupcake only evaluates it)."""
        raise NotImplementedError

    # -- the engine's protocol -------------------------------------------------------------------------

    def table(self) -> ToolTable:
        if self._table is None:
            from cupcake_py.harness.hooked import ToolTable

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
        """The shell command as the agent will run it, where a rewritten command is run (the sandbox
        floor wraps it); None where the agent cannot run a rewritten command."""
        if not self.capabilities.get("can_rewrite_shell"):
            return None
        call = self.split(event)
        if call.tool is None or call.args is None or self.table().tool_name(call.tool) != "Bash":
            return None
        command = self.table().shared_args(call.tool, call.args).get("command")
        return command if isinstance(command, str) else None

    def preprocess(self, event: dict[str, Any], *, script_inspection: bool) -> dict[str, Any]:
        from cupcake_py.harness.hooked import policy_input

        raw = {k: v for k, v in event.items() if k != AGENT_EVENT}
        return policy_input(self.name, self.split(event), raw, self.table(), self.capabilities,
                            script_inspection=script_inspection)

    def respond(self, final: FinalDecision, event: dict[str, Any], strict: bool) -> Answer:
        return self.answer(final, event, self.split(event))

    def fail(self, message: str, event: Any) -> Answer:
        text = message if message.startswith("cupcake:") else f"cupcake: {message}"
        return self.failure(text, event)

    def examples_dir(self) -> str:
        import os

        return os.path.join(self.data.dir(), "examples")
