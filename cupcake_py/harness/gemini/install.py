"""`cupcake init --harness gemini [--global] [--uninstall]`: cupcake's command hooks in Gemini CLI's
settings (`<project>/.gemini/settings.json`, or `~/.gemini/settings.json` with --global), merged as
cupcake_py/harness/hook_settings.py describes (timeouts in milliseconds).

Hook trust: Gemini CLI runs a project's hooks only in a trusted folder (measured: `--skip-trust` alone is
not enough). A project install therefore also trusts the project in `~/.gemini/trustedFolders.json`
(`{"<absolute project path>": "TRUST_FOLDER"}`, merged; other entries kept). `--uninstall` removes the
hooks and leaves the folder trust (you may rely on it for other settings); edit that file to drop it.
"""

from __future__ import annotations

import os
from pathlib import Path

from cupcake_py.harness.files import FileAction, InstallError
from cupcake_py.harness.hook_settings import HookInstaller, read_settings, write_settings

EVENTS: tuple[tuple[str, str | None], ...] = (
    ("SessionStart", None), ("BeforeAgent", None), ("BeforeTool", ".*"), ("AfterTool", ".*"), ("AfterAgent", None),
    ("SessionEnd", None))
TRUSTED = "TRUST_FOLDER"


def gemini_home() -> Path:
    return Path(os.environ.get("HOME") or Path.home()) / ".gemini"


def settings_path(project: Path | None) -> Path:
    return gemini_home() / "settings.json" if project is None else project / ".gemini" / "settings.json"


def trust_project(project: Path | None) -> list[tuple[str, FileAction]]:
    if project is None:
        return []
    path = gemini_home() / "trustedFolders.json"
    folders = read_settings(path)
    key = str(project.resolve())
    if folders.get(key) == TRUSTED:
        return [(str(path), "unchanged")]
    if key in folders:
        raise InstallError(f"{path}: {key} is set to {folders[key]!r}; cupcake leaves your choice alone, so Gemini "
                           "CLI will not run this project's hooks: set it to TRUST_FOLDER or use --global")
    return [(str(path), write_settings(path, {**folders, key: TRUSTED}))]


INSTALLER = HookInstaller("gemini", settings_path, EVENTS, timeout_unit=1000, after_install=trust_project)
