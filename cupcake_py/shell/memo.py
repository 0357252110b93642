"""Remembered shell analyses for `cupcake serve` (`enable()`), never trusted blindly.

In: what `analyze(command, cwd)` is called with (no explicit env or budget) and the HOME it reads.
Out: the analysis, as a fresh copy; from memory only when everything the analysis learnt from
the file system would be learnt the same way now.

While an analysis runs for the memo, `os.stat`, `os.lstat`, `os.readlink` and `os.access` are
wrapped to record each call and its answer (a stat's type, inode, device, links, owner, size,
mtime and ctime; a link's target; the errno). An analysis is remembered only when those calls
were all it did outside Python: an audit event of any kind while it ran (a file opened: a script,
an archive, git's config; a directory listed: a glob; anything else the interpreter audits), a
`pwd` lookup (`~user`), a call with a file descriptor or an exception leaves it out. (The
analysis is bounded by work, not time, so an analysis that ran into a budget is as repeatable
as any other.) Before an answer
is reused, every recorded call is made again: any different answer drops it and the command is
analysed afresh. So the analysis is reused only while the names it looked at say what they said
(a script's contents are never part of a remembered analysis: reading one is an open).

`enable()` first checks that this Python's os.path functions reach the wrapped calls (one that
answered them in C would leave entries unchecked): if not, nothing is installed and every
analysis runs afresh. Single-threaded use (one server); at most MAX_ENTRIES commands of at most
MAX_COMMAND_CHARS characters are kept.
"""

from __future__ import annotations

import os
import sys
import threading

from cupcake_py.core import jsonio

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

MAX_ENTRIES = 256
MAX_COMMAND_CHARS = 16384  # a longer command is analysed afresh each time (the memo's memory stays small and flat)
_WRAPPED = ("stat", "lstat", "readlink", "access")
_STAT_FIELDS = ("st_mode", "st_ino", "st_dev", "st_nlink", "st_uid", "st_gid", "st_size", "st_mtime_ns", "st_ctime_ns")


def _observe(fn: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> tuple[Any, OSError | None, Any]:
    """(result, the OSError raised, a comparable form of the answer) of `fn(*args, **kwargs)` now."""
    try:
        got = fn(*args, **kwargs)
    except OSError as e:
        return None, e, ("error", e.errno)
    if isinstance(got, os.stat_result):
        return got, None, tuple(getattr(got, f) for f in _STAT_FIELDS)
    return got, None, ("value", got)


class _Recording:
    __slots__ = ("calls", "escaped", "thread")

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...], tuple[tuple[str, Any], ...], Any]] = []
        self.escaped = False
        self.thread = threading.get_ident()  # other threads' calls and events are not the analysis's


def _current() -> _Recording | None:
    rec = _recording[0] if _recording else None
    return rec if rec is not None and rec.thread == threading.get_ident() else None


_recording: list[_Recording] = []  # the analysis being recorded (at most one)
_originals: dict[str, Callable[..., Any]] = {}


def _audit(_event: str, _args: tuple[Any, ...]) -> None:
    if _recording:
        rec = _current()
        if rec is not None:
            rec.escaped = True


def _recorder(name: str) -> Callable[..., Any]:
    original = _originals[name]

    def call(*args: Any, **kwargs: Any) -> Any:
        rec = _current() if _recording else None
        if rec is None:
            return original(*args, **kwargs)
        if not args or not isinstance(args[0], str) or kwargs.get("dir_fd") is not None \
                or any(not isinstance(a, int) for a in args[1:]):
            rec.escaped = True  # a file descriptor, a path object, a directory fd: not looked at again
        got, error, answer = _observe(original, args, kwargs)
        rec.calls.append((name, args, tuple(sorted(kwargs.items())), answer))
        if error is not None:
            raise error
        return got

    return call


def _escape(original: Callable[..., Any]) -> Any:
    def call(*args: Any, **kwargs: Any) -> Any:
        rec = _current() if _recording else None
        if rec is not None:
            rec.escaped = True
        return original(*args, **kwargs)

    call.__wrapped__ = original  # type: ignore[attr-defined]
    return call


class AnalysisMemo:
    def __init__(self) -> None:
        self._entries: dict[tuple[str, str, str | None], tuple[bytes, list[Any]]] = {}
        self.hits = 0  # observable by tests
        self.misses = 0

    def analyze(self, command: str, cwd: str, run: Callable[[str, str], dict[str, Any]]) -> dict[str, Any]:
        key = (command, cwd, os.environ.get("HOME"))
        known = self._entries.pop(key, None)
        if known is not None and all(_observe(_originals[name], args, dict(kw))[2] == answer
                                     for name, args, kw, answer in known[1]):
            self._entries[key] = known
            self.hits += 1
            return jsonio.loads(known[0])  # type: ignore[no-any-return]
        self.misses += 1
        if _recording:  # not expected (one analysis at a time): no memo for a nested one
            return run(command, cwd)
        rec = _Recording()
        _recording.append(rec)
        try:
            result = run(command, cwd)
        finally:
            _recording.clear()
        if not rec.escaped and len(command) <= MAX_COMMAND_CHARS:
            if len(self._entries) >= MAX_ENTRIES:
                del self._entries[next(iter(self._entries))]
            self._entries[key] = (jsonio.dumps(result), rec.calls)
        return result


_active: list[AnalysisMemo] = []


_hooked: list[bool] = []


def _routed_through_recorders() -> bool:
    """Whether the os.path functions the analysis uses reach the wrapped calls on this Python (a
    version that answered them in C without `os.stat` would make every memo entry unchecked)."""
    here = os.path.abspath(__file__)
    probes = (os.path.exists, os.path.lexists, os.path.isdir, os.path.isfile, os.path.islink,
              os.path.getsize, os.path.realpath)
    rec = _Recording()
    _recording.append(rec)
    try:
        for probe in probes:
            before = len(rec.calls)
            probe(here)
            if len(rec.calls) == before:
                return False
        return True
    finally:
        _recording.clear()


def enable() -> AnalysisMemo | None:
    """Install the recorders and the audit hook (once per process) and return the memo; None
    (nothing installed) when this Python's os.path does not go through the recorded calls."""
    if not _active:
        import pwd

        for name in _WRAPPED:
            _originals[name] = getattr(os, name)
            setattr(os, name, _recorder(name))
        for name in ("getpwnam", "getpwuid", "getpwall"):
            setattr(pwd, name, _escape(getattr(pwd, name)))
        _active.append(AnalysisMemo())
        if not _routed_through_recorders():
            disable()
            return None
        if not _hooked:
            sys.addaudithook(_audit)
            _hooked.append(True)
    return _active[0]


def active() -> AnalysisMemo | None:
    return _active[0] if _active else None


def disable() -> None:
    """Put the original functions back and stop remembering (tests; the audit hook stays, idle)."""
    if _active:
        import pwd

        for name in _WRAPPED:
            setattr(os, name, _originals[name])
        for name in ("getpwnam", "getpwuid", "getpwall"):
            setattr(pwd, name, getattr(pwd, name).__wrapped__)
        _active.clear()
