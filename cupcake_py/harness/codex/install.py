"""`cupcake init --harness codex [--global] [--uninstall]`: cupcake's command hooks in Codex's hook file
(`<project>/.codex/hooks.json`, or `$CODEX_HOME/hooks.json` (default `~/.codex/hooks.json`) with --global),
merged as cupcake_py/harness/hook_settings.py describes (timeouts in seconds).

Hook trust: Codex runs a hook only once it is trusted, and SKIPS an untrusted one silently (the tool
runs). After writing the hooks, init asks the installed `codex` to trust cupcake's hooks (and only those)
through its app-server protocol (trust.py). When that is not possible (no `codex` on PATH, an error), init
prints the manual step (`/hooks` in `codex`). Project hooks also need a trusted project, which stays the
user's decision (`codex --trust`, or trusting it when asked).
"""

from __future__ import annotations

import os
from pathlib import Path

from cupcake_py.harness.files import FileAction
from cupcake_py.harness.hook_settings import HookInstaller

EVENTS: tuple[tuple[str, str | None], ...] = (
    ("SessionStart", None), ("UserPromptSubmit", None), ("PreToolUse", ".*"), ("PermissionRequest", ".*"),
    ("PostToolUse", ".*"), ("Stop", None))


def codex_home() -> Path:
    env = os.environ.get("CODEX_HOME")
    return Path(env) if env else Path(os.environ.get("HOME") or Path.home()) / ".codex"


def settings_path(project: Path | None) -> Path:
    return codex_home() / "hooks.json" if project is None else project / ".codex" / "hooks.json"


_LAST_TRUST: list[str] = []  # what the last install's trust step did (for notes)


def trust(project: Path | None) -> list[tuple[str, FileAction]]:
    from cupcake_py.harness.codex.trust import TrustError, trust_cupcake_hooks

    _LAST_TRUST.clear()
    try:
        path, count = trust_cupcake_hooks(project or Path(os.environ.get("HOME") or Path.home()))
    except TrustError as e:
        _LAST_TRUST.append(f"could not trust cupcake's hooks automatically ({e})")
        return []
    _LAST_TRUST.append(f"trusted: Codex now runs cupcake's {count} hooks (trust recorded by Codex in {path})")
    return [(path, "overwritten")]


def notes(project: Path | None) -> list[str]:
    where = "" if project is None else (" Project hooks also need a trusted project: `codex --trust`, or trust it "
                                        "when Codex asks.")
    if _LAST_TRUST and _LAST_TRUST[0].startswith("trusted"):
        return [f"Codex hook trust: {_LAST_TRUST[0].removeprefix('trusted: ')}.{where}"]
    why = f" ({_LAST_TRUST[0]})" if _LAST_TRUST else ""
    return [f"Codex runs hooks only after you trust them and skips untrusted ones silently{why}: start `codex`, "
            f"open /hooks and trust cupcake's.{where} Automation: `codex exec --dangerously-bypass-hook-trust`."]


def problems(project: Path | None) -> list[str]:
    """For `cupcake verify --all`: cupcake's hooks that Codex would skip silently (untrusted or edited)."""
    from cupcake_py.harness.codex.trust import TrustError, untrusted_cupcake_hooks

    if not settings_path(project).exists():
        return []
    try:
        keys = untrusted_cupcake_hooks(project or Path(os.environ.get("HOME") or Path.home()))
    except TrustError:
        return []  # no codex here: nothing would run the hooks either
    return [f"Codex skips cupcake's hook {k} silently: it is not trusted (or was edited since); re-run "
            "`cupcake init --harness codex` or trust it in /hooks" for k in keys]


INSTALLER = HookInstaller("codex", settings_path, EVENTS, timeout_unit=1, after_install=trust, notes=notes,
                          problems=problems)
