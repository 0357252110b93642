"""The file system as one profile computation saw it: every answer it got, kept so that the same
questions can be asked again later (sandbox/profile_memo.py).

In: the paths a computation asks about, through `Lookups`:
- `lstat_kind(path)`: what `lstat` says the entry is: "d" (directory), "f" (regular file), "o"
  (anything else), "l:TEXT" (a symbolic link and what it says), "" (no entry, or it cannot be
  examined). Each path is asked once; `real`, `lexists`, `islink` and `readlink` are computed
  from these answers only: `real(path)` is `os.path.realpath` (non-strict, the same walk: every
  component looked up, links followed, a loop left as written);
- `exists`, `isdir`, `isfile`: what `stat` says: the `lstat` answer unless the last name is a
  link (both walk the directories on the way alike), else `stat` itself, asked and kept;
- `read(path, limit)`: the first `limit` bytes of a file, or None (kept as a BLAKE2b digest; a file
  read again further is kept as far as it was read);
- `listdir(path)`: the entry names of a directory, sorted, or None;
- `access(path, mode, effective_ids)`: `os.access`;
- `owner(path)`: the owner's uid of what `stat` (links followed) finds, or None;
- `makedirs(path)`: creates a missing directory (forgets what was known below its parent).
Out: `entries()` — every question with its answer, as plain JSON data (the lookups grouped by
directory, each with the directory's device, inode, mtime and ctime taken before the first lookup
in it); `unchanged(entries)` — whether the file system gives every one of those answers now. A
computation that depends on the file system only through these questions and gives the same
result for the same answers can be reused while `unchanged` holds. A directory's timestamps vouch
for the names looked up in it only when they were older than `RACY_NS` when taken (a change within
the file system's timestamp granularity could leave them as they were; the same rule as
sandbox/scan_memo.py); else each name is asked again. A file's bytes are compared by digest, a
listing by its names. Never raises.
"""

from __future__ import annotations

import os
import stat
import time

from cupcake_py.core.cache_mac import hexdigest

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


RACY_NS = 2_000_000_000  # a directory changed in the last 2 s is not vouched for by its timestamps
clock = time.time_ns  # the file systems' clock (the tests move it to make fresh directories old)


def dir_now(path: str) -> list[int] | None:
    """(device, inode, mtime, ctime) of the directory `path` names (links followed), or None."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return [st.st_dev, st.st_ino, st.st_mtime_ns, st.st_ctime_ns]


def kind_now(path: str) -> str:
    """What `lstat(path)` says the entry is ("d", "f", "o", "l:TEXT", or "" for none)."""
    try:
        mode = os.lstat(path).st_mode
        if stat.S_ISLNK(mode):
            return "l:" + os.readlink(path)
    except (OSError, ValueError):
        return ""
    return "d" if stat.S_ISDIR(mode) else "f" if stat.S_ISREG(mode) else "o"


def stat_kind_now(path: str) -> str:
    """What `stat(path)` (links followed) says the entry is ("d", "f", "o", or "" for none)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return ""
    return "d" if stat.S_ISDIR(mode) else "f" if stat.S_ISREG(mode) else "o"


def read_now(path: str, limit: int) -> bytes | None:
    try:
        with open(path, "rb") as f:
            return f.read(limit)
    except (OSError, ValueError):
        return None


def list_now(path: str) -> list[str] | None:
    try:
        return sorted(os.listdir(path))
    except (OSError, ValueError):
        return None


def access_now(path: str, mode: int, effective_ids: bool = False) -> bool:
    try:
        return os.access(path, mode, effective_ids=effective_ids)
    except (OSError, ValueError, NotImplementedError):
        return False


def owner_now(path: str) -> int | None:
    try:
        return os.stat(path).st_uid
    except (OSError, ValueError):
        return None


class Lookups:
    __slots__ = ("kinds", "dirs", "stats", "reads", "lists", "accesses", "owners")

    def __init__(self) -> None:
        self.kinds: dict[str, str] = {}
        # each directory a name was looked up in: its (device, inode, mtime, ctime) taken before the
        # first lookup there, None when it changed too recently (RACY_NS) to vouch for anything
        self.dirs: dict[str, list[int] | None] = {}
        self.stats: dict[str, str] = {}  # paths whose last name is a link: what `stat` says
        self.reads: dict[str, list[Any]] = {}  # path -> [limit, digest or None]
        self.lists: dict[str, list[str] | None] = {}
        self.accesses: dict[str, list[Any]] = {}  # "mode:effective:path" -> [path, mode, effective, answer]
        self.owners: dict[str, int | None] = {}

    @classmethod
    def answering(cls, entries: dict[str, Any]) -> Lookups:
        """Lookups that answer from `entries` (answers `unchanged` has just confirmed), asking the
        file system only what they do not hold."""
        fs = cls()
        for d, (sig, names) in entries["dirs"].items():
            fs.dirs[d] = sig
            for name, kind in names.items():
                fs.kinds[os.path.join(d, name)] = kind
        fs.stats = dict(entries["stats"])
        fs.reads = dict(entries["reads"])
        fs.lists = dict(entries["lists"])
        fs.accesses = {f"{m}:{int(e)}:{p}": [p, m, e, a] for p, m, e, a in entries["accesses"]}
        fs.owners = dict(entries["owners"])
        return fs

    def lstat_kind(self, path: str) -> str:
        k = self.kinds.get(path)
        if k is None:
            d = os.path.dirname(path)
            if d not in self.dirs:  # before the lookup: a change from now on shows in the timestamps
                sig = dir_now(d)
                self.dirs[d] = sig if sig is not None and max(sig[2], sig[3]) < clock() - RACY_NS else None
            k = self.kinds[path] = kind_now(path)
        return k

    def real(self, path: str) -> str:
        """os.path.realpath(path) of an absolute path, from `lstat_kind` answers."""
        resolved, _ = self._join("/", path, {})
        return os.path.normpath(resolved)

    def _join(self, path: str, rest: str, seen: dict[str, str | None]) -> tuple[str, bool]:
        if rest.startswith("/"):
            path, rest = "/", rest.lstrip("/")
        while rest:
            name, _, rest = rest.partition("/")
            if not name or name == ".":
                continue
            if name == "..":
                head, tail = os.path.split(path)
                path = os.path.join(head, "..", "..") if tail == ".." else head
                continue
            newpath = os.path.join(path, name)
            kind = self.lstat_kind(newpath)
            if not kind.startswith("l:"):
                path = newpath
                continue
            if newpath in seen:
                known = seen[newpath]
                if known is not None:
                    path = known
                    continue
                return os.path.join(newpath, rest), False  # a loop: left as written from here
            seen[newpath] = None
            path, ok = self._join(path, kind[2:], seen)
            if not ok:
                return os.path.join(path, rest), False
            seen[newpath] = path
        return path, True

    def _followed(self, path: str) -> str:
        """What `stat(path)` says the entry is (links followed; "" when there is none): what `lstat`
        says unless that is a link (both walk the directories before the last name alike), else
        asked with `stat` itself."""
        kind = self.lstat_kind(path)
        if not kind.startswith("l:"):
            return kind
        k = self.stats.get(path)
        if k is None:
            k = self.stats[path] = stat_kind_now(path)
        return k

    def lexists(self, path: str) -> bool:
        return self.lstat_kind(path) != ""

    def exists(self, path: str) -> bool:
        return self._followed(path) != ""

    def isdir(self, path: str) -> bool:
        return self._followed(path) == "d"

    def isfile(self, path: str) -> bool:
        return self._followed(path) == "f"

    def islink(self, path: str) -> bool:
        return self.lstat_kind(path).startswith("l:")

    def readlink(self, path: str) -> str | None:
        kind = self.lstat_kind(path)
        return kind[2:] if kind.startswith("l:") else None

    def read(self, path: str, limit: int) -> bytes | None:
        data = read_now(path, limit)
        known = self.reads.get(path)
        if known is None or limit > known[0]:  # the furthest read holds every byte the computation used
            self.reads[path] = [limit, None if data is None else hexdigest(data, 16)]
        return data

    def listdir(self, path: str) -> list[str] | None:
        if path not in self.lists:
            self.lists[path] = list_now(path)
        names = self.lists[path]
        return None if names is None else list(names)

    def access(self, path: str, mode: int, effective_ids: bool = False) -> bool:
        key = f"{mode}:{int(effective_ids)}:{path}"
        known = self.accesses.get(key)
        if known is None:
            known = self.accesses[key] = [path, mode, effective_ids, access_now(path, mode, effective_ids)]
        return bool(known[3])

    def owner(self, path: str) -> int | None:
        if path not in self.owners:
            self.owners[path] = owner_now(path)
        return self.owners[path]

    def makedirs(self, path: str) -> bool:
        """Create `path` (mode 0700, parents too); True when it is a directory afterwards."""
        try:
            os.makedirs(path, mode=0o700, exist_ok=True)
        except OSError:
            return False
        d = path
        while d not in ("/", ""):  # what was asked about the created directories (and in them) is stale
            self.kinds.pop(d, None)
            self.dirs.pop(d, None)
            d = os.path.dirname(d)
            self.dirs[d] = None
        return self.isdir(path)

    def entries(self) -> dict[str, Any]:
        dirs: dict[str, list[Any]] = {}
        for path, kind in self.kinds.items():
            d, name = os.path.split(path)
            if d not in dirs:
                dirs[d] = [self.dirs.get(d), {}]
            dirs[d][1][name] = kind
        return {"dirs": dirs, "stats": self.stats, "reads": self.reads, "lists": self.lists,
                "accesses": list(self.accesses.values()), "owners": self.owners}


def unchanged(entries: Any, vouched: dict[str, list[int]] | None = None) -> bool:
    """Whether every answer in `entries` (a `Lookups.entries()`) is the one the file system gives now.
    The names looked up in a directory whose (device, inode, mtime, ctime) are still those taken
    before the first lookup there (and were old enough to vouch: RACY_NS) are unchanged: creating,
    removing or renaming an entry changes the directory's mtime and ctime, setting the mtime back
    changes the ctime, a mount over it its device and inode, a chmod its ctime; what is in a file
    does not matter here. In any other directory each name is asked again: one that was missing
    with `access(F_OK)` without following a last link (the same answer as `lstat`, without an
    exception to build; only where the real and effective ids are the same, as `access` checks
    the path's directories with the real ones); the names in a directory that is still missing or
    not a directory (its own answer confirmed first) are missing too. `vouched` (when given) receives the directories whose names were all asked
    again and found the same, with timestamps, taken before, old enough to vouch for them from
    now on (the caller keeps them in `entries`)."""
    lstat, readlink, fmt, access, ok = os.lstat, os.readlink, stat.S_IFMT, os.access, os.F_OK
    link, kinds = stat.S_IFLNK, {stat.S_IFDIR: "d", stat.S_IFREG: "f"}
    same_ids = os.getuid() == os.geteuid() and os.getgid() == os.getegid()
    try:
        dirs = entries["dirs"]
        limit = clock() - RACY_NS
        for d in sorted(dirs):  # a directory before the ones below it (whose answers are confirmed first)
            sig, names = dirs[d]
            parent, base = os.path.split(d)
            above = dirs.get(parent) if d != "/" else None
            if above is not None and above[1].get(base) in ("", "f", "o"):
                # still missing, or not a directory (confirmed above): nothing below it exists
                if any(kind != "" for kind in names.values()):
                    return False  # it was there below a missing path: not this file system's answer
                continue
            now_sig = dir_now(d)  # before the names are asked again
            if sig is not None and now_sig == sig:
                continue
            if vouched is not None and now_sig is not None and max(now_sig[2], now_sig[3]) < limit:
                vouched[d] = now_sig  # kept only if every name below is the same (else the answer is False)
            prefix = d if d.endswith("/") or not d else d + "/"  # "": relative names, below the working directory
            for name, kind in names.items():
                path = prefix + name
                if not kind and same_ids:
                    try:
                        if access(path, ok, follow_symlinks=False):
                            return False
                    except (OSError, ValueError):
                        return False
                    continue
                try:
                    t = fmt(lstat(path).st_mode)
                    now = "l:" + readlink(path) if t == link else kinds.get(t, "o")
                except (OSError, ValueError):
                    now = ""
                if now != kind:
                    return False
        for path, kind in entries["stats"].items():
            if stat_kind_now(path) != kind:
                return False
        for path, (limit, digest) in entries["reads"].items():
            data = read_now(path, limit)
            if (None if data is None else hexdigest(data, 16)) != digest:
                return False
        for path, names in entries["lists"].items():
            if list_now(path) != names:
                return False
        for path, mode, effective, answer in entries["accesses"]:
            if access_now(path, mode, effective) != answer:
                return False
        for path, uid in entries["owners"].items():
            if owner_now(path) != uid:
                return False
    except (KeyError, TypeError, ValueError, AttributeError):
        return False  # malformed: not an answer
    return True
