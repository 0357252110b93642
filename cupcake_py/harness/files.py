"""Writing the files `cupcake init` creates (templates, the OpenCode plugin): an existing file
with the same content is left alone ("unchanged"), a different one is kept unless `force`
("kept" / "overwritten"), a missing one is "created"."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

# What happened to one file `cupcake init` (or uninstall) handles.
FileAction = Literal["created", "unchanged", "kept", "overwritten", "removed"]


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
