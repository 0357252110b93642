"""File operations of an `apply_patch` call, parsed from its `patchText`.

The format (OpenAI's apply_patch envelope) is a `*** Begin Patch` … `*** End Patch`
block of file sections: `*** Add File: p`, `*** Delete File: p`, `*** Update File: p`
(optionally followed by `*** Move to: q`). Parsing is lenient about everything but the
section headers, because a policy must see every file the patch can touch even when the
rest of the text is malformed."""

from __future__ import annotations

import re

from cupcake_py.core.record import FrozenRecord

_HEADER = re.compile(r"^\*\*\*\s*(Add File|Delete File|Update File|Move to):\s*(.+?)\s*$")
_ACTIONS = {"Add File": "add", "Delete File": "delete", "Update File": "update", "Move to": "move"}


class PatchOp(FrozenRecord):
    __slots__ = ("action", "path")
    action: str  # add | delete | update | move (the destination of the preceding update)
    path: str  # as written in the patch

    def __init__(self, action: str, path: str) -> None:
        self._fill(action, path)


def patch_operations(patch_text: str) -> list[PatchOp]:
    ops: list[PatchOp] = []
    for line in patch_text.splitlines():
        m = _HEADER.match(line.strip())
        if m:
            ops.append(PatchOp(_ACTIONS[m[1]], m[2]))
    return ops
