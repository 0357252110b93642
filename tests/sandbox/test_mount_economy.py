"""Mounts the profile leaves out because something else already holds (docs/sandbox.md, "What
costs time"), each executed in a real bubblewrap sandbox: the guarantee is the one the mount gave.

| left out | why it holds | proof here |
| --- | --- | --- |
| the empty file over a hidden file that the user (not root) neither owns nor may read (`/etc/shadow` for an ordinary user) | its mode, which only its owner or root can change; every capability dropped, no_new_privs | as nobody: its bytes are never printed (cat, a hard link, chmod, a nested user namespace, a set-uid root reader), while a file nobody owns, or may read, is still shown empty |
| a read-only path inside another read-only path (a venv's site-packages inside the venv) | the outer read-only bind (no writable root lies between them) | writes below the inner path fail and its bytes stay |
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from cupcake_py.sandbox.bwrap import arguments, hidden_by_permissions
from cupcake_py.sandbox.profile import compute
from cupcake_py.sandbox.sources import Sources
from tests.sandbox.floor import require_bwrap

SETPRIV = shutil.which("setpriv")
NOBODY = 65534
SECRET = "ROOT-ONLY-SECRET-3b9e"
OWN_SECRET = "NOBODY-OWNS-THIS-51aa"
READABLE = "READABLE-SECRET-c04d"
GROUP_SECRET = "GROUP-READABLE-SECRET-77f1"
REPO = Path(__file__).resolve().parents[2]


def _profile(writable: str, hidden: list[str], read_only: tuple[str, ...] = ()) -> dict[str, object]:
    return {"version": 1, "writable": [writable], "read_only": list(read_only), "hidden": sorted(hidden),
            "absent": [], "network": True, "share_processes": False}


@pytest.fixture
def base() -> Iterator[Path]:
    """A directory nobody can reach (pytest's own temp dir is private to root)."""
    d = Path(tempfile.mkdtemp(prefix="cupcake-economy-"))
    os.chmod(d, 0o755)
    try:
        yield d
    finally:
        shutil.rmtree(d, ignore_errors=True)


@pytest.mark.skipif(os.geteuid() != 0, reason="root's half: runs as root")
def test_root_keeps_every_hidden_file_mounted(base: Path) -> None:
    """Root owns /etc/shadow (the mode does not stop the owner) and may change any mode outside:
    as root every hidden file keeps its mount, whoever owns it."""
    secret = base / "secret"
    secret.write_text(SECRET)
    os.chmod(secret, 0o600)
    other = base / "other"
    other.write_text(SECRET)
    os.chown(other, NOBODY, NOBODY)
    os.chmod(other, 0o600)
    assert not hidden_by_permissions(str(secret)) and not hidden_by_permissions(str(other))
    args = arguments(_profile(str(base), [str(secret), str(other)]), "/empty")
    assert args.count("/empty") == 2
    for shadow in ("/etc/shadow", "/etc/gshadow"):
        if os.path.exists(shadow):
            assert not hidden_by_permissions(shadow)


NOBODY_RUN = r"""
import json, subprocess, sys
from cupcake_py.sandbox.bwrap import arguments
profile, empty, bwrap, script = json.loads(sys.argv[1])
args = arguments(profile, empty)
done = subprocess.run([bwrap, *args, "--", "/bin/sh", "-c", script], capture_output=True, text=True, timeout=60)
print(json.dumps({"args": args, "rc": done.returncode, "out": done.stdout, "err": done.stderr}))
"""


def _as_nobody(base: Path, profile: dict[str, object], empty: str, script: str) -> dict[str, object]:
    """`arguments` computed by nobody and the sandbox run as nobody: the profile's user is the agent's."""
    env = {"PATH": "/usr/bin:/bin", "HOME": str(base), "LANG": "C.UTF-8", "PYTHONPATH": str(REPO),
           "PYTHONDONTWRITEBYTECODE": "1"}
    cmd = [str(SETPRIV), f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups", sys.executable, "-c", NOBODY_RUN,
           json.dumps([profile, empty, require_bwrap(), script])]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env, cwd=base)
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


@pytest.mark.skipif(SETPRIV is None or os.geteuid() != 0, reason="needs root and setpriv to become nobody")
def test_a_file_nobody_may_neither_read_nor_chmod_needs_no_mount(base: Path) -> None:
    """As nobody: root's 0600 file is not mounted over, and no way tried inside prints its bytes;
    nobody's own file (mode 000: it may chmod it), a world-readable file and a group-readable one
    are still mounted over (shown empty)."""
    scratch = base / "scratch"
    scratch.mkdir()
    os.chown(scratch, NOBODY, NOBODY)
    secret, own, readable, group = base / "shadow", base / "own", base / "readable", base / "group"
    for path, text, owner, group_id, mode in ((secret, SECRET, 0, 0, 0o600), (own, OWN_SECRET, NOBODY, NOBODY, 0o000),
                                               (readable, READABLE, 0, 0, 0o644), (group, GROUP_SECRET, 0, NOBODY, 0o640)):
        path.write_text(text)
        os.chown(path, owner, group_id)
        os.chmod(path, mode)
    empty = base / "empty"
    empty.write_text("")
    os.chmod(empty, 0o444)
    link = scratch / "link"
    suid_cat = base / "suid-cat"  # a set-uid root reader, as a careless host might have one
    shutil.copy("/bin/cat", suid_cat)
    os.chmod(suid_cat, 0o4755)
    script = "; ".join([
        f"cat {secret}", f"cat {own}", f"cat {readable}", f"cat {group}",
        f"chmod 644 {secret}", f"cat {secret}",
        f"chmod 644 {own}", f"cat {own}",
        f"ln {secret} {link}", f"cat {link}",
        f"cp {secret} {scratch}/copy", f"cat {scratch}/copy",
        f"unshare -r cat {secret}",
        f"unshare -r sh -c 'chmod 644 {secret}; cat {secret}'",
        f"dd if={secret} bs=1", f"head -c 100 {secret}", f"{suid_cat} {secret}",
        "id -u",
    ])
    before = {p: (p.read_bytes(), os.stat(p).st_mode) for p in (secret, own, readable, group)}
    got = _as_nobody(base, _profile(str(scratch), [str(secret), str(own), str(readable), str(group)]), str(empty),
                     script)
    args, out, err = got["args"], str(got["out"]), str(got["err"])
    assert isinstance(args, list)
    assert str(secret) not in args, "root's unreadable file should need no mount"
    for p in (own, readable, group):
        i = args.index(str(p))
        assert args[i - 2:i] == ["--ro-bind", str(empty)], p
    assert out.strip().endswith(str(NOBODY)), out + err
    for text in (SECRET, OWN_SECRET, READABLE, GROUP_SECRET):
        assert text not in out and text not in err, (text, out, err)
    assert f"{secret}: Permission denied" in err, err
    assert {p: (p.read_bytes(), os.stat(p).st_mode) for p in before} == before
    # without the sandbox nobody reads the readable ones (the mounts are what hides them there), and
    # the set-uid reader reads root's file: inside, nosuid mounts and no_new_privs stop it
    as_nobody = [str(SETPRIV), f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    plain = subprocess.run([*as_nobody, "cat", str(readable)], capture_output=True, text=True, timeout=30)
    assert plain.stdout == READABLE
    plain = subprocess.run([*as_nobody, str(suid_cat), str(secret)], capture_output=True, text=True, timeout=30)
    assert plain.stdout == SECRET


def test_a_read_only_path_inside_another_is_one_mount(tmp_path: Path) -> None:
    """A venv inside the project: the venv is one read-only bind, its site-packages and
    pyvenv.cfg are not bound again, and writes below them still fail inside (executed)."""
    home, proj = tmp_path / "home", tmp_path / "proj"
    site = proj / ".venv" / "lib" / "python3" / "site-packages"
    site.mkdir(parents=True)
    (home / ".cache").mkdir(parents=True)
    cfg = proj / ".venv" / "pyvenv.cfg"
    cfg.write_text("home = /usr/bin\n")
    (site / "dep.py").write_text("X = 1\n")
    src = Sources([], [], str(proj), str(proj),
                  {"writable": [str(home / ".cache")], "read_only": [str(proj / ".venv"), str(site), str(cfg)]},
                  home=str(home))
    profile = compute(src)
    assert str(proj / ".venv") in profile["read_only"]
    assert str(site) not in profile["read_only"] and str(cfg) not in profile["read_only"]
    bwrap = require_bwrap()
    empty = tmp_path / "empty"
    empty.write_text("")
    args = arguments(profile, str(empty))
    script = (f"echo pwned > {site}/sitecustomize.py; echo pwned >> {site}/dep.py; echo pwned > {cfg}; "
              f"rm -f {site}/dep.py; echo ok > {proj}/built.txt")
    done = subprocess.run([bwrap, *args, "--", "/bin/sh", "-c", script], capture_output=True, text=True, timeout=60)
    assert done.stderr.count("Read-only file system") >= 3, done.stderr
    assert (site / "dep.py").read_text() == "X = 1\n" and cfg.read_text() == "home = /usr/bin\n"
    assert not (site / "sitecustomize.py").exists()
    assert (proj / "built.txt").read_text() == "ok\n"  # the project around it stays writable
