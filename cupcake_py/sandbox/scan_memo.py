"""The project's secrets scan remembered between evaluations, directory by directory, while the
directory's entries cannot have changed.

In: the directory for cupcake's sandbox files (a state path, private to the user), the scan's
root and the digest of its name rules (sandbox/secrets.py `rules_digest`); per directory the
scan asks for (`entries_of`) and then reports (`keep`) what it made of the directory's entries:
(how many, the sensitive names, the subdirectories to walk).
Out: `entries_of(d)` → what was remembered for `d`, or None: `d` must be read again. It is
remembered with the directory's (device, inode, mtime) taken *before* it was read, and only when
that mtime is older than `RACY_NS` at that moment (a change within the file system's timestamp
granularity after the stat could leave the mtime as it was); it is used only while a new stat
gives the same three values and the rules are the same. Creating, removing or renaming an entry
changes the directory's mtime; a mount over it changes device and inode; what a file contains
does not matter (the scan decides by name). `save()` writes what this scan used and read
(directories it no longer reached are dropped), only when that differs from what it loaded and
the tree is big enough to be worth it (`MIN_ENTRIES`).
Never raises: an unreadable or malformed memo is an empty one; a memo that cannot be written is
not written (the next scan reads the directories again).
"""

from __future__ import annotations

import os
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cupcake_py.sandbox.secrets import Entries

RACY_NS = 2_000_000_000  # a directory changed in the last 2 s is read again next time
MIN_ENTRIES = 200  # a smaller tree is read faster than its memo


class ScanMemo:
    __slots__ = ("path", "rules", "old", "new", "now", "entries")

    def __init__(self, directory: str, root: str, rules: str) -> None:
        try:  # the module behind hashlib.blake2b (hashlib would load OpenSSL)
            from _blake2 import blake2b
        except ImportError:  # pragma: no cover - CPython always has it
            from hashlib import blake2b

        name = "scan-" + blake2b(root.encode("utf-8", "surrogateescape"), digest_size=16).hexdigest() + ".json"
        self.path = os.path.join(directory, name)
        self.rules = rules
        self.old: dict[str, Any] = {}
        self.new: dict[str, Any] = {}
        self.now = time.time_ns()
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
        if not (isinstance(rec, list) and len(rec) == 6 and isinstance(rec[3], int) and _names(rec[4])
                and _names(rec[5])):
            return None
        try:
            st = os.stat(d)
        except OSError:
            return None
        if [st.st_dev, st.st_ino, st.st_mtime_ns] != rec[:3]:
            return None
        self.new[d] = rec
        self.entries += rec[3]
        return rec[3], rec[4], rec[5]

    def stat(self, d: str) -> list[int] | None:
        """(device, inode, mtime) of `d` before it is read, None when it changed too recently."""
        try:
            st = os.stat(d)
        except OSError:
            return None
        if st.st_mtime_ns > self.now - RACY_NS:
            return None
        return [st.st_dev, st.st_ino, st.st_mtime_ns]

    def keep(self, d: str, ident: list[int] | None, got: Entries) -> None:
        self.entries += got[0]
        if ident is not None:
            self.new[d] = [*ident, got[0], got[1], got[2]]

    def save(self, root: str) -> None:
        if self.new == self.old:
            return
        if self.entries < MIN_ENTRIES:
            if not self.old:
                return
            self.new = {}  # small again: forget it
        from cupcake_py.core import jsonio

        tmp = f"{self.path}.{os.getpid()}.tmp"
        try:
            with open(tmp, "xb") as f:
                f.write(jsonio.dumps({"root": root, "rules": self.rules, "dirs": self.new}))
            os.replace(tmp, self.path)
        except OSError:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _names(v: object) -> bool:
    return isinstance(v, list) and all(isinstance(n, str) for n in v)
