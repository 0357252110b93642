"""The OpenCode harness as the value `cupcake eval --harness opencode` hands to the engine
(protocol: cupcake_py/engine/harness_api.py).

Events come from the plugin (cupcake_py/harness/opencode/plugin/cupcake.js): PreToolUse,
PostToolUse, PermissionRequest with OpenCode's `tool`/`args`/`result`. Answers: response.py
(exit 0 with a decision, 1 deny/block under --strict, 2 with a deny on any failure).
"""

from __future__ import annotations

from cupcake_py.engine.harness_api import Answer

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from cupcake_py.engine.synthesis import FinalDecision
    from cupcake_py.harness.files import FileAction

PLUGIN_FILE = ("plugin", "cupcake.js")  # below this package: the built plugin bundle (make plugin)


class OpenCode:
    name = "opencode"
    events = frozenset({"PreToolUse", "PostToolUse", "PermissionRequest"})

    def validate(self, value: Any) -> dict[str, Any]:
        from cupcake_py.harness.opencode.validate import validate_event

        return validate_event(value)

    def event_name(self, event: dict[str, Any]) -> str:
        return str(event["hook_event_name"])

    def tool_name(self, event: dict[str, Any]) -> str | None:
        from cupcake_py.harness.opencode.data import mapped_tool_name

        return mapped_tool_name(event["tool"])

    def cwd(self, event: dict[str, Any]) -> str:
        return str(event["cwd"])

    def shell_command(self, event: dict[str, Any]) -> str | None:
        """The bash command exactly as OpenCode will run it (the sandbox wraps this text)."""
        args = event.get("args")
        command = args.get("command") if isinstance(args, dict) else None
        return command if isinstance(command, str) else None

    def preprocess(self, event: dict[str, Any], *, script_inspection: bool) -> dict[str, Any]:
        from cupcake_py.harness.opencode.preprocess import preprocess

        return preprocess(event, script_inspection=script_inspection)

    def respond(self, final: FinalDecision, event: dict[str, Any], strict: bool) -> Answer:
        from cupcake_py.harness.opencode.response import response

        out = response(final)
        return Answer(out, 1 if strict and out["decision"] in ("deny", "block") else 0)

    def fail(self, message: str, event: Any) -> Answer:
        from cupcake_py.harness.opencode.response import failure_response

        return Answer(failure_response(message), 2)

    # -- setup (cupcake init) and examples: not on the eval path -------------------------------

    def install(self, directory: Path | None, force: bool) -> list[tuple[str, FileAction]]:
        """The plugin at `<directory>/.opencode/plugin/cupcake.js` (None: the global
        `$XDG_CONFIG_HOME/opencode/plugin/cupcake.js`)."""
        import os
        from pathlib import Path

        from cupcake_py.harness.files import write_file

        bundle = Path(__file__).resolve().parent.joinpath(*PLUGIN_FILE)
        if directory is None:
            base = Path(os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config") / "opencode"
        else:
            base = directory / ".opencode"
        dest = base / "plugin" / "cupcake.js"
        return [(str(dest), write_file(dest, bundle.read_bytes(), force))]

    def uninstall(self, directory: Path | None) -> list[tuple[str, FileAction]]:
        from cupcake_py.core.errors import CupcakeError

        raise CupcakeError("--uninstall: the OpenCode plugin is one file; delete .opencode/plugin/cupcake.js")

    def canary(self, command: str, cwd: str) -> dict[str, Any]:
        """A bash call in the plugin's event format, for `cupcake verify --all` (nothing runs)."""
        return {"hook_event_name": "PreToolUse", "session_id": "cupcake-verify-canary", "cwd": cwd, "tool": "bash",
                "args": {"command": command}}

    def examples_dir(self) -> str:
        import os

        from cupcake_py.harness.opencode.data import harness_dir

        return os.path.join(harness_dir(), "examples")


HARNESS = OpenCode()
