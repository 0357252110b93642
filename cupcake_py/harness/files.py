"""Writing the files `cupcake init` creates (templates, the OpenCode plugin): an existing file
with the same content is left alone ("unchanged"), a different one is kept unless `force`
("kept" / "overwritten"), a missing one is "created". InstallError: what no installer may write over."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from cupcake_py.core.errors import CupcakeError

# What happened to one file `cupcake init` (or uninstall) handles.
FileAction = Literal["created", "unchanged", "kept", "overwritten", "removed"]


class InstallError(CupcakeError):
    """An agent's hook cannot be installed as asked (its config is broken, `cupcake` is not on PATH, ...);
    nothing was written."""


def write_file(path: Path, content: bytes, force: bool, mode: int = 0o644) -> FileAction:
    action: FileAction
    if path.exists():
        if path.read_bytes() == content:
            return "unchanged"
        if not force:
            return "kept"
        action = "overwritten"
    else:
        action = "created"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content)
    path.chmod(mode)
    return action


class OwnFilesInstaller:
    """The base of an installer whose hooks are files of cupcake's own (Copilot's hook file, Cline's scripts):
    nothing to add to `cupcake init`'s notes, nothing the agent would skip (`cupcake verify --all`)."""

    @staticmethod
    def notes(_project: Path | None) -> list[str]:
        return []

    @staticmethod
    def problems(_project: Path | None) -> list[str]:
        return []
