"""`cupcake init --harness factory [--global] [--uninstall]`: cupcake's command hooks in Factory Droid's
`<project>/.factory/hooks.json` (or `~/.factory/hooks.json` with --global).

In: the hooks file (missing = `{}`; anything but a JSON object is an error and the file is left
untouched). Droid reads event keys at the TOP level (a `hooks` wrapper is ignored, measured). Out: the
same file with, for every event the harness gives (harness.TOOL_EVENTS + OTHER_EVENTS), one group
`{"matcher": "*", "hooks": [{"type": "command", "command": <guard>, "timeout": HOOK_TIMEOUT}]}` appended
after the user's groups. Ours are the hooks whose command runs `eval --harness factory` (MARK):
re-running replaces exactly those (idempotent), `--uninstall` removes only them; every other key, group
and hook stays. Written atomically. No trust step (Droid runs project hooks headless without asking).

The guard (cupcake_py/harness/guard.py) runs `cupcake` from PATH and turns every failure into the event's
blocking answer (response.blocking: exit 2 + deny for tool calls and prompts, `continue: false` elsewhere);
cupcake's deadlines stay below the hook `timeout`, past which Droid would run the tool.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from cupcake_py.harness.factory.response import blocking
from cupcake_py.harness.files import FileAction
from cupcake_py.harness.guard import REASON, InstallError, guarded_script, require_cupcake, sh_command
from cupcake_py.harness.hook_settings import HOOK_TIMEOUT_S as HOOK_TIMEOUT
from cupcake_py.harness.hook_settings import read_settings, write_settings

MARK = "eval --harness factory"


def hooks_path(project: Path | None) -> Path:
    if project is None:
        return Path(os.environ.get("HOME") or Path.home()) / ".factory" / "hooks.json"
    return project / ".factory" / "hooks.json"


def hook_command(event: str) -> str:
    block, code = blocking(event, REASON)
    return sh_command(guarded_script("factory", block, code))


def is_ours(hook: object) -> bool:
    return isinstance(hook, dict) and isinstance(hook.get("command"), str) and MARK in hook["command"]


def without_ours(config: dict[str, object]) -> dict[str, object]:
    out: dict[str, object] = {}
    for event, groups in config.items():
        if not isinstance(groups, list):
            out[event] = groups
            continue
        kept = []
        for group in groups:
            if isinstance(group, dict) and isinstance(group.get("hooks"), list):
                rest = [h for h in group["hooks"] if not is_ours(h)]
                if not rest and group["hooks"]:
                    continue
                group = {**group, "hooks": rest}
            kept.append(group)
        if kept or not groups:
            out[event] = kept
    return out


def with_ours(config: dict[str, object], events: Iterable[str]) -> dict[str, object]:
    out = without_ours(config)
    for event in events:
        groups = out.get(event, [])
        if not isinstance(groups, list):
            raise InstallError(f"`{event}` in the hooks file is not a list; fix it by hand first")
        hook = {"type": "command", "command": hook_command(event), "timeout": HOOK_TIMEOUT}
        out[event] = [*groups, {"matcher": "*", "hooks": [hook]}]
    return out


def configured(project: Path | None) -> list[tuple[str, str, float | None]]:
    """(event, command, timeout) of every cupcake hook in the hooks file, as Droid runs them."""
    try:
        config = read_settings(hooks_path(project))
    except InstallError:
        return []
    out: list[tuple[str, str, float | None]] = []
    for event, groups in config.items():
        for group in groups if isinstance(groups, list) else []:
            for h in group.get("hooks", []) if isinstance(group, dict) else []:
                if is_ours(h):
                    t = h.get("timeout")
                    out.append((event, h["command"], float(t) if isinstance(t, int | float) else None))
    return out


def install(project: Path | None, events: Iterable[str]) -> list[tuple[str, FileAction]]:
    require_cupcake()
    path = hooks_path(project)
    return [(str(path), write_settings(path, with_ours(read_settings(path), events)))]


def uninstall(project: Path | None) -> list[tuple[str, FileAction]]:
    path = hooks_path(project)
    if not path.exists():
        return [(str(path), "unchanged")]
    before = read_settings(path)
    after = without_ours(before)
    if after == before:
        return [(str(path), "unchanged")]
    if not after:
        path.unlink()  # only what cupcake wrote was there
        return [(str(path), "removed")]
    write_settings(path, after)
    return [(str(path), "removed")]
