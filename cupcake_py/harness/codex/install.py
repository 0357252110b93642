"""`cupcake init --harness codex [--global] [--uninstall]`: cupcake's command hooks in Codex's hook file
(`<project>/.codex/hooks.json`, or `$CODEX_HOME/hooks.json` (default `~/.codex/hooks.json`) with --global),
merged as cupcake_py/harness/hook_settings.py describes (timeouts in seconds).

Hook trust: Codex runs a hook only once it is trusted, and SKIPS an untrusted one silently (the tool
runs). Codex 0.171.0 keeps that trust in its own state, written by its interactive hook review (`/hooks`
in `codex`); no documented file format exists for a tool to write it, so cupcake does not forge it:
init prints the step (`notes`), and `cupcake verify --all` reports the hooks as needing trust. For
automation, `codex exec --dangerously-bypass-hook-trust` runs them (project hooks also need `--trust`).
"""

from __future__ import annotations

import os
from pathlib import Path

from cupcake_py.harness.hook_settings import HookInstaller

EVENTS: tuple[tuple[str, str | None], ...] = (
    ("SessionStart", None), ("UserPromptSubmit", None), ("PreToolUse", ".*"), ("PermissionRequest", ".*"),
    ("PostToolUse", ".*"), ("Stop", None))


def codex_home() -> Path:
    env = os.environ.get("CODEX_HOME")
    return Path(env) if env else Path(os.environ.get("HOME") or Path.home()) / ".codex"


def settings_path(project: Path | None) -> Path:
    return codex_home() / "hooks.json" if project is None else project / ".codex" / "hooks.json"


def notes(project: Path | None) -> list[str]:
    where = "" if project is None else " (project hooks run only in a trusted project: `codex --trust` or trust it when asked)"
    return [f"Codex runs hooks only after you trust them: start `codex`, open /hooks and trust cupcake's{where}. "
            "Until then Codex skips them silently. Automation: `codex exec --dangerously-bypass-hook-trust`."]


INSTALLER = HookInstaller("codex", settings_path, EVENTS, timeout_unit=1, notes=notes)
