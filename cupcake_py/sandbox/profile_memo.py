"""A project's sandbox profile, and the command line parts made from it, remembered between
evaluations while everything it was computed from is the same (docs/sandbox.md, "What a cold
evaluation pays").

In: the profile's sources (sandbox/profile.py `Sources`), the directory for cupcake's sandbox files
(a state path: private to the user, read-only inside every sandbox).
Out: `ProfileMemo(directory, src)`:
- `profile()`: the profile of `src`. Remembered (`profile-<project and working directory>.json`,
  up to `MAX_RECORDS` profiles: one per set of inputs) under a key of everything the computation
  reads that is not the file system: the sources (state paths, PATH dirs, rulebook settings,
  protected and sensitive patterns, the policies' extension, home), the Python environment, the
  environment variables it reads (and the names of all of them: the secrets unset inside),
  the user's ids and groups, the process's working directory (where a relative path is looked
  up), the sandbox modules' files (another cupcake computes anew), and the
  parts read again for every evaluation: the sockets of processes outside the sandbox and the
  project's secrets scan. A remembered profile is used only while every question its computation
  asked the file system (sandbox/lookups.py: what each path is, where links lead, the bytes of the
  git config files, directory listings, executable bits) gets the same answer now; else it is
  computed again and remembered.
- `parts(bwrap, mounter, make)`: the command line's parts for this profile (sandbox/bwrap.py
  `prepare`), remembered per bwrap and mounter while the files they name are the ones written
  (same inode, size, mtime and ctime); `make(fs)` computes them with the profile's file system
  answers.
- `save()`: writes what changed. Never raises: a memo that cannot be read is empty, one that
  cannot be written is not written (the next evaluation computes again).
"""

from __future__ import annotations

import os

from cupcake_py.core.cache_mac import hexdigest
from cupcake_py.sandbox.lookups import Lookups, unchanged

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

    from cupcake_py.sandbox.sources import Sources

MEMO_VERSION = 1
MAX_RECORDS = 4
# The environment variables the computation reads (sandbox/profile.py: TMPDIR/TMP/TEMP as
# writable roots, PATH, git's XDG config, Claude Code's config dir; home); every name is in the
# key too (the secrets unset inside the sandbox are chosen by name).
ENV_VALUES = ("HOME", "PATH", "TMPDIR", "TMP", "TEMP", "XDG_CONFIG_HOME", "CLAUDE_CONFIG_DIR")
GIT_ENV = "GIT_CONFIG"  # every variable whose name starts so (the config files git reads, configs set in the environment)
# The modules whose code computes a profile or its command line (another version: computed again).
# (Paths below cupcake_py/.)
CODE = tuple(os.path.join("sandbox", n) for n in (
    "lookups.py", "profile.py", "sources.py", "writable.py", "secrets.py", "sockets.py", "bwrap.py", "launcher.py",
    "profile_memo.py", "scan_memo.py")) + (os.path.join("engine", "sandbox_floor.py"), os.path.join("core", "userdirs.py"))


CODE_MARGIN_NS = 100_000_000  # a file's ctime (the kernel's coarse clock) may lag the write by a tick


def _code() -> list[Any] | None:
    """The sandbox modules' files, or None when one changed after this process loaded cupcake (its
    ctime, which nobody sets back): the code running may be the one before (an upgrade under
    `cupcake serve`), whose profile must not be remembered under the new files, nor reuse theirs."""
    import cupcake_py

    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    started = cupcake_py.STARTED_NS - CODE_MARGIN_NS
    out: list[Any] = []
    for name in CODE:
        try:
            st = os.stat(os.path.join(here, name))
        except OSError:
            out.append([name, None])
            continue
        if st.st_ctime_ns >= started:
            return None
        out.append([name, st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino])
    return out


def key(src: Sources) -> str | None:
    """The digest of everything but the file system that `src`'s profile is computed from. The
    rulebook settings and patterns are plain data loaded from YAML (str, int, float, bool, None,
    lists and dicts of them), whose `repr` differs whenever they do. None: no memo for this
    process (`_code`, or its working directory is gone)."""
    from cupcake_py.sandbox.sources import python_environment

    code = _code()
    if code is None:
        return None
    env = os.environ
    try:
        here = os.getcwd()  # where a relative path would be looked up (sandbox/lookups.py asks it there)
    except OSError:
        return None
    state = "\0".join(f"{sp.get('path')!r}\1{bool(sp.get('read_protected'))}" for sp in src.state_paths)
    material = (
        MEMO_VERSION, code, state, "\0".join(src.path_dirs), src.project_root, src.cwd, src.settings,
        list(src.protected), list(src.sensitive), list(src.system), src.extension, src.home,
        "\0".join(python_environment()), "\0".join(sorted(env)), [env.get(n) for n in ENV_VALUES],
        sorted((n, v) for n, v in env.items() if n.startswith(GIT_ENV)),
        (os.getuid(), os.geteuid(), os.getgid(), os.getegid(), sorted(os.getgroups())),
        "\0".join(src.sockets or ()), src.scan, here,
    )
    return hexdigest(repr(material).encode("utf-8", "surrogateescape"))


def memo_name(project_root: str, cwd: str) -> str:
    where = (project_root + "\0" + cwd).encode("utf-8", "surrogateescape")
    return f"profile-{hexdigest(where, 16)}.json"


def _files(parts: dict[str, Any]) -> list[Any]:
    """(path, inode, size, mtime, ctime) of the arguments file and the mount list: a file written
    again, replaced or removed since has another (cupcake writes them content-addressed, in a
    private directory that is read-only inside every sandbox, the memo's own)."""
    out: list[Any] = []
    for path in (parts["args"], parts.get("mounts")):
        if path:
            try:
                st = os.stat(path)
                out.append([path, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns])
            except OSError:
                out.append([path, None])
    return out


class ProfileMemo:
    __slots__ = ("path", "records", "record", "src", "_fs", "dirty", "hit")

    def __init__(self, directory: str, src: Sources) -> None:
        self.src = src
        self.path = os.path.join(directory, memo_name(src.project_root, src.cwd))
        self.records: list[dict[str, Any]] = []
        self.record: dict[str, Any] | None = None
        self._fs: Lookups | None = src.fs  # None: a remembered record's answers (built when asked: `fs`)
        self.dirty = False
        self.hit = False
        try:
            from cupcake_py.core import jsonio

            with open(self.path, "rb") as f:
                data = jsonio.loads(f.read())
            if isinstance(data, dict) and data.get("version") == MEMO_VERSION and isinstance(data.get("records"), list):
                self.records = [r for r in data["records"] if isinstance(r, dict)]
        except (OSError, ValueError):
            pass

    def profile(self) -> dict[str, Any]:
        from cupcake_py.sandbox.sources import scan, sockets

        src = self.src
        if src.scan is None:
            src.scan = scan(src)
        if src.sockets is None:
            src.sockets = sockets()
        k = key(src)
        if k is None:  # computed, neither reused nor remembered
            from cupcake_py.sandbox.profile import compute

            return dict(compute(src))
        for i, r in enumerate(self.records):
            vouched: dict[str, list[int]] = {}
            if r.get("key") == k and isinstance(r.get("profile"), dict) \
                    and isinstance(r.get("wraps"), dict) and unchanged(r.get("entries"), vouched):
                self.record, self.hit = r, True
                for d, sig in vouched.items():  # old enough now: their timestamps vouch from the next call on
                    r["entries"]["dirs"][d][0] = sig
                    self.dirty = True
                self._fs = None  # its answers, when the command line's parts are computed again (`fs`)
                if i:
                    self.records.insert(0, self.records.pop(i))
                    self.dirty = True
                return dict(r["profile"])
        from cupcake_py.sandbox.profile import compute

        prof = compute(src)
        self._fs = src.fs
        self.record = {"key": k, "profile": prof, "entries": src.fs.entries(), "wraps": {}}
        self.records = [self.record] + [r for r in self.records if r.get("key") != k][:MAX_RECORDS - 1]
        self.dirty = True
        return dict(prof)

    @property
    def fs(self) -> Lookups:
        """The file system answers of this profile: the computation's, or the remembered record's
        (`unchanged` confirmed them), asking the file system only what they do not hold."""
        if self._fs is None:
            assert self.record is not None
            self._fs = Lookups.answering(self.record["entries"])
        return self._fs

    def parts(self, bwrap: str, mounter: str | None, make: Callable[[Lookups], dict[str, Any]]) -> dict[str, Any]:
        """The command line's parts for this profile with `bwrap` (and `mounter`)."""
        rec = self.record
        wrap_key = f"{bwrap}\0{mounter or ''}"
        if rec is not None:
            known = rec["wraps"].get(wrap_key)
            if isinstance(known, dict) and _parts_ok(known) and known.get("files") == _files(known):
                from cupcake_py.sandbox.bwrap import empty_file

                empty_file()  # what the mount list names over hidden files (made again when changed)
                return known
        got = make(self.fs)  # its questions join the profile's (answered from them where asked before)
        got["files"] = _files(got)
        if rec is not None:
            rec["entries"] = self.fs.entries()
            rec["wraps"][wrap_key] = got
            self.dirty = True
        return got

    def save(self) -> None:
        if not self.dirty:
            return
        from cupcake_py.core import jsonio
        from cupcake_py.core.userdirs import atomic_write

        try:
            atomic_write(os.path.dirname(self.path), os.path.basename(self.path),
                         [jsonio.dumps({"version": MEMO_VERSION, "records": self.records})], ".json")
        except (OSError, TypeError, ValueError):
            pass  # computed again next time
        self.dirty = False


def _parts_ok(parts: dict[str, Any]) -> bool:
    frame = parts.get("frame")
    return (isinstance(parts.get("args"), str) and (parts.get("mounts") is None or isinstance(parts.get("mounts"), str))
            and isinstance(frame, list) and len(frame) == 4 and all(isinstance(x, str) for x in frame))
