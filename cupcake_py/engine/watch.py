"""Change notification for configuration trees and path lookups (Linux inotify through libc), for
`cupcake serve`.

In: directory trees (every directory below the roots is watched; symlinks are not followed).
Out: `TreeWatch.quiet()` — True while nothing at all happened in those directories since the
watch was made. Anything (a file written, created, removed, renamed, its attributes changed; a
watched directory removed or moved; the kernel's event queue overflowing) makes it False for
good, and so does every failure: no inotify (not Linux, no libc), too many watches, a tree that
contains a symlink (the target could change unseen). A watch that is not quiet only means "look
again": the caller then compares stats (engine/warm.py), so a spurious event costs a stat walk
and a missing watch never hides a change.

`EntryWatch`: the entries of single directories (not their subtrees), for memos of what lstat
said about a name in a directory (engine/state_paths.py). Quiet while no entry of a watched
directory was created, removed, renamed or had its attributes changed (file contents written
are not an event), no watched directory was removed or moved, and the mount table did not
change (a mount can swap what a path names without any inotify event; seen by polling
/proc/self/mounts). `add(dir)` before the lstat it covers; a directory that does not exist (or is
not a directory) is covered by its parent's watch (its creation is an event there); any other
failure makes the watch not quiet for good.
"""

from __future__ import annotations

import errno
import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# inotify(7)
_IN_MODIFY, _IN_ATTRIB, _IN_CLOSE_WRITE = 0x2, 0x4, 0x8
_IN_MOVED_FROM, _IN_MOVED_TO, _IN_CREATE, _IN_DELETE = 0x40, 0x80, 0x100, 0x200
_IN_DELETE_SELF, _IN_MOVE_SELF, _IN_DONT_FOLLOW, _IN_ONLYDIR = 0x400, 0x800, 0x02000000, 0x01000000
_MASK = (_IN_MODIFY | _IN_ATTRIB | _IN_CLOSE_WRITE | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE | _IN_DELETE
         | _IN_DELETE_SELF | _IN_MOVE_SELF | _IN_DONT_FOLLOW | _IN_ONLYDIR)
_IN_NONBLOCK, _IN_CLOEXEC = os.O_NONBLOCK, 0o2000000
_ENTRY_MASK = (_IN_ATTRIB | _IN_MOVED_FROM | _IN_MOVED_TO | _IN_CREATE | _IN_DELETE | _IN_DELETE_SELF | _IN_MOVE_SELF
               | _IN_DONT_FOLLOW | _IN_ONLYDIR)
MAX_WATCHED_DIRS = 4096
MOUNTS = "/proc/self/mounts"

_libc: list[Any] = []


def _inotify() -> Any:
    """libc with inotify_init1/inotify_add_watch, or None."""
    if not _libc:
        lib = None
        if hasattr(os, "O_NONBLOCK") and os.uname().sysname == "Linux":
            try:
                import ctypes

                lib = ctypes.CDLL(None, use_errno=True)
                lib.inotify_init1.argtypes = [ctypes.c_int]
                lib.inotify_add_watch.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_uint32]
            except (OSError, AttributeError):
                lib = None
        _libc.append(lib)
    return _libc[0]


def _directories(root: str) -> list[str] | None:
    """`root` and every directory below it; None when the tree holds a symlink or is too big."""
    found = [root]
    pending = [root]
    while pending:
        try:
            entries = list(os.scandir(pending.pop()))
        except OSError:
            return None  # an unreadable directory cannot be watched: the stat walk sees it instead
        for e in entries:
            if e.is_symlink():
                return None
            if e.is_dir(follow_symlinks=False):
                found.append(e.path)
                pending.append(e.path)
                if len(found) > MAX_WATCHED_DIRS:
                    return None
    return found


class _Inotify:
    """An inotify descriptor and whether nothing was reported on it yet (closed with `close`;
    once not quiet, never quiet again)."""

    def __init__(self) -> None:
        self._fd = -1
        self._quiet = False

    def _events(self) -> bool:
        """Whether the kernel reported anything (a read error counts as an event: fail safe)."""
        try:
            return bool(os.read(self._fd, 65536))
        except BlockingIOError:
            return False
        except OSError:
            return True

    def close(self) -> None:
        self._quiet = False
        fd, self._fd = self._fd, -1
        if fd >= 0:
            os.close(fd)

    def __del__(self) -> None:
        self.close()


class TreeWatch(_Inotify):
    """One inotify instance over some directory trees (closed with `close`)."""

    def __init__(self, roots: list[str]) -> None:
        super().__init__()
        lib = _inotify()
        if lib is None:
            return
        fd = lib.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if fd < 0:
            return
        self._fd = fd
        for root in roots:
            dirs = _directories(root) if os.path.isdir(root) else None
            if dirs is None:
                self.close()
                return
            for d in dirs:
                if lib.inotify_add_watch(fd, os.fsencode(d), _MASK) < 0:
                    self.close()
                    return
        self._quiet = True

    def quiet(self) -> bool:
        """Whether nothing happened in the watched trees since the watch was made."""
        if self._quiet and self._events():
            self.close()
        return self._quiet


class EntryWatch(_Inotify):
    """One inotify instance over single directories' entries, plus the mount table (closed with `close`)."""

    def __init__(self) -> None:
        super().__init__()
        self._mounts: Any = None
        self._poller: Any = None
        self._lib: Any = None
        self._dirs: set[str] = set()
        lib = _inotify()
        if lib is None:
            return
        try:
            import select

            mounts = open(MOUNTS, "rb")  # noqa: SIM115 - kept open: its poll state is the point
        except (OSError, ImportError):
            return
        poller = select.poll()
        poller.register(mounts, select.POLLPRI | select.POLLERR)
        fd = lib.inotify_init1(_IN_NONBLOCK | _IN_CLOEXEC)
        if fd < 0:
            mounts.close()
            return
        self._fd, self._mounts, self._poller, self._lib = fd, mounts, poller, lib
        self._quiet = True

    def add(self, directory: str) -> None:
        """Watch the entries of `directory` (an absolute path without symbolic links), from now on."""
        if not self._quiet or directory in self._dirs:
            return
        import ctypes

        if len(self._dirs) >= MAX_WATCHED_DIRS:
            self.close()
            return
        if self._lib.inotify_add_watch(self._fd, os.fsencode(directory), _ENTRY_MASK) < 0:
            if ctypes.get_errno() not in (errno.ENOENT, errno.ENOTDIR):
                self.close()  # cannot watch: never quiet again (the caller stops trusting its memo)
            return  # missing: its parent's watch reports its creation
        self._dirs.add(directory)

    def quiet(self) -> bool:
        """Whether nothing happened to the watched entries (and no mount changed) since they were added."""
        if self._quiet and (self._events() or self._poller.poll(0)):
            self.close()
        return self._quiet

    def close(self) -> None:
        super().close()
        mounts, self._mounts = self._mounts, None
        if mounts is not None:
            mounts.close()
