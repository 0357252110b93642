"""`cupcake init --harness X [--global] [--uninstall]` for every agent whose hooks live in a JSON file it
shares with the user (Claude Code, Codex, Gemini CLI, Qwen Code, Factory Droid, Cursor): cupcake's hooks
merged into that file, one table row (`HookInstaller`) per agent.

Layouts (`under`, `grouped`): Claude Code's, which Codex, Gemini CLI and Qwen Code share,
`{"hooks": {"<Event>": [{"matcher": "...", "hooks": [{"type": "command", "command": ..., "timeout": ...}]}]}}`;
Factory Droid's, the same groups at the TOP level (`under=None`); Cursor's, hooks straight in the event's
list (`grouped=False`) with a `{"version": 1}` header.

In: the file (missing = `{}`; anything but a JSON object, or an event entry that is not a list, is an error
and the file is left untouched). Out: the same file with one hook (in a group where the layout has groups)
per event cupcake answers appended after the user's own. Our hooks are those whose command holds
`eval --harness <name>` (the mark): re-running replaces exactly those (idempotent: the same bytes come
out), `--uninstall` removes only them, every other key, group and hook stays (`empty`: when what is left
counts as nothing of the user's, the file is deleted instead; `rmdir`: its directory too when empty).
Written atomically. The commands are the fail-closed wrappers of cupcake_py/harness/guard.py (cupcake
from PATH, every failure the agent's blocking answer, cupcake's deadlines below the hook timeout written
here: HOOK_TIMEOUT_S in the agent's unit). Installing needs `cupcake` on PATH unless the command is given:
InstallError names the fix.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path

from cupcake_py.harness.files import FileAction, InstallError
from cupcake_py.harness.guard import HOOK_TIMEOUT_S, hook_command, require_cupcake

Settings = dict[str, object]


def read_settings(path: Path, comments: list[str] | None = None) -> Settings:
    """The JSON object in `path` (missing or empty: {}); InstallError for anything else. `comments`: collects
    the file's `//` comment lines, which are then no error (Copilot's config.json has them)."""
    try:
        text = path.read_text("utf-8")
    except FileNotFoundError:
        return {}
    except OSError as e:
        raise InstallError(f"{path}: cannot read it: {e}") from None
    if comments is not None:
        lines = text.splitlines()
        comments += [ln for ln in lines if ln.lstrip().startswith("//")]
        text = "\n".join(ln for ln in lines if not ln.lstrip().startswith("//"))
    try:
        value = json.loads(text) if text.strip() else {}
    except ValueError as e:
        raise InstallError(f"{path}: not valid JSON ({e}); left untouched") from None
    if not isinstance(value, dict):
        raise InstallError(f"{path}: not a JSON object; left untouched")
    return value


def write_settings(path: Path, settings: Settings, comments: list[str] | None = None) -> FileAction:
    """Write atomically (temp file + rename, the file's mode kept), after the `comments` lines read_settings
    collected; created | overwritten | unchanged."""
    text = "".join(c + "\n" for c in comments or []) + json.dumps(settings, indent=2) + "\n"
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


def _default_command(harness: str) -> Callable[[str, Path | None], str]:
    def command(_event: str, _project: Path | None) -> str:
        require_cupcake()
        return hook_command(harness)

    return command


class HookInstaller:
    """One agent's hook file. `settings_path(project)` (None: global); `events`: (event, matcher or None) in
    the order written; `timeout_unit`: how many of the agent's units make a second (1: seconds, 1000:
    milliseconds); `command(event, project)`: the hook command (default: guard.hook_command after checking
    cupcake is on PATH); `hook`: extra keys of our hook (Cursor's failClosed); `under`: the key holding the
    events (None: the top level); `grouped`: hooks sit in matcher groups; `header`: keys set when missing;
    `noun`: the file as error messages name it; `empty(settings)`: what is left after uninstall is nothing
    of the user's (the file is deleted; `rmdir`: its directory too when empty); `after_install(project)`:
    the agent's extra step (trust), returning more (path, action) rows; `notes(project)`: what init prints;
    `problems(project)`: what the agent would do wrong with the hooks installed (`cupcake verify --all`)."""

    def __init__(self, harness: str, settings_path: Callable[[Path | None], Path],
                 events: tuple[tuple[str, str | None], ...], timeout_unit: int,
                 after_install: Callable[[Path | None], list[tuple[str, FileAction]]] | None = None,
                 notes: Callable[[Path | None], list[str]] | None = None, *,
                 command: Callable[[str, Path | None], str] | None = None, hook: Settings | None = None,
                 under: str | None = "hooks", grouped: bool = True, header: Settings | None = None,
                 noun: str = "the settings", empty: Callable[[Settings], bool] | None = None,
                 rmdir: bool = False, timeout: int = HOOK_TIMEOUT_S,
                 problems: Callable[[Path | None], list[str]] | None = None) -> None:
        self.harness = harness
        self.settings_path = settings_path
        self.events = events
        self.timeout_unit = timeout_unit
        self.after_install = after_install
        self.notes = notes or (lambda _p: [])
        self.command = command or _default_command(harness)
        self.hook_extra = hook or {}
        self.under = under
        self.grouped = grouped
        self.header = header or {}
        self.noun = noun
        self.empty = empty
        self.rmdir = rmdir
        self.timeout = timeout * timeout_unit
        self.check = problems
        self.mark = f"eval --harness {harness}"

    def is_ours(self, hook: object) -> bool:
        return isinstance(hook, dict) and isinstance(hook.get("command"), str) and self.mark in hook["command"]

    def _entry(self, matcher: str | None, command: str) -> Settings:
        hook: Settings = {"command": command, "timeout": self.timeout, **self.hook_extra}
        if not self.grouped:
            return hook
        hook = {"type": "command", **hook}
        return {"matcher": matcher, "hooks": [hook]} if matcher is not None else {"hooks": [hook]}

    def _events(self, settings: Settings) -> object:
        return settings.get(self.under) if self.under is not None else settings

    def _without_ours_in(self, entries: list[object]) -> list[object]:
        if not self.grouped:
            return [h for h in entries if not self.is_ours(h)]
        kept = []
        for group in entries:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                if any(self.is_ours(h) for h in group["hooks"]):
                    rest = [h for h in group["hooks"] if not self.is_ours(h)]
                    if not rest:
                        continue
                    group = {**group, "hooks": rest}
            kept.append(group)
        return kept

    def without_ours(self, settings: Settings) -> Settings:
        """`settings` with cupcake's hooks removed (groups and events left empty by that too)."""
        hooks = self._events(settings)
        if not isinstance(hooks, dict):
            return dict(settings)
        kept: Settings = {}
        for event, entries in hooks.items():
            if not isinstance(entries, list):
                kept[event] = entries
                continue
            rest = self._without_ours_in(entries)
            if rest or not entries:
                kept[event] = rest
        if self.under is None:
            return kept
        out = dict(settings)
        if kept or self.header:
            out[self.under] = kept
        else:
            out.pop(self.under, None)
        return out

    def with_ours(self, settings: Settings, commands: dict[str, str]) -> Settings:
        """`settings` with cupcake's hooks (event -> command) after the user's own."""
        out = self.without_ours(settings)
        for key, value in self.header.items():
            out.setdefault(key, value)
        hooks = out if self.under is None else out.get(self.under, {})
        if not isinstance(hooks, dict):
            raise InstallError(f"`{self.under}` in {self.noun} is not an object; fix it by hand first")
        hooks = dict(hooks)
        prefix = f"{self.under}." if self.under is not None else ""
        for event, matcher in self.events:
            entries = hooks.get(event, [])
            if not isinstance(entries, list):
                raise InstallError(f"`{prefix}{event}` in {self.noun} is not a list; fix it by hand first")
            hooks[event] = [*entries, self._entry(matcher, commands[event])]
        if self.under is None:
            return hooks
        out[self.under] = hooks
        return out

    def install(self, project: Path | None, command: str | None = None, *,
                force: bool = False) -> list[tuple[str, FileAction]]:
        """`force` changes nothing: the user's own hooks are never overwritten."""
        commands = {event: command or self.command(event, project) for event, _ in self.events}
        path = self.settings_path(project)
        rows = [(str(path), write_settings(path, self.with_ours(read_settings(path), commands)))]
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
        if self.empty is not None and self.empty(after):  # only what cupcake wrote was there
            path.unlink()
            if self.rmdir:
                try:
                    path.parent.rmdir()
                except OSError:
                    pass  # the directory holds other files
            return [(str(path), "removed")]
        write_settings(path, after)
        return [(str(path), "removed")]

    def config_home(self) -> Path:
        return self.settings_path(None).parent

    def problems(self, project: Path | None) -> list[str]:
        return list(self.check(project)) if self.check is not None else []

    def configured(self, project: Path | None) -> list[tuple[str, str, float | None]]:
        """(event, command, hook timeout in seconds) of every cupcake hook the file holds, exactly as written
        (what `cupcake verify --all` runs)."""
        try:
            hooks = self._events(read_settings(self.settings_path(project)))
        except InstallError:
            return []
        out: list[tuple[str, str, float | None]] = []
        for event, entries in hooks.items() if isinstance(hooks, dict) else ():
            for entry in entries if isinstance(entries, list) else []:
                inner = entry.get("hooks", []) if self.grouped and isinstance(entry, dict) else [entry]
                for h in inner if isinstance(inner, list) else []:
                    if self.is_ours(h):
                        t = h.get("timeout")
                        out.append((event, h["command"], t / self.timeout_unit if isinstance(t, int | float) else None))
        return out
