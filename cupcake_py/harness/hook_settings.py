"""`cupcake init --harness codex|gemini|qwen [--global] [--uninstall]`: cupcake's command hooks merged
into an agent's JSON hook settings (Claude Code's layout, which Codex, Gemini CLI and Qwen Code share:
`{"hooks": {"<Event>": [{"matcher": "...", "hooks": [{"type": "command", "command": ..., "timeout": ...}]}]}}`).

In: the settings file (missing = `{}`; anything but a JSON object, or `hooks` that is not an object of
lists, is an error and the file is left untouched). Out: the same settings with one group per event
cupcake answers appended after the user's own groups. Our hooks are those whose command holds
`eval --harness <name>` (the mark): re-running replaces exactly those (idempotent: the same bytes come
out), `--uninstall` removes only them, every other key, group and hook stays. Written atomically.

Fail closed despite the agent (every one of them runs the tool when a hook exits 1, times out or prints
invalid JSON): the command is `sh -c '<script>'` where the script runs `cupcake` FROM PATH (never one
machine's absolute path) under coreutils `timeout` (when present) and turns ANY non-zero status
(cupcake missing: 127, killed: 124/137, a crash: 1) into exit 2 with a reason on stderr, which each of
these agents treats as blocking. cupcake's own deadlines (`--timeout` EVAL_TIMEOUT, `--hard-timeout`
HARD_TIMEOUT) and the kill (KILL_AFTER) all come before the hook timeout written (HOOK_TIMEOUT_S, in
the agent's unit), after which the agent would give up on the hook and run the tool.
Installing needs `cupcake` on PATH: InstallError names the fix when it is not.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from cupcake_py.errors import CupcakeError
from cupcake_py.harness.files import FileAction

EVAL_TIMEOUT = 10  # --timeout: routing, signals and WASM of one evaluation
HARD_TIMEOUT = 40  # --hard-timeout: the whole process, a bundle (re)build included
KILL_AFTER = 50  # coreutils timeout: SIGTERM, then SIGKILL 5 s later
HOOK_TIMEOUT_S = 60  # the hook timeout written to the agent's settings (seconds; converted to its unit)


class InstallError(CupcakeError):
    pass


def hook_command(harness: str, eval_timeout: float = EVAL_TIMEOUT, hard_timeout: float = HARD_TIMEOUT,
                 kill_after: float = KILL_AFTER, executable: str = "cupcake") -> str:
    exe = shlex.quote(executable)
    args = f"eval --harness {harness} --timeout {eval_timeout:g} --hard-timeout {hard_timeout:g}"
    script = (
        f'if command -v timeout >/dev/null 2>&1; then timeout -k 5 {kill_after:g} {exe} {args}; '
        f'else {exe} {args}; fi; s=$?; [ "$s" -eq 0 ] && exit 0; '
        '[ "$s" -eq 2 ] || echo "cupcake: the policy check failed (exit $s); blocked (fail closed)" >&2; exit 2'
    )
    return "sh -c " + shlex.quote(script)


def require_cupcake_on_path() -> str:
    found = shutil.which("cupcake")
    if not found:
        raise InstallError("`cupcake` is not on PATH, so the agent could not run its hook: install it "
                           "(`pipx install cupcake-py`, or activate the environment that has it) and re-run")
    return found


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
    text = json.dumps(settings, indent=2) + "\n"
    action: FileAction
    if path.exists():
        if path.read_text("utf-8") == text:
            return "unchanged"
        action = "overwritten"
    else:
        action = "created"
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".cupcake.", suffix=".tmp")
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


class HookInstaller:
    """One agent's hook settings. `settings_path(project)` (None: global); `events`: (event, matcher or
    None) in the order written; `timeout_unit`: how many of the agent's units make a second (1: seconds,
    1000: milliseconds); `after_install(project, path)`: the agent's extra step (trust), returning more
    (path, action) rows."""

    def __init__(self, harness: str, settings_path: Callable[[Path | None], Path],
                 events: tuple[tuple[str, str | None], ...], timeout_unit: int,
                 after_install: Callable[[Path | None], list[tuple[str, FileAction]]] | None = None,
                 notes: Callable[[Path | None], list[str]] | None = None) -> None:
        self.harness = harness
        self.settings_path = settings_path
        self.events = events
        self.timeout_unit = timeout_unit
        self.after_install = after_install
        self.notes = notes or (lambda _p: [])
        self.mark = f"eval --harness {harness}"

    def is_ours(self, hook: object) -> bool:
        return isinstance(hook, dict) and isinstance(hook.get("command"), str) and self.mark in hook["command"]

    def _group(self, matcher: str | None, command: str) -> dict[str, object]:
        hook = {"type": "command", "command": command, "timeout": HOOK_TIMEOUT_S * self.timeout_unit}
        return {"matcher": matcher, "hooks": [hook]} if matcher is not None else {"hooks": [hook]}

    def without_ours(self, settings: dict[str, object]) -> dict[str, object]:
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
                    if any(self.is_ours(h) for h in group["hooks"]):
                        rest = [h for h in group["hooks"] if not self.is_ours(h)]
                        if not rest:
                            continue
                        group = {**group, "hooks": rest}
                new_groups.append(group)
            if new_groups or not groups:
                kept[event] = new_groups
        if kept:
            out["hooks"] = kept
        else:
            out.pop("hooks", None)
        return out

    def with_ours(self, settings: dict[str, object], command: str) -> dict[str, object]:
        out = self.without_ours(settings)
        hooks = out.get("hooks", {})
        if not isinstance(hooks, dict):
            raise InstallError("`hooks` in the settings is not an object; fix it by hand first")
        hooks = dict(hooks)
        for event, matcher in self.events:
            groups = hooks.get(event, [])
            if not isinstance(groups, list):
                raise InstallError(f"`hooks.{event}` in the settings is not a list; fix it by hand first")
            hooks[event] = [*groups, self._group(matcher, command)]
        out["hooks"] = hooks
        return out

    def install(self, project: Path | None, command: str | None = None) -> list[tuple[str, FileAction]]:
        if command is None:
            require_cupcake_on_path()
            command = hook_command(self.harness)
        path = self.settings_path(project)
        rows = [(str(path), write_settings(path, self.with_ours(read_settings(path), command)))]
        if self.after_install is not None:
            rows += self.after_install(project)
        return rows

    def uninstall(self, project: Path | None) -> list[tuple[str, FileAction]]:
        path = self.settings_path(project)
        if not path.exists():
            return [(str(path), "unchanged")]
        before = read_settings(path)
        after = self.without_ours(before)
        if after == before:
            return [(str(path), "unchanged")]
        write_settings(path, after)
        return [(str(path), "removed")]

    def configured(self, project: Path | None) -> list[tuple[str, str, float | None]]:
        """(event, command, hook timeout in seconds) of every cupcake hook the settings file holds,
        exactly as written (what `cupcake verify --all` runs)."""
        path = self.settings_path(project)
        try:
            settings = read_settings(path)
        except InstallError:
            return []
        hooks = settings.get("hooks")
        out: list[tuple[str, str, float | None]] = []
        if not isinstance(hooks, dict):
            return out
        for event, groups in hooks.items():
            for group in groups if isinstance(groups, list) else []:
                for h in group.get("hooks", []) if isinstance(group, dict) else []:
                    if self.is_ours(h):
                        t = h.get("timeout")
                        out.append((event, h["command"], t / self.timeout_unit if isinstance(t, int | float) else None))
        return out
