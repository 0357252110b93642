"""git.* signals on real temporary repositories, file.* signals on real files; timeouts,
crashes (git failing), large outputs and absent repositories/files."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from cupcake_py.engine.native_signals import file as file_signals
from cupcake_py.engine.native_signals import git as git_signals

ALL_GIT = ["git.is_repo", "git.branch", "git.is_dirty", "git.staged_files", "git.unstaged_files",
           "git.untracked_files", "git.ahead_behind", "git.last_commit"]
ENV = {"GIT_AUTHOR_NAME": "Ann", "GIT_AUTHOR_EMAIL": "ann@example.com", "GIT_COMMITTER_NAME": "Ann",
       "GIT_COMMITTER_EMAIL": "ann@example.com", "GIT_CONFIG_NOSYSTEM": "1", "HOME": "/nonexistent"}


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True,
                          env={**os.environ, **ENV}).stdout


def later(seconds: float = 10) -> float:
    return time.monotonic() + seconds


def make_repo(parent: Path, branch: str, message: str) -> Path:
    """parent/repo: a repository on `branch` with one commit (a.txt) whose message is `message`."""
    r = parent / "repo"
    r.mkdir()
    git(r, "init", "-q", "-b", branch)
    (r / "a.txt").write_text("a\n")
    git(r, "add", "a.txt")
    git(r, "commit", "-q", "-m", message)
    return r


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path, "main", "first line\n\nbody")


def test_clean_repo(repo: Path) -> None:
    got = git_signals.gather(ALL_GIT, {}, repo, later())
    sha = git(repo, "rev-parse", "HEAD").strip()
    assert got == {"git.is_repo": True, "git.branch": "main", "git.is_dirty": False, "git.staged_files": [],
                   "git.unstaged_files": [], "git.untracked_files": [], "git.ahead_behind": None,
                   "git.last_commit": {"sha": sha, "message": "first line\n\nbody", "author": "Ann <ann@example.com>",
                                       "time": got["git.last_commit"]["time"]}}
    assert abs(got["git.last_commit"]["time"] - time.time()) < 600


def test_dirty_repo_from_a_subdirectory(repo: Path) -> None:
    (repo / "a.txt").write_text("changed\n")
    (repo / "b.txt").write_text("b\n")
    git(repo, "add", "b.txt")
    (repo / "b.txt").write_text("b2\n")
    (repo / "sub").mkdir()
    (repo / "sub" / "new.py").write_text("x\n")
    got = git_signals.gather(ALL_GIT, {}, repo / "sub", later())
    assert got["git.is_dirty"] is True
    assert got["git.staged_files"] == ["b.txt"]
    assert sorted(got["git.unstaged_files"]) == ["a.txt", "b.txt"]
    assert got["git.untracked_files"] == ["sub/new.py"]


def test_rename_branch_and_ahead_behind(repo: Path, tmp_path: Path) -> None:
    remote = tmp_path / "remote.git"
    git(tmp_path, "init", "-q", "--bare", str(remote))
    git(repo, "remote", "add", "origin", str(remote))
    git(repo, "push", "-q", "-u", "origin", "main")
    git(repo, "checkout", "-q", "-b", "feature")
    git(repo, "push", "-q", "-u", "origin", "feature")
    git(repo, "mv", "a.txt", "renamed.txt")
    git(repo, "commit", "-q", "-m", "rename")
    (repo / "c.txt").write_text("c\n")
    git(repo, "add", "c.txt")
    got = git_signals.gather(["git.branch", "git.ahead_behind", "git.staged_files", "git.last_commit"], {}, repo, later())
    assert got["git.branch"] == "feature"
    assert got["git.ahead_behind"] == {"ahead": 1, "behind": 0}
    assert got["git.staged_files"] == ["c.txt"]
    assert got["git.last_commit"]["message"] == "rename"


def test_detached_head_and_unborn_repo(repo: Path, tmp_path: Path) -> None:
    git(repo, "checkout", "-q", "--detach")
    assert git_signals.gather(["git.branch"], {}, repo, later()) == {"git.branch": None}
    empty = tmp_path / "empty"
    empty.mkdir()
    git(empty, "init", "-q", "-b", "trunk")
    got = git_signals.gather(["git.branch", "git.last_commit", "git.is_dirty"], {}, empty, later())
    assert got == {"git.branch": "trunk", "git.last_commit": None, "git.is_dirty": False}


def test_absent_repo_is_safe(tmp_path: Path) -> None:
    got = git_signals.gather(ALL_GIT, {}, tmp_path, later())
    assert got == {"git.is_repo": False, "git.branch": None, "git.is_dirty": False, "git.staged_files": [],
                   "git.unstaged_files": [], "git.untracked_files": [], "git.ahead_behind": None,
                   "git.last_commit": None}
    assert git_signals.gather(["git.branch"], {}, tmp_path / "missing", later()) == {"git.branch": None}


def test_only_requested_names(repo: Path) -> None:
    assert set(git_signals.gather(["git.branch"], {}, repo, later())) == {"git.branch"}


def test_deadline_passed_leaves_signals_out(repo: Path) -> None:
    got = git_signals.gather(["git.is_repo", "git.branch", "git.last_commit"], {}, repo, time.monotonic() - 1)
    assert got == {}  # is_repo too: only a finished `git status` says there is a repository


def test_git_crash_leaves_signals_out(repo: Path) -> None:
    (repo / ".git" / "index").write_bytes(b"garbage, not an index")
    got = git_signals.gather(["git.is_repo", "git.staged_files", "git.last_commit"], {}, repo, later())
    assert set(got) == {"git.last_commit"}  # status failed (not "not a git repository"): its signals are left out


def test_slow_git_is_killed_at_the_deadline(repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bindir = tmp_path / "bin"
    bindir.mkdir()
    fake = bindir / "git"
    fake.write_text("#!/bin/sh\nexec sleep 30\n")
    fake.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")
    t0 = time.monotonic()
    got = git_signals.gather(["git.branch"], {}, repo, time.monotonic() + 0.5)
    assert got == {}
    assert time.monotonic() - t0 < 5


def test_many_untracked_files_are_capped(repo: Path) -> None:
    many = repo / "many"
    many.mkdir()
    for i in range(git_signals.MAX_FILES + 50):
        (many / f"f{i:05d}.txt").write_text("")
    got = git_signals.gather(["git.untracked_files", "git.is_dirty"], {}, repo, later(30))
    assert len(got["git.untracked_files"]) == git_signals.MAX_FILES
    assert got["git.is_dirty"] is True


@pytest.mark.parametrize(("text", "expected"), [
    ("# branch.oid abc\0# branch.head dev\0# branch.upstream o/dev\0# branch.ab +2 -3\0",
     {"git.branch": "dev", "git.ahead_behind": {"ahead": 2, "behind": 3}}),
    ("1 .M N... 100644 100644 100644 h1 h2 with space.txt\0", {"git.unstaged_files": ["with space.txt"]}),
    ("2 R. N... 100644 100644 100644 h1 h2 R100 new name.txt\0old name.txt\0? x\0",
     {"git.staged_files": ["new name.txt"], "git.untracked_files": ["x"]}),
    ("u UU N... 100644 100644 100644 100644 h1 h2 h3 conflict.txt\0", {"git.unstaged_files": ["conflict.txt"]}),
])
def test_parse_status(text: str, expected: dict[str, Any]) -> None:
    got = git_signals.parse_status(text)
    assert {k: got[k] for k in expected} == expected


# ------------------------------------------------------------------------- file.*

FILE_NAMES = ["file.exists", "file.size", "file.sha256", "file.line_count", "file.head"]


def ev(path: Path | str) -> dict[str, Any]:
    return {"resolved_file_path": str(path)}


@pytest.mark.parametrize(("content", "lines"), [(b"", 0), (b"a", 1), (b"a\n", 1), (b"a\nb", 2), (b"a\n\n", 2),
                                                (b"\xff\xfe\n", 1)])
def test_file_signals(tmp_path: Path, content: bytes, lines: int) -> None:
    import hashlib

    p = tmp_path / "f.txt"
    p.write_bytes(content)
    got = file_signals.gather(FILE_NAMES, ev(p), tmp_path, later())
    assert got == {"file.exists": True, "file.size": len(content), "file.sha256": hashlib.sha256(content).hexdigest(),
                   "file.line_count": lines, "file.head": content.decode("utf-8", "replace")}


def test_file_head_sizes(tmp_path: Path) -> None:
    p = tmp_path / "big.txt"
    p.write_bytes(b"x" * 5000 + b"\n" + b"y" * 20000)
    got = file_signals.gather(["file.head", "file.head_1kb", "file.head_2048kb", "file.line_count"], ev(p), tmp_path, later())
    assert len(got["file.head"]) == 8192 and len(got["file.head_1kb"]) == 1024
    assert "file.head_2048kb" not in got
    assert got["file.line_count"] == 2


def test_missing_dangling_and_no_target(tmp_path: Path) -> None:
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    for event in (ev(tmp_path / "missing"), ev(tmp_path / "dangling"), {}, {"resolved_file_path": 3}):
        assert file_signals.gather(FILE_NAMES, event, tmp_path, later()) == {"file.exists": False}


def test_fifo_and_directory_are_never_read(tmp_path: Path) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    t0 = time.monotonic()
    assert file_signals.gather(FILE_NAMES, ev(fifo), tmp_path, later()) == {"file.exists": True, "file.size": None}
    assert file_signals.gather(FILE_NAMES, ev(tmp_path), tmp_path, later()) == {"file.exists": True, "file.size": None}
    assert time.monotonic() - t0 < 2


def test_large_file_line_count_is_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(file_signals, "MAX_SCAN_BYTES", 1000)
    monkeypatch.setattr(file_signals, "MAX_HASH_BYTES", 1000)
    p = tmp_path / "large.txt"
    p.write_bytes(b"line\n" * 1000)
    got = file_signals.gather(["file.line_count", "file.sha256", "file.size"], ev(p), tmp_path, later())
    assert got == {"file.line_count": 200, "file.size": 5000}


def test_file_deadline(tmp_path: Path) -> None:
    p = tmp_path / "f.txt"
    p.write_text("a\nb\n")
    got = file_signals.gather(["file.exists", "file.line_count", "file.head"], ev(p), tmp_path, time.monotonic() - 1)
    assert got == {"file.exists": True}
