"""`cupcake init --harness cline [--global] [--uninstall] [--force]`: cupcake's hook scripts for Cline.

Cline runs the executable named after each event in `<project>/.clinerules/hooks/` (or `~/.cline/hooks/`
with --global): one file per event of harness.EVENTS, mode 0755, holding the guard
(cupcake_py/harness/guard.py) with CUPCAKE_HOOK_EVENT set to the file's event. Ours are the files that
contain MARK: re-running rewrites them with the same bytes (idempotent), `--uninstall` deletes only them.
A user's own hook file of the same name is never overwritten silently: without `--force` the install
fails naming it (nothing is written); with `--force` it is moved to `.cupcake-saved/<Event>` in the same
directory and moved back by `--uninstall`. No trust step (Cline runs project hooks headless).

Cline runs the tool when a hook fails in any way (exit status, invalid JSON) and waits out a slow hook
with no limit (measured: 40 s), so the guard answers `{"cancel": true, "errorMessage": ...}` on every
failure and coreutils `timeout` plus cupcake's own deadlines bound the wait (KILL_AFTER seconds at most).
"""

from __future__ import annotations

import os
from pathlib import Path

from cupcake_py.harness.answers import failure_form
from cupcake_py.harness.cline.harness import EVENTS
from cupcake_py.harness.cline.response import ANSWERS
from cupcake_py.harness.files import FileAction, OwnFilesInstaller, write_file
from cupcake_py.harness.guard import REASON, InstallError, guarded_script, require_cupcake
from cupcake_py.harness.hook_agent import EVENT_ENV

MARK = "eval --harness cline"
SAVED = ".cupcake-saved"


def hooks_dir(project: Path | None) -> Path:
    if project is None:
        return Path(os.environ.get("HOME") or Path.home()) / ".cline" / "hooks"
    return project / ".clinerules" / "hooks"


def script(event: str) -> bytes:
    body = guarded_script("cline", *failure_form(ANSWERS, event, REASON), {EVENT_ENV: event})
    return (f"#!/bin/sh\n# cupcake's Cline hook for {event} (`cupcake init --harness cline`; "
            f"remove with `cupcake init --harness cline --uninstall`)\n{body}\n").encode()


def is_ours(path: Path) -> bool:
    try:
        return MARK.encode() in path.read_bytes()
    except OSError:
        return False


def install(project: Path | None, force: bool = False) -> list[tuple[str, FileAction]]:
    require_cupcake()
    d = hooks_dir(project)
    theirs = [d / e for e in EVENTS if (d / e).exists() and not is_ours(d / e)]
    if theirs and not force:
        names = ", ".join(str(p) for p in theirs)
        raise InstallError(f"Cline hook files that are not cupcake's exist: {names}. Cline runs one file per event, "
                           f"so cupcake cannot add its hook next to them: merge them by hand, or rerun with --force "
                           f"to keep them aside in {d / SAVED}/ (restored by --uninstall)")
    out: list[tuple[str, FileAction]] = []
    for path in theirs:
        saved = d / SAVED / path.name
        saved.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, saved)
        out.append((str(saved), "created"))
    for event in EVENTS:
        out.append((str(d / event), write_file(d / event, script(event), force=True, mode=0o755)))
    return out


def uninstall(project: Path | None) -> list[tuple[str, FileAction]]:
    d = hooks_dir(project)
    out: list[tuple[str, FileAction]] = []
    for event in EVENTS:
        path = d / event
        if path.exists() and is_ours(path):
            path.unlink()
            out.append((str(path), "removed"))
            saved = d / SAVED / event
            if saved.exists():
                os.replace(saved, path)
                out.append((str(path), "created"))
    if (d / SAVED).is_dir() and not any((d / SAVED).iterdir()):
        (d / SAVED).rmdir()
    return out or [(str(d), "unchanged")]


def configured(project: Path | None) -> list[tuple[str, str, float | None]]:
    """Cline runs each hook file itself: the command is the file (no hook timeout: Cline waits)."""
    import shlex

    d = hooks_dir(project)
    return [(event, shlex.quote(str(d / event)), None) for event in EVENTS if is_ours(d / event)]


class Installer(OwnFilesInstaller):
    """What HookAgent.setup() reads: one script per event, no notes, nothing Cline would skip."""

    install = staticmethod(install)
    uninstall = staticmethod(uninstall)
    configured = staticmethod(configured)

    @staticmethod
    def config_home() -> Path:
        return hooks_dir(None).parent


INSTALLER = Installer()
