"""git.* signals from the `git` executable itself: git's own repository discovery (ceilings,
subdirectories, worktrees), unborn repositories, the environment git runs with, a missing
executable, deadline kills that leave no process behind, and an import path without GitPython,
pathlib or logging."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cupcake_py.engine.native_signals import git as git_signals
from cupcake_py.engine.reaper import children

from .test_git_file_signals import ALL_GIT, git, later, make_repo

NO_REPO = {"git.is_repo": False, "git.branch": None, "git.is_dirty": False, "git.staged_files": [],
           "git.unstaged_files": [], "git.untracked_files": [], "git.ahead_behind": None, "git.last_commit": None}


def fake_git(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, script: str) -> None:
    """Put a `git` shell script first on PATH."""
    bindir = tmp_path / "fakebin"
    bindir.mkdir()
    (bindir / "git").write_text("#!/bin/sh\n" + script)
    (bindir / "git").chmod(0o755)
    monkeypatch.setenv("PATH", f"{bindir}:{os.environ['PATH']}")


def gone(pid: int, within: float = 5.0) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.02)
    return False


def test_git_discovery_decides_no_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outer = tmp_path / "outer"
    inner = outer / "inner"
    inner.mkdir(parents=True)
    git(outer, "init", "-q", "-b", "main")
    assert git_signals.gather(["git.is_repo"], {}, inner, later()) == {"git.is_repo": True}  # found in a parent
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(outer))  # git may not go up into outer any more
    assert git_signals.gather(ALL_GIT, {}, inner, later()) == NO_REPO
    assert git_signals.gather(["git.last_commit"], {}, inner, later()) == {"git.last_commit": None}  # log alone
    assert git_signals.gather(["git.branch", "git.ahead_behind"], {}, inner, later()) == {
        "git.branch": None, "git.ahead_behind": None}


def test_unborn_repository(tmp_path: Path) -> None:
    r = tmp_path / "fresh"
    r.mkdir()
    git(r, "init", "-q", "-b", "trunk")
    got = git_signals.gather(ALL_GIT, {}, r, later())
    assert got == {**NO_REPO, "git.is_repo": True, "git.branch": "trunk"}
    (r / "new.txt").write_text("n\n")
    git(r, "add", "new.txt")
    got = git_signals.gather(["git.last_commit", "git.staged_files", "git.is_dirty"], {}, r, later())
    assert got == {"git.last_commit": None, "git.staged_files": ["new.txt"], "git.is_dirty": True}
    assert git_signals.gather(["git.last_commit"], {}, r, later()) == {"git.last_commit": None}  # without status


def test_staged_unstaged_untracked_in_a_worktree_subdirectory(tmp_path: Path) -> None:
    main = tmp_path / "main"
    main.mkdir()
    git(main, "init", "-q", "-b", "main")
    (main / "src").mkdir()
    for name in ("src/kept.py", "src/edited.py", "src/both.py"):
        (main / name).write_text("v1\n")
    git(main, "add", "src")
    git(main, "commit", "-q", "-m", "base")
    wt = tmp_path / "wt"
    git(main, "worktree", "add", "-q", "-b", "side", str(wt))
    (wt / "src/edited.py").write_text("v2\n")
    (wt / "src/both.py").write_text("v2\n")
    git(wt, "add", "src/both.py")
    (wt / "src/both.py").write_text("v3\n")
    (wt / "src/new dir").mkdir()
    (wt / "src/new dir/fresh file.txt").write_text("x\n")
    got = git_signals.gather(ALL_GIT, {}, wt / "src", later())
    assert got["git.is_repo"] is True and got["git.branch"] == "side" and got["git.is_dirty"] is True
    assert got["git.staged_files"] == ["src/both.py"]
    assert sorted(got["git.unstaged_files"]) == ["src/both.py", "src/edited.py"]
    assert got["git.untracked_files"] == ["src/new dir/fresh file.txt"]
    assert got["git.last_commit"]["message"] == "base"
    assert git_signals.gather(["git.branch"], {}, main, later()) == {"git.branch": "main"}


def test_git_runs_with_optional_locks_off_and_c_locale(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen = tmp_path / "env.txt"
    fake_git(tmp_path, monkeypatch, f'pwd > "{seen}"; env >> "{seen}"; echo "fatal: boom" >&2; exit 1\n')
    monkeypatch.setenv("CUPCAKE_TEST_MARK", "inherited")
    monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")
    project = tmp_path / "project"
    project.mkdir()
    assert git_signals.gather(["git.is_repo", "git.branch"], {}, project, later()) == {}  # a failure, not "no repo"
    cwd, *env = seen.read_text().splitlines()
    assert cwd == str(project)
    assert {"GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C", "CUPCAKE_TEST_MARK=inherited"} <= set(env)


def test_missing_git_executable_leaves_signals_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    empty = tmp_path / "nobin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    assert git_signals.gather(ALL_GIT, {}, tmp_path, later()) == {}


def test_deadline_passed_starts_no_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    started = tmp_path / "started"
    fake_git(tmp_path, monkeypatch, f'touch "{started}"\n')
    before = set(children())  # e.g. multiprocessing's resource tracker, started by earlier tests
    assert git_signals.gather(ALL_GIT, {}, tmp_path, time.monotonic() - 0.001) == {}
    assert not started.exists() and set(children()) <= before


def test_timeout_kills_the_whole_process_group(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pids = tmp_path / "pids"
    # git itself and a helper it started (same process group) both outlive the deadline unless killed
    fake_git(tmp_path, monkeypatch, f'sleep 30 & echo "$$ $!" >> "{pids}"; wait\n')
    before = set(children())  # e.g. multiprocessing's resource tracker, started by earlier tests
    t0 = time.monotonic()
    got = git_signals.gather(["git.branch", "git.last_commit"], {}, tmp_path, time.monotonic() + 0.5)
    assert got == {}
    assert time.monotonic() - t0 < 3
    started = [int(p) for line in pids.read_text().splitlines() for p in line.split()]
    assert len(started) == 4  # status and log ran concurrently, each with its helper
    assert all(gone(pid) for pid in started)
    assert set(children()) <= before


PROBE = """
import sys, time
from cupcake_py.engine import native_signals
got = native_signals.gather(["git.branch", "git.is_dirty", "git.last_commit"], {}, sys.argv[1], time.monotonic() + 30)
modules = sorted(sys.modules)  # before the probe's own json import
import json
print(json.dumps({"got": got, "modules": modules}))
"""


def test_gathering_git_signals_imports_no_gitpython_pathlib_or_logging(tmp_path: Path) -> None:
    r = make_repo(tmp_path, "probe", "probe commit")
    proc = subprocess.run([sys.executable, "-c", PROBE, str(r)], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1"})
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["got"]["git.branch"] == "probe" and report["got"]["git.last_commit"]["message"] == "probe commit"
    loaded = set(report["modules"])
    assert "cupcake_py.engine.native_signals.git" in loaded
    offenders = loaded & {"git", "pathlib", "logging", "typing"}
    assert not offenders, sorted(offenders)
