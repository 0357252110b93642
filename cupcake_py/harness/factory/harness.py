"""The Factory Droid harness (`cupcake eval --harness factory`; protocol: engine/harness_api.py, shared
parts: cupcake_py/harness/hookbase.py).

Events (droid 0.225.2, `.factory/hooks.json` or `~/.factory/hooks.json`): Claude Code's shape
(hook_event_name, session_id, cwd, tool_name, tool_input, tool_response as a string) with Droid's tool
names and arguments (Execute for the shell, Create for new files, old_str/new_str). Answers: response.py.
Droid runs the tool when a hook exits 1, times out or prints invalid JSON, and its `ask` lets the tool run
in `droid exec`, so install.py's hook maps every failure to exit 2 and an ask becomes the fallback.
"""

from __future__ import annotations

from cupcake_py.harness.hookbase import HookHarness

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from cupcake_py.engine.harness_api import Answer
    from cupcake_py.engine.synthesis import FinalDecision
    from cupcake_py.harness.files import FileAction
    from cupcake_py.harness.hooked import Call

TOOL_EVENTS = ("PreToolUse", "PostToolUse")
OTHER_EVENTS = ("UserPromptSubmit", "SessionStart", "Stop", "SubagentStop", "SessionEnd", "Notification", "PreCompact")
# Droid's field -> the shared name policies read (the original stays too)
EXTRA = {"tool_response": "tool_response", "prompt": "prompt", "source": "source", "reason": "reason",
         "stop_hook_active": "stop_hook_active"}


class FactoryDroid(HookHarness):
    name = "factory"
    title = "Factory Droid"
    events = frozenset(TOOL_EVENTS + OTHER_EVENTS)
    capabilities = {"can_ask": False, "can_rewrite_shell": True, "can_deny_tool": True, "subagent_calls_hooked": False}

    def parse(self, value: Any) -> dict[str, Any]:
        from cupcake_py.harness.schema import args_errors, checked, schema_errors

        errors = schema_errors(value, self.data.event_schema())
        if not errors and isinstance(value.get("tool_name"), str) and isinstance(value.get("tool_input"), dict):
            errors = args_errors(self.data.tool_map()["tool_args"], value["tool_name"], value["tool_input"],
                                 "tool_input")
        return checked(value, errors, self.title)

    def split(self, event: dict[str, Any]) -> Call:
        from cupcake_py.harness.hooked import Call

        name = str(event["hook_event_name"])
        tool = event.get("tool_name") if name in TOOL_EVENTS else None
        args = event.get("tool_input") if tool is not None else None
        extra = {shared: event[key] for key, shared in EXTRA.items() if key in event}
        return Call(name, name, str(event["session_id"]), str(event["cwd"]), tool if isinstance(tool, str) else None,
                    args if isinstance(args, dict) else None, extra)

    def answer(self, final: FinalDecision, event: dict[str, Any], call: Call) -> Answer:
        from cupcake_py.harness.factory.response import answer

        return answer(final, event, call, self.table())

    def failure(self, message: str, event: Any) -> Answer:
        from cupcake_py.harness.factory.response import failure

        return failure(message, event)

    def install(self, directory: Path | None, force: bool) -> list[tuple[str, FileAction]]:
        """cupcake's hooks merged into `<directory>/.factory/hooks.json` (None: `~/.factory/hooks.json`)."""
        from cupcake_py.harness.factory.install import install

        return install(directory, TOOL_EVENTS + OTHER_EVENTS)

    def uninstall(self, directory: Path | None) -> list[tuple[str, FileAction]]:
        from cupcake_py.harness.factory.install import uninstall

        return uninstall(directory)

    binaries = ("droid",)

    def config_home(self) -> Path:
        from cupcake_py.harness.factory.install import hooks_path

        return hooks_path(None).parent

    def configured_hooks(self, directory: Path | None) -> list[tuple[str, str, float | None]]:
        from cupcake_py.harness.factory.install import configured

        return configured(directory)

    def canary(self, command: str, cwd: str) -> dict[str, Any]:
        return {"hook_event_name": "PreToolUse", "session_id": "cupcake-verify-canary", "cwd": cwd,
                "tool_name": "Execute", "tool_input": {"command": command, "summary": "cupcake verify canary",
                                                       "riskLevel": "low", "riskLevelReason": "a canary"}}


HARNESS = FactoryDroid()
