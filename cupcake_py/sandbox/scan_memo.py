"""The project's secrets scan remembered between evaluations, directory by directory, while the
directory's entries cannot have changed.

In: the directory for cupcake's sandbox files (a state path, private to the user), the scan's
root and the digest of its name rules (sandbox/secrets.py `rules_digest`); per directory the
scan asks for (`entries_of`) and then reports (`keep`) what it made of the directory's entries:
(how many, the sensitive names, the subdirectories to walk).
Out: `entries_of(d)` → what was remembered for `d`, or None: `d` must be read again. It is
remembered with the directory's (device, inode, mtime, ctime) taken *before* it was read, and
only when mtime and ctime are older than `RACY_NS` at that moment (a change within the file
system's timestamp granularity after the stat could leave them as they were); it is used only
while a new stat gives the same four values and the rules are the same. Creating, removing or
renaming an entry changes the directory's mtime and ctime; setting the mtime back (`touch -d`)
changes the ctime, which nobody can set; a mount over it changes device and inode; what a file
contains does not matter (the scan decides by name). `save()` writes what this scan used and read
(directories it no longer reached are dropped), only when that differs from what it loaded and
the tree is still big enough to be worth it (`min_entries`; else it removes the memo). `start(...)` writes an empty memo (the scan calls it after a big walk without one).
Never raises: an unreadable or malformed memo is an empty one; a memo that cannot be written is
not written (the next scan reads the directories again).
"""

from __future__ import annotations

import os

from cupcake_py.sandbox import lookups
from cupcake_py.sandbox.lookups import RACY_NS

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    Entries = tuple[int, list[str], list[str]]  # (entries, sensitive names, directories to walk)



class ScanMemo:
    __slots__ = ("path", "rules", "min_entries", "old", "new", "now", "entries")

    def __init__(self, path: str, root: str, rules: str, min_entries: int) -> None:
        self.path = path
        self.min_entries = min_entries
        self.rules = rules
        self.old: dict[str, Any] = {}
        self.new: dict[str, Any] = {}
        self.now = lookups.clock()
        self.entries = 0
        try:
            from cupcake_py.core import jsonio

            with open(self.path, "rb") as f:
                data = jsonio.loads(f.read())
            if (isinstance(data, dict) and data.get("root") == root and data.get("rules") == rules
                    and isinstance(data.get("dirs"), dict)):
                self.old = data["dirs"]
        except (OSError, ValueError):
            pass

    def entries_of(self, d: str) -> Entries | None:
        rec = self.old.get(d)
        if not (isinstance(rec, list) and len(rec) == 7 and isinstance(rec[4], int) and _names(rec[5])
                and _names(rec[6])):
            return None
        try:
            st = os.stat(d)
        except OSError:
            return None
        if [st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns] != rec[:4]:
            return None
        self.new[d] = rec
        self.entries += rec[4]
        return rec[4], rec[5], rec[6]

    def stat(self, d: str) -> list[int] | None:
        """(device, inode, mtime, ctime) of `d` before it is read, None when it changed too recently."""
        try:
            st = os.stat(d)
        except OSError:
            return None
        if max(st.st_mtime_ns, st.st_ctime_ns) > self.now - RACY_NS:
            return None
        return [st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns]

    def keep(self, d: str, ident: list[int] | None, got: Entries) -> None:
        self.entries += got[0]
        if ident is not None:
            self.new[d] = [*ident, got[0], got[1], got[2]]

    def save(self, root: str) -> None:
        if self.entries < self.min_entries:  # small again: walked without a memo from now on
            try:
                os.unlink(self.path)
            except OSError:
                pass
        elif self.new != self.old:
            _write(self.path, root, self.rules, self.new)


def start(path: str, root: str, rules: str) -> None:
    """An empty memo for `root`: the next walk reads every directory and remembers it."""
    _write(path, root, rules, {})


def _write(path: str, root: str, rules: str, dirs: dict[str, Any]) -> None:
    from cupcake_py.core import jsonio

    try:  # a name that is not UTF-8 (kept by the OS as a surrogate escape) is not JSON: not written
        data = jsonio.dumps({"root": root, "rules": rules, "dirs": dirs})
    except (TypeError, ValueError):
        return
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "xb") as f:
            f.write(data)
        os.replace(tmp, path)
    except OSError:
        try:
            os.unlink(tmp)
        except OSError:
            pass


def _names(v: object) -> bool:
    return isinstance(v, list) and all(isinstance(n, str) for n in v)
