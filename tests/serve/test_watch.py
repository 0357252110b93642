"""engine/watch.py: a tree watch stays quiet until anything happens below its roots (in any
subdirectory, also one made after the watch: its creation is an event), and is never quiet when
it cannot watch (a symlink in the tree, a missing root)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from cupcake_py.engine.watch import TreeWatch

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="inotify is Linux-only")


def tree(tmp_path: Path) -> Path:
    (tmp_path / "a/b").mkdir(parents=True)
    (tmp_path / "a/b/p.rego").write_text("x")
    (tmp_path / "rulebook.yml").write_text("{}")
    return tmp_path


@pytest.mark.parametrize("change", [
    lambda t: (t / "a/b/p.rego").write_text("y"),
    lambda t: (t / "rulebook.yml").write_text("builtins: {}"),
    lambda t: (t / "a/b/new.rego").write_text("n"),
    lambda t: (t / "a/b/p.rego").unlink(),
    lambda t: (t / "a/b/p.rego").rename(t / "a/b/q.rego"),
    lambda t: os.utime(t / "a/b/p.rego", ns=(1, 1)),
    lambda t: (t / "a/c").mkdir(),
    lambda t: os.rename(t / "a/b", t / "a/moved"),
])
def test_any_change_ends_quiet(tmp_path: Path, change) -> None:  # type: ignore[no-untyped-def]
    t = tree(tmp_path)
    w = TreeWatch([str(t)])
    assert w.quiet() and w.quiet()
    change(t)
    assert not w.quiet()
    assert not w.quiet()  # for good


def test_reading_is_not_a_change(tmp_path: Path) -> None:
    t = tree(tmp_path)
    w = TreeWatch([str(t)])
    (t / "a/b/p.rego").read_text()
    list(os.scandir(t / "a"))
    assert w.quiet()
    w.close()
    assert not w.quiet()


def test_symlinks_and_missing_roots_are_never_quiet(tmp_path: Path) -> None:
    t = tree(tmp_path)
    (t / "a/link.rego").symlink_to(t / "a/b/p.rego")
    assert not TreeWatch([str(t)]).quiet()
    assert not TreeWatch([str(tmp_path / "missing")]).quiet()


# -- EntryWatch: the entries of single directories (the state paths' resolver memo) --

from cupcake_py.engine.watch import EntryWatch  # noqa: E402


@pytest.mark.parametrize("change", [
    lambda t: (t / "new").write_text("n"),
    lambda t: (t / "link").symlink_to("/etc"),
    lambda t: (t / "f").unlink(),
    lambda t: (t / "f").rename(t / "g"),
    lambda t: (t / "d").rename(t / "e"),
    lambda t: os.chmod(t / "d", 0o700),
    lambda t: (t / "d/f2").rename(t / "moved-in"),  # moved into a watched directory
    lambda t: os.rename(t, t.parent / (t.name + "-moved")),  # the watched directory itself
    lambda t: (t / "d/f2").unlink() or (t / "d").rmdir(),
])
def test_entry_watch_ends_quiet_on_any_change_of_a_name(tmp_path: Path, change) -> None:  # type: ignore[no-untyped-def]
    t = tmp_path / "w"
    (t / "d").mkdir(parents=True)
    (t / "f").write_text("x")
    (t / "d/f2").write_text("x")
    w = EntryWatch()
    w.add(str(t))
    w.add(str(t / "d"))
    assert w.quiet() and w.quiet()
    change(t)
    assert not w.quiet()
    assert not w.quiet()  # for good


def test_entry_watch_ignores_contents_and_reads(tmp_path: Path) -> None:
    """Benign: writing a file's contents or reading a directory changes no name."""
    (tmp_path / "f").write_text("x")
    w = EntryWatch()
    w.add(str(tmp_path))
    with open(tmp_path / "f", "a") as fh:
        fh.write("more")
    list(os.scandir(tmp_path))
    (tmp_path / "f").read_text()
    assert w.quiet()
    w.close()
    assert not w.quiet()


def test_entry_watch_a_missing_directory_is_covered_by_its_parent(tmp_path: Path) -> None:
    w = EntryWatch()
    w.add(str(tmp_path))
    w.add(str(tmp_path / "missing"))  # not an error: its creation is an event of tmp_path's watch
    assert w.quiet()
    (tmp_path / "missing").mkdir()
    assert not w.quiet()


def test_entry_watch_too_many_directories_is_never_quiet(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from cupcake_py.engine import watch

    monkeypatch.setattr(watch, "MAX_WATCHED_DIRS", 2)
    for n in "abc":
        (tmp_path / n).mkdir()
    w = EntryWatch()
    for n in "abc":
        w.add(str(tmp_path / n))
    assert not w.quiet()


MOUNT_PROBE = """
import os, subprocess, sys
from cupcake_py.engine.watch import EntryWatch
d = sys.argv[1]
w = EntryWatch()
w.add(os.path.dirname(d))
assert w.quiet()
subprocess.run(["mount", "-t", "tmpfs", "none", d], check=True)
print("quiet after mount:", w.quiet())
"""


def test_entry_watch_a_mount_ends_quiet(tmp_path: Path) -> None:
    """A mount swaps what a name means without an inotify event: the mount table is polled.
    Run in a private mount namespace (unshare -m), skipped where that is not allowed."""
    import shutil
    import subprocess

    if shutil.which("unshare") is None or subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode:
        pytest.skip("no private mount namespace here (unshare -m)")
    (tmp_path / "m").mkdir()
    out = subprocess.run(["unshare", "-m", sys.executable, "-c", MOUNT_PROBE, str(tmp_path / "m")],
                         capture_output=True, text=True, timeout=60)
    if "mount:" in out.stderr and out.returncode:
        pytest.skip(f"mount not permitted: {out.stderr.strip()[:200]}")
    assert out.returncode == 0, out.stderr
    assert "quiet after mount: False" in out.stdout
