"""shell/memo.py (`cupcake serve`): a remembered analysis is the fresh analysis, whatever changed on disk.

Adversarial: between two analyses of the same command the agent swaps a link, creates the script the
command runs, edits that script, adds files a glob matches, changes HOME: the next analysis must be
what a fresh one says. Benign: an unchanged command in an unchanged directory is served from memory.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cupcake_py.shell import analyze, memo
from cupcake_py.shell.analysis import run
from tests import fs_ops


@pytest.fixture()
def remembered() -> Iterator[memo.AnalysisMemo]:
    m = memo.enable()
    assert m is not None
    m._entries.clear()
    try:
        yield m
    finally:
        memo.disable()


def _remembered(m: memo.AnalysisMemo, command: str) -> bool:
    return any(key[0] == command for key in m._entries)


def _same(command: str, cwd: Path) -> dict[str, object]:
    got = analyze(command, str(cwd))
    assert got == run(command, str(cwd)), command  # the memo's answer is the fresh one
    return got


def test_an_unchanged_command_is_served_from_memory(tmp_path: Path, remembered: memo.AnalysisMemo) -> None:
    (tmp_path / "src").mkdir()
    command = "ls -la src && grep -rn TODO src | head -20"
    first = _same(command, tmp_path)
    _same(command, tmp_path)  # the very first analysis may import modules (audit events): not remembered
    hits = remembered.hits
    for _ in range(3):
        assert _same(command, tmp_path) == first
    assert remembered.hits == hits + 3
    got = analyze(command, str(tmp_path))
    got["commands"].append("mine")  # a caller's changes stay its own
    assert analyze(command, str(tmp_path)) == first


def test_a_swapped_link_is_seen(tmp_path: Path, remembered: memo.AnalysisMemo) -> None:
    (tmp_path / "notes.txt").write_text("x")
    (tmp_path / "link").symlink_to(tmp_path / "notes.txt")
    assert str(tmp_path / "notes.txt") in str(_same("cat link", tmp_path)["effects"])
    hits = remembered.hits
    _same("cat link", tmp_path)
    assert remembered.hits == hits + 1 and _remembered(remembered, "cat link")
    (tmp_path / "link").unlink()
    (tmp_path / "link").symlink_to("/etc/shadow")
    assert "/etc/shadow" in _same("cat link", tmp_path)["effects"]["reads"]  # type: ignore[index]


def test_a_script_created_then_edited_is_analysed_afresh(tmp_path: Path, remembered: memo.AnalysisMemo) -> None:
    before = _same("bash run.sh", tmp_path)  # missing script: opaque
    assert before["opaque"]
    script = tmp_path / "run.sh"
    script.write_text("echo hello\n")
    benign = _same("bash run.sh", tmp_path)
    assert "/etc" not in str(benign["effects"])
    assert not _remembered(remembered, "bash run.sh")  # its contents were read: never remembered
    script.write_text("echo hello > /etc/passwd\n")  # same name, new contents (read with an open: never remembered)
    assert "/etc/passwd" in _same("bash run.sh", tmp_path)["effects"]["writes"]  # type: ignore[index]


def test_glob_matches_follow_the_directory(tmp_path: Path, remembered: memo.AnalysisMemo) -> None:
    (tmp_path / "a.txt").write_text("a")
    assert str(tmp_path / "a.txt") in _same("rm *.txt", tmp_path)["effects"]["deletes"]  # type: ignore[index]
    assert not _remembered(remembered, "rm *.txt")  # a directory was listed: never remembered
    (tmp_path / "b.txt").write_text("b")
    assert str(tmp_path / "b.txt") in _same("rm *.txt", tmp_path)["effects"]["deletes"]  # type: ignore[index]


def test_home_is_part_of_the_key(tmp_path: Path, remembered: memo.AnalysisMemo,
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "h1"))
    one = _same("cat ~/.ssh/id_rsa", tmp_path)
    monkeypatch.setenv("HOME", str(tmp_path / "h2"))
    two = _same("cat ~/.ssh/id_rsa", tmp_path)
    assert str(tmp_path / "h2/.ssh/id_rsa") in two["effects"]["reads"] and one != two  # type: ignore[index]


def test_user_home_lookups_are_never_remembered(tmp_path: Path, remembered: memo.AnalysisMemo) -> None:
    _same("cat ~root/.bashrc", tmp_path)
    assert not _remembered(remembered, "cat ~root/.bashrc")


def test_git_config_reads_are_never_remembered(tmp_path: Path, remembered: memo.AnalysisMemo) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git/config").write_text("[alias]\n  st = status\n")
    _same("git st", tmp_path)
    assert not _remembered(remembered, "git st")
    (tmp_path / ".git/config").write_text("[alias]\n  st = !rm -rf /\n")
    assert _same("git st", tmp_path) == run("git st", str(tmp_path))


COMMANDS = ["cat a/b", "rm -rf a", "ls b/c && cd a && cat ../c", "bash c", "cp a b/a", "cat c/*", "source b",
            "./a/b"]
OPS = fs_ops.ops(("mkdir", "file", "script", "link-abs", "link-rel", "remove"), depth=2)


@given(st.lists(OPS, min_size=1, max_size=6))
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_remembered_analyses_follow_every_change(tmp_path: Path, ops: list[tuple[str, list[str], str]]) -> None:
    root = Path(tempfile.mkdtemp(dir=tmp_path))
    m = memo.enable()
    assert m is not None
    try:
        for op, where, other in ops:
            for command in COMMANDS:
                assert analyze(command, str(root)) == run(command, str(root)), (command, op, where)
            fs_ops.apply(root, op, where, other)
        for _ in range(2):  # nothing changes now: what can be remembered is
            for command in COMMANDS:
                assert analyze(command, str(root)) == run(command, str(root))
        assert m.hits > 0
    finally:
        memo.disable()
    assert os.stat is memo._originals["stat"]


def test_not_enabled_when_os_path_bypasses_the_recorded_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    """A Python whose os.path.isdir answers without os.stat: nothing could be checked, so no memo."""
    memo.disable()
    monkeypatch.setattr(os.path, "isdir", lambda p: True)
    assert memo.enable() is None
    assert memo.active() is None and os.stat is memo._originals["stat"]
    monkeypatch.undo()
    assert memo.enable() is not None
    memo.disable()
