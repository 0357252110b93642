"""Random file-system changes for property tests of caches that must follow the disk
(the serve state-path resolver, the shell-analysis memo).

`ops(kinds, names, depth)` draws (op, path segments, other name); `apply(root, ...)` performs one
under `root`. An op that does not apply to the tree as it is (a parent missing, a name taken)
leaves the tree as it is: the sequence goes on.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

KINDS = ("mkdir", "file", "script", "link-abs", "link-rel", "link-up", "remove", "rename", "chmod")


def ops(kinds: tuple[str, ...], names: tuple[str, ...] = ("a", "b", "c"), depth: int = 3) -> Any:
    assert set(kinds) <= set(KINDS), set(kinds) - set(KINDS)
    return st.tuples(st.sampled_from(kinds), st.lists(st.sampled_from(names), min_size=1, max_size=depth),
                     st.sampled_from(names))


def apply(root: Path, op: str, where: list[str], other: str) -> None:
    p = root.joinpath(*where)
    try:
        if op == "mkdir":
            p.mkdir(parents=True)
        elif op == "file":
            p.write_text("plain")
        elif op == "script":  # a script that deletes another name: analysing it must see its current text
            p.write_text(f"rm -rf {root / other}\n")
        elif op == "link-abs":
            p.symlink_to(root / other)
        elif op == "link-rel":
            p.symlink_to(other)
        elif op == "link-up":
            p.symlink_to("..")
        elif op == "remove":
            if p.is_symlink() or p.is_file():
                p.unlink()
            else:
                shutil.rmtree(p)
        elif op == "rename":
            p.rename(root / other)
        elif op == "chmod":
            os.chmod(p, 0o700)
    except OSError:
        pass  # does not apply to the tree as it is: the tree stays
