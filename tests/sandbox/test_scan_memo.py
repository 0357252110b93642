"""The secrets scan remembered between evaluations (cupcake_py/sandbox/scan_memo.py): after any
change to the tree, a scan through the memo finds exactly what a fresh scan finds; a directory
changed too recently is read again; a small tree or a broken memo changes nothing."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cupcake_py.sandbox import lookups, scan_memo
from cupcake_py.sandbox.secrets import hidden_paths, memo_path, rules_digest

OLD = time.time_ns() - 3600 * 10**9  # an hour ago: well past the racy window
LATER = 3600 * 10**9  # the memo's clock an hour ahead: every directory (ctime too) is old


def _later() -> int:
    return time.time_ns() + LATER


def _tree(root: Path) -> list[Path]:
    dirs = [root]
    for a in range(6):
        for b in range(3):
            d = root / f"pkg{a}" / f"mod{b}"
            d.mkdir(parents=True)
            dirs += [d] if d.parent in dirs else [d.parent, d]
            for f in range(12):
                (d / f"file{f}.py").write_text("")
    (root / "pkg2" / "mod1" / ".env").write_text("S=1")
    for i, d in enumerate(dirs):
        os.utime(d, ns=(OLD + i, OLD + i))
    return dirs


def _scans(root: Path, memo_dir: Path) -> tuple[tuple[list[str], bool], tuple[list[str], bool]]:
    fresh = hidden_paths("/nonexistent-home", [str(root)])
    memo = hidden_paths("/nonexistent-home", [str(root)], memo_dir=str(memo_dir))
    again = hidden_paths("/nonexistent-home", [str(root)], memo_dir=str(memo_dir))  # through what it kept
    assert again == memo
    return fresh, memo


OPS = st.lists(st.tuples(st.sampled_from(["add_secret", "add_plain", "remove", "add_dir", "secret_dir", "link"]),
                         st.integers(0, 30)), min_size=1, max_size=6)


@settings(max_examples=25, deadline=None)
@given(ops=OPS)
def test_after_any_change_the_memo_finds_what_a_fresh_scan_finds(ops: list[tuple[str, int]]) -> None:

    clock = lookups.clock
    lookups.clock = _later
    try:
        _changes(ops)
    finally:
        lookups.clock = clock


def _changes(ops: list[tuple[str, int]]) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as base:
        root, memo_dir = Path(base) / "proj", Path(base) / "memo"
        memo_dir.mkdir()
        dirs = _tree(root)
        fresh, memo = _scans(root, memo_dir)
        assert memo == fresh and any(name.startswith("scan-") for name in os.listdir(memo_dir))
        for step, (op, i) in enumerate(ops):
            time.sleep(0.02)  # past the timestamp granularity of the last scan's stat (a jiffy)
            d = dirs[i % len(dirs)]
            if op == "add_secret":
                (d / f"api_token{step}.txt").write_text("x")
            elif op == "add_plain":
                (d / f"notes{step}.md").write_text("x")
            elif op == "remove":
                victims = [p for p in d.iterdir() if p.is_file()]
                if victims:
                    victims[0].unlink()
            elif op == "add_dir":
                (d / f"sub{step}").mkdir()
                (d / f"sub{step}" / ".env.local").write_text("x")
                dirs.append(d / f"sub{step}")
            elif op == "secret_dir":
                (d / "secrets").mkdir(exist_ok=True)
            else:
                (d / f"id_rsa{step}").symlink_to("/nonexistent-target")
            if step % 2:  # time passes: the changed directory is old again, with its own new mtime
                os.utime(d, ns=(OLD + 10_000 + step, OLD + 10_000 + step))
            fresh, memo = _scans(root, memo_dir)
            assert memo == fresh, (op, d)


def test_a_directory_changed_just_now_is_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "proj"
    dirs = _tree(root)
    hidden_paths("/nonexistent-home", [str(root)], memo_dir=str(tmp_path))
    m = scan_memo.ScanMemo(memo_path(str(tmp_path), str(root)), str(root), rules_digest(), 200)
    assert not m.old  # the tree was made just now (its ctimes are now): nothing is trusted yet
    monkeypatch.setattr(lookups, "clock", _later)
    hidden_paths("/nonexistent-home", [str(root)], memo_dir=str(tmp_path))
    m = scan_memo.ScanMemo(memo_path(str(tmp_path), str(root)), str(root), rules_digest(), 200)
    assert str(root) in m.old and str(dirs[1]) in m.old
    assert m.entries_of(str(dirs[1])) is not None
    os.utime(dirs[1], ns=(OLD, OLD))  # the mtime set back: the ctime still says it changed
    assert m.entries_of(str(dirs[1])) is None


def test_a_small_tree_or_a_broken_memo_changes_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    root = tmp_path / "proj"
    (root / "src").mkdir(parents=True)
    (root / ".env").write_text("x")
    got = hidden_paths("/nonexistent-home", [str(root)], memo_dir=str(tmp_path))
    assert got == hidden_paths("/nonexistent-home", [str(root)]) and str(root / ".env") in got[0]
    assert not [n for n in os.listdir(tmp_path) if n.startswith("scan-")]  # nothing worth remembering
    big = tmp_path / "big"
    _tree(big)
    name = memo_path(str(tmp_path), str(big))
    monkeypatch.setattr(lookups, "clock", _later)
    for junk in (b"not json", b'{"root": "/elsewhere", "dirs": {}}', b'{"root": "' + str(big).encode()
                 + b'", "dirs": {"' + str(big).encode() + b'": [1, 2, 3, 4, "x", [], []]}}'):
        Path(name).write_bytes(junk)
        assert hidden_paths("/nonexistent-home", [str(big)], memo_dir=str(tmp_path)) == \
            hidden_paths("/nonexistent-home", [str(big)])


def test_a_name_that_is_not_utf8_neither_raises_nor_leaves_a_file(tmp_path: Path,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """A big tree with a directory (or a secret) whose name is not UTF-8 (a test fixture, a file
    from another system): the memo cannot be written as JSON. The scan still finds what a fresh
    scan finds, on every call (it raised TypeError from the second call on: every evaluation of the
    project denied with an internal error), and no temporary file is left in the sandbox dir."""
    root = tmp_path / "proj"
    _tree(root)
    odd = os.fsencode(root) + b"/data\xff"
    os.mkdir(odd)
    with open(odd + b"/prod.env", "w") as f:
        f.write("S=1")
    memo_dir = tmp_path / "memo"
    memo_dir.mkdir()
    monkeypatch.setattr(lookups, "clock", _later)
    fresh = hidden_paths("/nonexistent-home", [str(root)])
    assert os.fsdecode(odd + b"/prod.env") in fresh[0]
    for _ in range(3):
        assert hidden_paths("/nonexistent-home", [str(root)], memo_dir=str(memo_dir)) == fresh
    assert not [n for n in os.listdir(memo_dir) if n.endswith(".tmp")]
