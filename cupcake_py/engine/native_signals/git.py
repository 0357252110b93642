"""`git.*` signals about the repository containing the project root (the `git` executable).

| signal | value (no repository: is_repo false, the rest null / false / []) |
| git.is_repo | bool |
| git.branch | current branch name; null when detached or outside a repo |
| git.is_dirty | staged, unstaged or untracked changes exist |
| git.staged_files / git.unstaged_files / git.untracked_files | paths relative to the work tree (at most MAX_FILES each) |
| git.ahead_behind | {"ahead": n, "behind": n} against the upstream, null without one |
| git.last_commit | {"sha", "message", "author", "time"} (time: unix seconds), null before the first commit |

At most two git processes per evaluation, run concurrently in the project root: `git status
--porcelain=v2 --branch -z` (git.is_repo and the status signals) and `git log -1`
(git.last_commit). git's own discovery finds the repository (parent directories, worktrees,
GIT_DIR, GIT_CEILING_DIRECTORIES); "not a git repository" is the no-repository answer. Each
process runs in its own session with GIT_OPTIONAL_LOCKS=0 (status never takes index.lock while
the agent uses git), GIT_TERMINAL_PROMPT=0 and LC_ALL=C, and its whole group is killed when the
evaluation deadline comes. A git failure or timeout (or no `git` executable) leaves the affected
signals out (absent from input.signals); so does an unreadable repository for git.is_repo.
With the kernel floor enabled (`inside`), git runs inside the floor's profile: a repository
created by an agent's command (`git init` where there was none, a nested repository added to the
index as a gitlink, which status enters) has a configuration the agent wrote, and status runs
its `filter.*.clean` and `core.fsmonitor` commands.
"""

from __future__ import annotations

import os
import subprocess
import time

from cupcake_py.core.lazylog import LazyLogger
from cupcake_py.engine.signals import kill_group

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from os import PathLike
    from typing import Any

log = LazyLogger(__name__)

MAX_FILES = 1000
MAX_OUTPUT = 4 << 20
STATUS = ["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all"]
LOG = ["log", "-1", "--format=%H%x00%an <%ae>%x00%ct%x00%B"]
ENV = {"GIT_OPTIONAL_LOCKS": "0", "GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"}
STATUS_SIGNALS = frozenset({"git.branch", "git.is_dirty", "git.staged_files", "git.unstaged_files",
                            "git.untracked_files", "git.ahead_behind"})


def _no_repo(names: list[str]) -> dict[str, Any]:
    empty: dict[str, Any] = {"git.is_repo": False, "git.branch": None, "git.is_dirty": False, "git.staged_files": [],
                             "git.unstaged_files": [], "git.untracked_files": [], "git.ahead_behind": None,
                             "git.last_commit": None}
    return {n: empty[n] for n in names if n in empty}


def parse_status(text: str) -> dict[str, Any]:
    """Signals from `git status --porcelain=v2 --branch -z` output."""
    branch: str | None = None
    ahead_behind: dict[str, int] | None = None
    staged: list[str] = []
    unstaged: list[str] = []
    untracked: list[str] = []
    entries = text.split("\0")
    i = 0
    while i < len(entries):
        e = entries[i]
        i += 1
        if e.startswith("# branch.head "):
            head = e[len("# branch.head "):]
            branch = None if head == "(detached)" else head
        elif e.startswith("# branch.ab "):
            a, b = e[len("# branch.ab "):].split()
            ahead_behind = {"ahead": int(a), "behind": -int(b)}
        elif e[:2] in ("1 ", "2 ", "u "):
            fields = e.split(" ", 10 if e[0] == "u" else 9 if e[0] == "2" else 8)
            xy, path = fields[1], fields[-1]
            if e[0] == "2":
                i += 1  # the rename's original path follows as its own entry
            if e[0] == "u":
                unstaged.append(path)
                continue
            if xy[0] != ".":
                staged.append(path)
            if xy[1] != ".":
                unstaged.append(path)
        elif e.startswith("? "):
            untracked.append(e[2:])
    return {"git.branch": branch, "git.ahead_behind": ahead_behind, "git.staged_files": staged[:MAX_FILES],
            "git.unstaged_files": unstaged[:MAX_FILES], "git.untracked_files": untracked[:MAX_FILES],
            "git.is_dirty": bool(staged or unstaged or untracked)}


class _Git:
    """One git process started in `root` (None: not started, the reason is logged)."""

    __slots__ = ("args", "proc")

    def __init__(self, args: list[str], root: str | PathLike[str], deadline: float,
                 inside: Callable[[list[str]], list[str]] | None = None) -> None:
        self.args = args
        self.proc: subprocess.Popen[bytes] | None = None
        if deadline - time.monotonic() <= 0:
            log.debug("git %s not started: the evaluation deadline passed", args[0])
            return
        from cupcake_py.engine.reaper import become_subreaper

        become_subreaper()  # a daemon git starts (fsmonitor, maintenance) stays ours and is killed at the end
        try:
            argv = ["git", *args] if inside is None else inside(["git", *args])
            self.proc = subprocess.Popen(argv, cwd=root, env={**os.environ, **ENV}, stdin=subprocess.DEVNULL,
                                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
        except OSError as e:  # no git executable, root unreadable …
            log.debug("git %s could not start: %s", args[0], e)

    def result(self, deadline: float) -> tuple[int, str, str] | None:
        """(exit status, stdout, stderr) of the finished process; None when it did not start or
        the deadline came first (its group is then killed)."""
        proc = self.proc
        if proc is None:
            return None
        try:
            out, err = proc.communicate(timeout=max(deadline - time.monotonic(), 0.0))
        except subprocess.TimeoutExpired:
            log.debug("git %s killed at the evaluation deadline", self.args[0])
            self.kill()
            return None
        return proc.returncode, out[:MAX_OUTPUT].decode("utf-8", "replace"), err[:MAX_OUTPUT].decode("utf-8", "replace")

    def kill(self) -> None:
        """Kill the process group (if still running) and reap the process."""
        if self.proc is None:
            return
        kill_group(self.proc)
        try:
            self.proc.communicate(timeout=1)
        except (subprocess.TimeoutExpired, OSError, ValueError):
            pass


def _no_repository(res: tuple[int, str, str]) -> bool:
    return res[0] == 128 and "not a git repository" in res[2]


def _last_commit(res: tuple[int, str, str] | None, root: str | PathLike[str], deadline: float) -> tuple[bool, Any]:
    """(known, git.last_commit) from `git log -1`; an unborn HEAD (no commits yet) is null."""
    if res is None:
        return False, None
    code, text, err = res
    if code == 0:
        parts = text.split("\0", 3)
        if len(parts) < 4:
            return True, None
        return True, {"sha": parts[0].strip(), "author": parts[1], "time": int(parts[2]), "message": parts[3].strip()}
    if _no_repository(res):
        return True, None
    head = _Git(["rev-parse", "--verify", "-q", "HEAD"], root, deadline).result(deadline)
    if head is not None and head[0] == 1 and not head[1].strip():  # a repository whose HEAD names no commit
        return True, None
    log.debug("git log failed (exit %s): %s", code, err.strip())
    return False, None


def gather(names: list[str], event: dict[str, Any], root: str | PathLike[str], deadline: float,
           inside: Callable[[list[str]], list[str]] | None = None) -> dict[str, Any]:
    if not os.path.isdir(root):
        return _no_repo(names)
    wanted = set(names)
    status = _Git(STATUS, root, deadline, inside) if "git.is_repo" in wanted or STATUS_SIGNALS & wanted else None
    last = _Git(LOG, root, deadline, inside) if "git.last_commit" in wanted else None
    out: dict[str, Any] = {}
    try:
        if status is not None:
            res = status.result(deadline)
            if res is not None and _no_repository(res):
                return _no_repo(names)
            if res is not None and res[0] == 0:
                if "git.is_repo" in wanted:
                    out["git.is_repo"] = True
                values = parse_status(res[1])
                out.update({n: values[n] for n in names if n in values})
            elif res is not None:
                log.debug("git status failed (exit %s): %s", res[0], res[2].strip())
        if last is not None:
            res = last.result(deadline)
            if res is not None and _no_repository(res):
                return _no_repo(names)
            known, value = _last_commit(res, root, deadline)
            if known:
                out["git.last_commit"] = value
    finally:
        for g in (status, last):
            if g is not None and g.proc is not None and g.proc.returncode is None:
                g.kill()
    return out
