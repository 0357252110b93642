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
which Claude Code would give up on the hook and run the tool.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
import tempfile
from pathlib import Path

from cupcake_py.errors import CupcakeError
from cupcake_py.harness.files import FileAction

CUPCAKE_MARK = "eval --harness claude"
EVAL_TIMEOUT = 10  # --timeout: routing, signals and WASM of one evaluation
HARD_TIMEOUT = 40  # --hard-timeout: the whole process, a bundle (re)build included
KILL_AFTER = 50  # coreutils timeout: SIGTERM, then SIGKILL 5 s later
HOOK_TIMEOUT = 60  # Claude Code's hook timeout (seconds); past it Claude Code runs the tool
TOOL_EVENTS = ("PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest")
OTHER_EVENTS = ("UserPromptSubmit", "SessionStart", "Stop", "SubagentStop", "PreCompact", "SessionEnd", "Notification")


class InstallError(CupcakeError):
    pass


def settings_path(project: Path | None) -> Path:
    """`<project>/.claude/settings.json`, or `~/.claude/settings.json` for None (global)."""
    if project is None:
        return Path(os.environ.get("HOME") or Path.home()) / ".claude" / "settings.json"
    return project / ".claude" / "settings.json"


PATH_EXECUTABLE = "cupcake"


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
    exe = shlex.quote(executable or cupcake_executable())
    args = f"eval --harness claude --timeout {eval_timeout:g} --hard-timeout {hard_timeout:g}"
    script = (
        f'if command -v timeout >/dev/null 2>&1; then timeout -k 5 {kill_after:g} {exe} {args}; '
        f'else {exe} {args}; fi; s=$?; [ "$s" -eq 0 ] && exit 0; '
        '[ "$s" -eq 2 ] || echo "cupcake: the policy check failed (exit $s); blocked (fail closed)" >&2; exit 2'
    )
    return "sh -c " + shlex.quote(script)


def is_ours(hook: object) -> bool:
    return isinstance(hook, dict) and isinstance(hook.get("command"), str) and CUPCAKE_MARK in hook["command"]


def _our_group(event: str, command: str) -> dict[str, object]:
    hook = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT}
    return {"matcher": "*", "hooks": [hook]} if event in TOOL_EVENTS else {"hooks": [hook]}


def without_ours(settings: dict[str, object]) -> dict[str, object]:
    """`settings` with cupcake's hooks removed (groups and events left empty by that too)."""
    out = dict(settings)
    hooks = out.get("hooks")
    if not isinstance(hooks, dict):
        return out
    kept: dict[str, object] = {}
    for event, groups in hooks.items():
        if not isinstance(groups, list):
            kept[event] = groups
            continue
        new_groups = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                mine = [h for h in group["hooks"] if is_ours(h)]
                if mine:
                    rest = [h for h in group["hooks"] if not is_ours(h)]
                    if not rest:
                        continue
                    group = {**group, "hooks": rest}
            new_groups.append(group)
        if new_groups or not groups:
            kept[event] = new_groups
    if kept:
        out["hooks"] = kept
    else:
        del out["hooks"]
    return out


def with_ours(settings: dict[str, object], command: str) -> dict[str, object]:
    out = without_ours(settings)
    hooks = out.get("hooks", {})
    if not isinstance(hooks, dict):
        raise InstallError("`hooks` in the settings is not an object; fix it by hand first")
    hooks = dict(hooks)
    for event in TOOL_EVENTS + OTHER_EVENTS:
        groups = hooks.get(event, [])
        if not isinstance(groups, list):
            raise InstallError(f"`hooks.{event}` in the settings is not a list; fix it by hand first")
        hooks[event] = [*groups, _our_group(event, command)]
    out["hooks"] = hooks
    return out


def read_settings(path: Path) -> dict[str, object]:
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise InstallError(f"{path}: cannot read it: {e}") from None
    try:
        value = json.loads(text) if text.strip() else {}
    except ValueError as e:
        raise InstallError(f"{path}: not valid JSON ({e}); left untouched") from None
    if not isinstance(value, dict):
        raise InstallError(f"{path}: not a JSON object; left untouched")
    return value


def write_settings(path: Path, settings: dict[str, object]) -> FileAction:
    """Write atomically; returns created | overwritten | unchanged | removed."""
    text = json.dumps(settings, indent=2) + "\n"
    action: FileAction
    if path.exists():
        if path.read_text("utf-8") == text:
            return "unchanged"
        action = "overwritten"
    else:
        action = "created"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".settings.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        if path.exists():
            os.chmod(tmp, path.stat().st_mode & 0o777)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return action


def install(project: Path | None, command: str | None = None) -> tuple[Path, FileAction]:
    """A project's settings run `cupcake` from PATH (teams commit .claude/settings.json; an absolute
    path would be this machine's), as the OpenCode plugin does; the user's own ~/.claude/settings.json
    runs this installation's absolute path. A `cupcake` that is not found exits 127: blocked."""
    path = settings_path(project)
    default = hook_command(PATH_EXECUTABLE if project is not None else None)
    return path, write_settings(path, with_ours(read_settings(path), command or default))


def uninstall(project: Path | None) -> tuple[Path, FileAction]:
    path = settings_path(project)
    if not path.exists():
        return path, "unchanged"
    before = read_settings(path)
    after = without_ours(before)
    if after == before:
        return path, "unchanged"
    if not after:  # nothing of the user's was in it: no `{}` left behind (nor an empty .claude/)
        path.unlink()
        try:
            path.parent.rmdir()
        except OSError:
            pass  # the directory holds other files
        return path, "removed"
    write_settings(path, after)
    return path, "removed"
