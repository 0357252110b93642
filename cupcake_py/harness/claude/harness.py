"""The Claude Code harness as the value `cupcake eval --harness claude` hands to the engine
(protocol: cupcake_py/engine/harness_api.py).

Events: Claude Code's command hooks (PreToolUse, PostToolUse, PostToolUseFailure,
UserPromptSubmit, SessionStart, Stop, SubagentStop, PreCompact, SessionEnd, PermissionRequest,
Notification) as installed by `cupcake init --harness claude` (install.py). Answers:
response.py. Claude Code runs the tool when a hook exits 1, times out or prints invalid JSON,
so every failure here answers exit 2 (blocking) and install.py wraps the command so a crash
or a kill becomes exit 2 too.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from cupcake_py.engine.harness_api import Answer
    from cupcake_py.engine.synthesis import FinalDecision
    from cupcake_py.harness.files import FileAction
    from cupcake_py.harness.hook_settings import HookInstaller


class ClaudeCode:
    name = "claude"
    events = frozenset({"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "UserPromptSubmit",
                        "SessionStart", "Stop", "SubagentStop", "PreCompact", "SessionEnd", "Notification"})

    def validate(self, value: Any) -> dict[str, Any]:
        from cupcake_py.harness.claude.validate import validate_event

        return validate_event(value)

    def event_name(self, event: dict[str, Any]) -> str:
        return str(event["hook_event_name"])

    def tool_name(self, event: dict[str, Any]) -> str | None:
        tool = event.get("tool_name")
        if not isinstance(tool, str):
            return None
        from cupcake_py.harness.claude.data import mapped_tool_name

        return mapped_tool_name(tool)

    def cwd(self, event: dict[str, Any]) -> str:
        return str(event["cwd"])

    def shell_command(self, event: dict[str, Any]) -> str | None:
        """The Bash command exactly as Claude Code will run it (the sandbox wraps this text)."""
        ti = event.get("tool_input")
        command = ti.get("command") if isinstance(ti, dict) else None
        return command if isinstance(command, str) else None

    def preprocess(self, event: dict[str, Any], *, script_inspection: bool) -> dict[str, Any]:
        from cupcake_py.harness.claude.preprocess import preprocess

        return preprocess(event, script_inspection=script_inspection)

    def respond(self, final: FinalDecision, event: dict[str, Any], strict: bool) -> Answer:
        from cupcake_py.harness.claude.preprocess import added_aliases
        from cupcake_py.harness.claude.response import respond

        final = sticky_halt(final, event)
        drop: set[str] = set()
        tool, args = event.get("tool_name"), event.get("tool_input")
        if isinstance(tool, str) and isinstance(args, dict):
            from cupcake_py.harness.claude.data import mapped_tool_name

            drop = set(added_aliases(mapped_tool_name(tool), args))
        return respond(final, event, strict, drop)

    def fail(self, message: str, event: Any) -> Answer:
        from cupcake_py.harness.claude.response import failure

        return failure(message, event)

    # -- setup (cupcake init) and examples: not on the eval path -------------------------------

    def install(self, directory: Path | None, force: bool) -> list[tuple[str, FileAction]]:
        """cupcake's hooks merged into `<directory>/.claude/settings.json` (None: ~/.claude/settings.json);
        `force` changes nothing (the user's own settings are never overwritten)."""
        return self.setup().install(directory)

    def uninstall(self, directory: Path | None) -> list[tuple[str, FileAction]]:
        return self.setup().uninstall(directory)

    # What `cupcake verify --all` / `cupcake protect` read (cupcake_py/authoring/agents.py).
    capabilities = {"can_rewrite_shell": True, "can_ask": True, "subagent_calls_hooked": True}

    def config_home(self) -> Path:
        return self.setup().settings_path(None).parent

    def configured_hooks(self, directory: Path | None) -> list[tuple[str, str, float | None]]:
        return self.setup().configured(directory)

    def setup(self) -> HookInstaller:
        from cupcake_py.harness.claude.install import INSTALLER

        return INSTALLER

    def examples_dir(self) -> str:
        import os

        from cupcake_py.harness.claude.data import DATA

        return os.path.join(DATA.dir(), "examples")


def sticky_halt(final: FinalDecision, event: dict[str, Any]) -> FinalDecision:
    """A halt ends the whole session (session_halts.py): remember a tool-call halt, answer every later event
    of a halted session as a halt, forget the session at SessionEnd."""
    from cupcake_py.harness import session_halts

    return session_halts.sticky("claude", final, event, PRE_TOOL, "SessionEnd")


PRE_TOOL = frozenset({"PreToolUse", "PermissionRequest"})


HARNESS = ClaudeCode()
