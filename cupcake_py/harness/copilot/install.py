"""`cupcake init --harness copilot [--global] [--uninstall]`: cupcake's hooks for the GitHub Copilot CLI.

Copilot loads every `*.json` in `<repo>/.github/hooks/` (repository hooks) and `~/.copilot/hooks/` (user
hooks), so cupcake's hooks live in their own file, `cupcake.json`, and the user's hook files are never
touched: re-running writes the same file (idempotent), `--uninstall` deletes only it. One hook per event
of harness.EVENTS: `{"type": "command", "bash": <guard>, "timeoutSec": HOOK_TIMEOUT}` where the guard
(cupcake_py/harness/guard.py) sets CUPCAKE_HOOK_EVENT (Copilot's stdin does not name the event), runs
`cupcake` from PATH and turns every failure into the blocking answer of response.py (exit 2); cupcake's deadlines
stay below `timeoutSec`, past which Copilot would run the tool.

Trust step: repository hooks run only in a trusted folder (`copilot --trust-folder`, or the folder in
`trustedFolders` of `~/.copilot/config.json`; without it Copilot runs the tool with no hook call and no
message, measured). A project install adds the project to `trustedFolders` (the file's `//` comment
lines are kept; a file that is not JSON is left untouched and the install fails). `--uninstall` removes
cupcake's hook file but leaves the trust entry (it may have been the user's before).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from cupcake_py.harness.answers import failure_form
from cupcake_py.harness.copilot.harness import EVENTS
from cupcake_py.harness.copilot.response import ANSWERS
from cupcake_py.harness.files import FileAction, OwnFilesInstaller
from cupcake_py.harness.guard import HOOK_TIMEOUT_S as HOOK_TIMEOUT
from cupcake_py.harness.guard import REASON, InstallError, guarded_script, require_cupcake, sh_command
from cupcake_py.harness.hook_agent import EVENT_ENV
from cupcake_py.harness.hook_settings import read_settings, write_settings

HOOK_FILE = "cupcake.json"


def copilot_home() -> Path:
    return Path(os.environ.get("HOME") or Path.home()) / ".copilot"


def hooks_path(project: Path | None) -> Path:
    return (copilot_home() / "hooks" if project is None else project / ".github" / "hooks") / HOOK_FILE


def hook_config() -> dict[str, object]:
    def command(event: str) -> str:
        return sh_command(guarded_script("copilot", *failure_form(ANSWERS, event, REASON), {EVENT_ENV: event}))

    hooks = {event: [{"type": "command", "bash": command(event), "timeoutSec": HOOK_TIMEOUT}] for event in EVENTS}
    return {"version": 1, "hooks": hooks}


def trust(project: Path) -> tuple[str, FileAction]:
    path = copilot_home() / "config.json"
    comments: list[str] = []
    config = read_settings(path, comments)
    folders = config.get("trustedFolders", [])
    if not isinstance(folders, list):
        raise InstallError(f"{path}: `trustedFolders` is not a list; fix it by hand first")
    real = os.path.realpath(project)
    if real in folders:
        return str(path), "unchanged"
    return str(path), write_settings(path, {**config, "trustedFolders": [*folders, real]}, comments)


def install(project: Path | None, force: bool = False) -> list[tuple[str, FileAction]]:
    require_cupcake()
    path = hooks_path(project)
    out = [(str(path), write_settings(path, hook_config()))]
    if project is not None:
        out.append(trust(project))
    return out


def configured(project: Path | None) -> list[tuple[str, str, float | None]]:
    """(event, command, timeoutSec) of every hook in cupcake's hook file, as Copilot runs them."""
    try:
        config = json.loads(hooks_path(project).read_text("utf-8"))
    except (OSError, ValueError):
        return []
    hooks = config.get("hooks") if isinstance(config, dict) else None
    out: list[tuple[str, str, float | None]] = []
    for event, entries in hooks.items() if isinstance(hooks, dict) else ():
        for h in entries if isinstance(entries, list) else []:
            if isinstance(h, dict) and isinstance(h.get("bash"), str) and "eval --harness copilot" in h["bash"]:
                t = h.get("timeoutSec")
                out.append((event, h["bash"], float(t) if isinstance(t, int | float) else 30.0))
    return out


def uninstall(project: Path | None) -> list[tuple[str, FileAction]]:
    path = hooks_path(project)
    if not path.exists():
        return [(str(path), "unchanged")]
    path.unlink()
    return [(str(path), "removed")]


class Installer(OwnFilesInstaller):
    """What HookAgent.setup() reads: cupcake's own hook file, no notes, nothing Copilot would skip."""

    install = staticmethod(install)
    uninstall = staticmethod(uninstall)
    configured = staticmethod(configured)
    config_home = staticmethod(copilot_home)


INSTALLER = Installer()
