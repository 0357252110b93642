"""The file system answers a profile computation records (cupcake_py/sandbox/lookups.py): the
same answers as os.path on any tree of directories, files and links (loops, dangling links,
`..`), and `unchanged` says False after any change to what was asked."""

from __future__ import annotations

import os
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cupcake_py.sandbox import lookups
from cupcake_py.sandbox.lookups import Lookups, unchanged

NAMES = ("a", "b", "c", ".claude", "x.json")
# a path below the tree's root: 1-4 components, `..` among them
PARTS = st.lists(st.sampled_from([*NAMES, "..", "."]), min_size=1, max_size=4)
# (kind, path parts, link target): a directory, a file, or a link (relative, absolute, up, to itself)
NODE = st.tuples(st.sampled_from(["dir", "file", "link", "abslink"]), st.lists(st.sampled_from(NAMES), min_size=1,
                                                                                max_size=3), PARTS)


def _build(root: Path, nodes: list[tuple[str, list[str], list[str]]]) -> None:
    for kind, parts, target in nodes:
        p = root.joinpath(*parts)
        try:
            p.parent.mkdir(parents=True, exist_ok=True)
            if kind == "dir":
                p.mkdir(exist_ok=True)
            elif kind == "file":
                p.write_text("x")
            elif kind == "link":
                os.symlink("/".join(target), p)
            else:
                os.symlink(str(root.joinpath(*target)), p)
        except OSError:
            pass  # a name already taken, a parent that is a file or a link: a tree like any other


@contextmanager
def _tree(nodes: list[tuple[str, list[str], list[str]]]) -> Iterator[Path]:
    with tempfile.TemporaryDirectory() as base:
        root = Path(os.path.realpath(base)) / "t"
        root.mkdir()
        _build(root, nodes)
        yield root


def _candidates(root: Path) -> list[str]:
    out = [str(root)]
    for a in [*NAMES, ".."]:
        out.append(os.path.join(str(root), a))
        for b in [*NAMES, "..", "."]:
            out.append(os.path.join(str(root), a, b))
            for c in NAMES[:3]:
                out.append(os.path.join(str(root), a, b, c))
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(NODE, max_size=10))
def test_the_answers_are_those_of_os_path(nodes: list[tuple[str, list[str], list[str]]]) -> None:
    with _tree(nodes) as root:
        fs = Lookups()
        for p in _candidates(root):
            assert fs.real(p) == os.path.realpath(p), p
            assert fs.lexists(p) == os.path.lexists(p), p
            assert fs.exists(p) == os.path.exists(p), p
            assert fs.isdir(p) == os.path.isdir(p), p
            assert fs.isfile(p) == os.path.isfile(p), p
            assert fs.islink(p) == os.path.islink(p), p
        assert unchanged(fs.entries())


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(NODE, max_size=8), st.lists(NODE, min_size=1, max_size=3), st.booleans(), st.booleans())
def test_after_a_change_an_answer_that_differs_is_seen(before: list[tuple[str, list[str], list[str]]],
                                                       change: list[tuple[str, list[str], list[str]]],
                                                       remove: bool, old: bool) -> None:
    """Ask everything, change the tree (add entries, or remove one), ask again: `unchanged` is False
    exactly when some answer differs (`old`: the directories' timestamps vouch for their names)."""
    clock = lookups.clock
    if old:
        lookups.clock = lambda: time.time_ns() + 3600 * 10**9
    try:
        _changed(before, change, remove)
    finally:
        lookups.clock = clock


def _changed(before: list[tuple[str, list[str], list[str]]], change: list[tuple[str, list[str], list[str]]],
             remove: bool) -> None:
    with _tree(before) as root:
        fs = Lookups()
        for p in _candidates(root):
            fs.real(p), fs.lexists(p), fs.isdir(p)
        entries = fs.entries()
        time.sleep(0.02)  # a tick of the file systems' timestamps after the lookups
        if remove:
            victim = root.joinpath(*change[0][1])
            if victim.is_symlink() or victim.is_file():
                victim.unlink()
            elif victim.is_dir():
                import shutil

                shutil.rmtree(victim)
        else:
            _build(root, change)
        again = Lookups()
        for p in _candidates(root):
            again.real(p), again.lexists(p), again.isdir(p)
        differs = any(again.kinds.get(os.path.join(d, name)) != kind
                      for d, (_, names) in entries["dirs"].items() for name, kind in names.items())
        assert unchanged(entries) == (not differs)


def test_bytes_listings_access_and_owners_are_compared(tmp_path: Path) -> None:
    conf = tmp_path / "config"
    conf.write_text("[core]\n")
    tool = tmp_path / "tool"
    tool.write_text("#!/bin/sh\n")
    fs = Lookups()
    assert fs.read(str(conf), 1 << 20) == b"[core]\n"
    assert fs.listdir(str(tmp_path)) == ["config", "tool"]
    assert fs.access(str(tool), os.X_OK) is False
    assert fs.owner(str(conf)) == os.getuid()
    entries = fs.entries()
    assert unchanged(entries)
    conf.write_text("[core]\n\thooksPath = h\n")  # same name, other bytes
    assert not unchanged(entries)
    conf.write_text("[core]\n")
    assert unchanged(entries)
    (tmp_path / "new").mkdir()  # another name in a listed directory
    assert not unchanged(entries)
    (tmp_path / "new").rmdir()
    tool.chmod(0o755)  # an executable bit
    assert not unchanged(entries)
    tool.chmod(0o644)
    assert unchanged(entries)
    assert not unchanged({"dirs": {}})  # malformed: not an answer
    assert not unchanged(None)


def test_a_file_replaced_by_a_link_is_seen(tmp_path: Path) -> None:
    (tmp_path / "real").mkdir()
    (tmp_path / ".claude").mkdir()
    fs = Lookups()
    assert fs.real(str(tmp_path / ".claude" / "settings.json")) == str(tmp_path / ".claude" / "settings.json")
    entries = fs.entries()
    (tmp_path / ".claude").rmdir()
    (tmp_path / ".claude").symlink_to(tmp_path / "real")
    assert not unchanged(entries)


def test_a_file_read_again_further_is_compared_as_far_as_it_was_read(tmp_path: Path) -> None:
    """The same file read twice with different limits (a worktree's `commondir` read as the
    repository's pointer, then again as a config file an `include.path` names): the bytes compared
    later are all those the computation used, not only the first read's."""
    f = tmp_path / "commondir"
    f.write_text("../..\n" + "#" * 5000 + "\n[core]\n\thooksPath = /h\n")
    fs = Lookups()
    fs.read(str(f), 4096)
    fs.read(str(f), 1 << 20)
    fs.read(str(f), 16)
    entries = fs.entries()
    assert unchanged(entries)
    f.write_text("../..\n" + "#" * 5000 + "\n[core]\n\thooksPath = /elsewhere\n")  # past the first 4096 bytes
    assert not unchanged(entries)


def test_a_relative_path_is_asked_again_where_it_was_asked(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A relative path (a socket an environment variable names as `unix:path=relative`) is looked
    up below the working directory; asked again, it must be the same path, not one below `/`."""
    monkeypatch.chdir(tmp_path)
    fs = Lookups()
    assert not fs.lexists("agent.sock")
    entries = fs.entries()
    assert unchanged(entries)
    (tmp_path / "agent.sock").write_text("")
    assert not unchanged(entries)
