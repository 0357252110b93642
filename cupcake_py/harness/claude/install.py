"""`cupcake init --harness claude [--global] [--uninstall]`: cupcake's command hooks in Claude
Code's settings (`<project>/.claude/settings.json`, or `~/.claude/settings.json` with --global).

In: the settings file (missing = `{}`; anything but a JSON object is an error and the file is
left untouched). Out: the same settings with, for every event cupcake answers, one hook group
`{"matcher": "*", "hooks": [{"type": "command", "command": HOOK_COMMAND, "timeout": 60}]}`
(no matcher for events without tools) appended after the user's own groups. Our hooks are the
ones whose command runs `eval --harness claude` (CUPCAKE_MARK); re-running replaces exactly
those (idempotent: the same file comes out), `--uninstall` removes only them, and every other
key, group and hook stays as it was (a file left with nothing else is deleted). Written atomically
(temp file + rename). A project's hooks run `cupcake` from PATH (the file is committed and shared),
the global ones this installation's absolute path.

Fail closed despite Claude Code failing open (it runs the tool when a hook exits 1, times out or
prints invalid JSON): the hook command runs cupcake under `sh -c` so that ANY non-zero exit
(interpreter or executable missing: 127, killed by the OOM killer or a signal: 128+n, a crash
with exit 1) becomes exit 2 with a message on stderr, which Claude Code treats as blocking;
coreutils `timeout` (when present) kills cupcake at KILL_AFTER seconds and cupcake's own
`--hard-timeout` answers at HARD_TIMEOUT, both below the hook `timeout` (HOOK_TIMEOUT) after
which Claude Code would give up on the hook and run the tool. The merge is
cupcake_py/harness/hook_settings.py's (one row), the wrapper cupcake_py/harness/guard.py's.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from cupcake_py.harness.files import FileAction, InstallError
from cupcake_py.harness.guard import EVAL_TIMEOUT, HARD_TIMEOUT, KILL_AFTER
from cupcake_py.harness.guard import HOOK_TIMEOUT_S as HOOK_TIMEOUT
from cupcake_py.harness.guard import hook_command as guard_command
from cupcake_py.harness.hook_settings import HookInstaller

__all__ = ["CUPCAKE_MARK", "EVAL_TIMEOUT", "HARD_TIMEOUT", "HOOK_TIMEOUT", "INSTALLER", "KILL_AFTER", "OTHER_EVENTS",
           "TOOL_EVENTS", "InstallError", "cupcake_executable", "hook_command", "install", "is_ours",
           "settings_path", "uninstall"]

CUPCAKE_MARK = "eval --harness claude"
TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest")
OTHER_EVENTS = ("UserPromptSubmit", "SessionStart", "Stop", "SubagentStop", "PreCompact", "SessionEnd", "Notification")
PATH_EXECUTABLE = "cupcake"


def settings_path(project: Path | None) -> Path:
    """`<project>/.claude/settings.json`, or `~/.claude/settings.json` for None (global)."""
    if project is None:
        return Path(os.environ.get("HOME") or Path.home()) / ".claude" / "settings.json"
    return project / ".claude" / "settings.json"


def cupcake_executable() -> str:
    """The absolute path of the running `cupcake` console script when there is one (hooks then
    work whatever PATH Claude Code has), else `cupcake` from PATH."""
    here = Path(sys.executable).parent / "cupcake"
    if here.is_file() and os.access(here, os.X_OK):
        return str(here)
    found = shutil.which("cupcake")
    return os.path.abspath(found) if found else "cupcake"


def hook_command(executable: str | None = None, eval_timeout: float = EVAL_TIMEOUT,
                 hard_timeout: float = HARD_TIMEOUT, kill_after: float = KILL_AFTER) -> str:
    return guard_command("claude", eval_timeout, hard_timeout, kill_after, executable or cupcake_executable())


def _command(_event: str, project: Path | None) -> str:
    """A project's settings run `cupcake` from PATH (teams commit .claude/settings.json; an absolute
    path would be this machine's), as the OpenCode plugin does; the user's own ~/.claude/settings.json
    runs this installation's absolute path. A `cupcake` that is not found exits 127: blocked."""
    return hook_command(PATH_EXECUTABLE if project is not None else None)


INSTALLER = HookInstaller("claude", settings_path, tuple((e, "*") for e in TOOL_EVENTS) +
                          tuple((e, None) for e in OTHER_EVENTS), 1, command=_command,
                          empty=lambda settings: not settings, rmdir=True)
is_ours = INSTALLER.is_ours


def install(project: Path | None, command: str | None = None) -> tuple[Path, FileAction]:
    (path, action), = INSTALLER.install(project, command)
    return Path(path), action


def uninstall(project: Path | None) -> tuple[Path, FileAction]:
    (path, action), = INSTALLER.uninstall(project)
    return Path(path), action
