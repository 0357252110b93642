"""`git.*` signals about the repository containing the project root (GitPython).

| signal | value (no repository: is_repo false, the rest null / false / []) |
| git.is_repo | bool |
| git.branch | current branch name; null when detached or outside a repo |
| git.is_dirty | staged, unstaged or untracked changes exist |
| git.staged_files / git.unstaged_files / git.untracked_files | paths relative to the work tree (at most MAX_FILES each) |
| git.ahead_behind | {"ahead": n, "behind": n} against the upstream, null without one |
| git.last_commit | {"sha", "message", "author", "time"} (time: unix seconds), null before the first commit |

One repository open and at most two git processes per evaluation (`git status --porcelain=v2
--branch -z` and `git log -1`), each killed when the evaluation deadline comes. A git failure
or timeout leaves the affected signals out (absent from input.signals).
"""

from __future__ import annotations

import logging
import time
from typing import Any

TYPE_CHECKING = False
if TYPE_CHECKING:
    from os import PathLike

log = logging.getLogger(__name__)

MAX_FILES = 1000
MAX_OUTPUT = 4 << 20
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


def _run(repo: Any, args: list[str], deadline: float) -> str | None:
    left = deadline - time.monotonic()
    if left <= 0:
        return None
    try:
        out = repo.git.execute(["git", *args], kill_after_timeout=max(left, 0.01), max_chunk_size=MAX_OUTPUT,
                               strip_newline_in_stdout=False, stdout_as_string=False)
    except Exception as e:  # GitCommandError, timeout kill, OSError: leave the signals out
        log.debug("git %s failed: %s", args[0], e)
        return None
    data = out if isinstance(out, bytes) else str(out).encode()
    return data[:MAX_OUTPUT].decode("utf-8", "replace")


def gather(names: list[str], event: dict[str, Any], root: str | PathLike[str], deadline: float) -> dict[str, Any]:
    import git

    try:
        repo = git.Repo(root, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return _no_repo(names)
    except Exception as e:
        log.debug("git repo at %s unreadable: %s", root, e)
        return {}
    out: dict[str, Any] = {}
    try:
        if "git.is_repo" in names:
            out["git.is_repo"] = True
        if STATUS_SIGNALS & set(names):
            text = _run(repo, ["status", "--porcelain=v2", "--branch", "-z", "--untracked-files=all"], deadline)
            if text is not None:
                status = parse_status(text)
                out.update({n: status[n] for n in names if n in status})
        if "git.last_commit" in names:
            text = _run(repo, ["log", "-1", "--format=%H%x00%an <%ae>%x00%ct%x00%B"], deadline)
            if text is not None:
                parts = text.split("\0", 3)
                out["git.last_commit"] = ({"sha": parts[0].strip(), "author": parts[1], "time": int(parts[2]),
                                           "message": parts[3].strip()} if len(parts) == 4 else None)
            elif _unborn(repo):
                out["git.last_commit"] = None
    finally:
        repo.close()
    return out


def _unborn(repo: Any) -> bool:
    try:
        return not repo.head.is_valid()
    except Exception:
        return False
