"""`cupcake init --harness qwen [--global] [--uninstall]`: cupcake's command hooks in Qwen Code's settings
(`<project>/.qwen/settings.json`, or `~/.qwen/settings.json` with --global), merged as
cupcake_py/harness/hook_settings.py describes (timeouts in milliseconds). Qwen Code runs project and user
hooks without a trust step."""

from __future__ import annotations

import os
from pathlib import Path

from cupcake_py.harness.hook_settings import HookInstaller

EVENTS: tuple[tuple[str, str | None], ...] = (
    ("SessionStart", None), ("UserPromptSubmit", None), ("PreToolUse", ".*"), ("PermissionRequest", ".*"),
    ("PostToolUse", ".*"), ("PostToolUseFailure", ".*"), ("Stop", None), ("SubagentStop", None), ("SessionEnd", None))


def settings_path(project: Path | None) -> Path:
    home = Path(os.environ.get("HOME") or Path.home())
    return home / ".qwen" / "settings.json" if project is None else project / ".qwen" / "settings.json"


INSTALLER = HookInstaller("qwen", settings_path, EVENTS, timeout_unit=1000)
