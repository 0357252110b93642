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
