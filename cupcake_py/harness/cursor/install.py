"""`cupcake init --harness cursor [--global] [--uninstall]`: cupcake's command hooks in Cursor's
`<project>/.cursor/hooks.json` (or `~/.cursor/hooks.json` with --global), per Cursor's documented contract.

In: the hooks file (missing = `{"version": 1, "hooks": {}}`; anything but a JSON object, or `hooks` that
is not an object, is an error and the file is left untouched). Out: the same file with, for every event in
EVENTS, one hook `{"command": <guard>, "timeout": TIMEOUT_VALUE, "failClosed": true}` appended after the
user's hooks of that event. Ours are the hooks whose command runs `eval --harness cursor` (MARK):
re-running replaces exactly those (idempotent), `--uninstall` removes only them. Written atomically.

Fail closed: `failClosed: true` (documented: block when the hook fails), exit 2 + blocking JSON from the
guard (cupcake_py/harness/guard.py) on any failure of cupcake, cupcake from PATH. The documented unit of
`timeout` differs between sources (seconds or milliseconds): TIMEOUT_VALUE = 60000 is 60 s if it is
milliseconds and more than cupcake ever takes if it is seconds (the guard ends cupcake at KILL_AFTER).
"""

from __future__ import annotations

import os
from pathlib import Path

from cupcake_py.harness.cursor.response import blocking
from cupcake_py.harness.files import FileAction
from cupcake_py.harness.guard import REASON, InstallError, guarded_script, require_cupcake, sh_command
from cupcake_py.harness.hook_settings import read_settings, write_settings

MARK = "eval --harness cursor"
TIMEOUT_VALUE = 60000
# The events cupcake answers (the gates, prompts, context and stop; after* events only add history).
EVENTS = ("preToolUse", "postToolUse", "beforeShellExecution", "beforeMCPExecution", "beforeReadFile",
          "afterFileEdit", "beforeSubmitPrompt", "sessionStart", "sessionEnd", "subagentStart", "subagentStop", "stop")


def hooks_path(project: Path | None) -> Path:
    if project is None:
        return Path(os.environ.get("HOME") or Path.home()) / ".cursor" / "hooks.json"
    return project / ".cursor" / "hooks.json"


def hook_command() -> str:
    return sh_command(guarded_script("cursor", blocking(REASON), 2))


def is_ours(hook: object) -> bool:
    return isinstance(hook, dict) and isinstance(hook.get("command"), str) and MARK in hook["command"]


def without_ours(config: dict[str, object]) -> dict[str, object]:
    out = dict(config)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    kept: dict[str, object] = {}
    for event, entries in hooks.items():
        if isinstance(entries, list):
            rest = [h for h in entries if not is_ours(h)]
            if rest or not entries:
                kept[event] = rest
        else:
            kept[event] = entries
    out["hooks"] = kept
    return out


def with_ours(config: dict[str, object]) -> dict[str, object]:
    out = without_ours(config)
    out.setdefault("version", 1)
    hooks = out.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError("`hooks` in the hooks file is not an object; fix it by hand first")
    hooks = dict(hooks)
    command = hook_command()
    for event in EVENTS:
        entries = hooks.get(event, [])
        if not isinstance(entries, list):
            raise InstallError(f"`hooks.{event}` in the hooks file is not a list; fix it by hand first")
        hooks[event] = [*entries, {"command": command, "timeout": TIMEOUT_VALUE, "failClosed": True}]
    out["hooks"] = hooks
    return out


def configured(project: Path | None) -> list[tuple[str, str, float | None]]:
    """(event, command, timeout in seconds if the documented unit is ms) of every cupcake hook, as written."""
    try:
        config = read_settings(hooks_path(project))
    except InstallError:
        return []
    hooks = config.get("hooks")
    out: list[tuple[str, str, float | None]] = []
    for event, entries in hooks.items() if isinstance(hooks, dict) else ():
        for h in entries if isinstance(entries, list) else []:
            if is_ours(h):
                t = h.get("timeout")
                out.append((event, h["command"], t / 1000 if isinstance(t, int | float) else None))
    return out


def install(project: Path | None) -> list[tuple[str, FileAction]]:
    require_cupcake()
    path = hooks_path(project)
    return [(str(path), write_settings(path, with_ours(read_settings(path))))]


def uninstall(project: Path | None) -> list[tuple[str, FileAction]]:
    path = hooks_path(project)
    if not path.exists():
        return [(str(path), "unchanged")]
    before = read_settings(path)
    after = without_ours(before)
    if after == before:
        return [(str(path), "unchanged")]
    if after.get("hooks") == {} and set(after) <= {"version", "hooks"}:
        path.unlink()  # only what cupcake wrote was there
        return [(str(path), "removed")]
    write_settings(path, after)
    return [(str(path), "removed")]
