"""cupcake_py.core.userdirs: home expansion, cache locations, private directories, atomic writes."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from cupcake_py.core import userdirs


@pytest.mark.parametrize(("raw", "want"), [
    ("~", "/h/me"), ("~/x/y", "/h/me/x/y"), ("$HOME", "/h/me"), ("$HOME/a", "/h/me/a"), ("${HOME}/a", "/h/me/a"),
    ("~other/x", "~other/x"), ("$HOMEX/a", "$HOMEX/a"), ("a/~/b", "a/~/b"), ("/abs", "/abs"),
])
def test_expand_home(raw: str, want: str) -> None:
    assert userdirs.expand_home(raw, "/h/me/") == want


def test_cache_dirs_follow_xdg_then_home(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", "/c")
    assert userdirs.user_cache_dir("modules") == "/c/cupcake-py/modules"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", "/h/me")
    assert userdirs.user_cache_dir("bundles") == "/h/me/.cache/cupcake-py/bundles"


def test_private_dir_is_created_0700_and_shared_dirs_are_refused(tmp_path: Path) -> None:
    mine = tmp_path / "a" / "b"
    assert userdirs.private_dir(str(mine), "test cache")
    assert mine.stat().st_mode & 0o777 == 0o700
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    assert not userdirs.private_dir(str(shared), "test cache")
    blocked = tmp_path / "file"
    blocked.write_text("x")
    assert not userdirs.private_dir(str(blocked / "sub"), "test cache")


def test_atomic_write_replaces_whole_and_cleans_up_on_failure(tmp_path: Path) -> None:
    userdirs.atomic_write(str(tmp_path), "e.bin", (b"ab", b"cd"), ".bin")
    assert (tmp_path / "e.bin").read_bytes() == b"abcd"

    def broken() -> object:
        yield b"partial"
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        userdirs.atomic_write(str(tmp_path), "e.bin", broken(), ".bin")  # type: ignore[arg-type]
    assert (tmp_path / "e.bin").read_bytes() == b"abcd" and sorted(os.listdir(tmp_path)) == ["e.bin"]


def test_atomic_write_temp_files_are_private_exclusive_and_never_followed(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    """The temporary file is made as tempfile.mkstemp makes it (without importing tempfile):
    mode 0600, created exclusively (a name taken, e.g. by a planted symlink, is never opened:
    another name is drawn), closed on exec."""
    victim = tmp_path / "victim"
    victim.write_bytes(b"keep")
    names = iter([b"\x00" * 8, b"\x01" * 8])
    monkeypatch.setattr(userdirs.os, "urandom", lambda n: next(names))
    (tmp_path / f".tmp-{'00' * 8}.bin").symlink_to(victim)  # the first name drawn is taken
    fd, tmp = userdirs._exclusive_temp(str(tmp_path), ".bin")
    try:
        assert tmp == str(tmp_path / f".tmp-{'01' * 8}.bin")
        assert os.stat(tmp).st_mode & 0o777 == 0o600 and not os.get_inheritable(fd)
    finally:
        os.close(fd)
    assert victim.read_bytes() == b"keep"
