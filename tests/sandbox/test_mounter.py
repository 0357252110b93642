"""cupcake's mounter (cupcake_py/sandbox/mounter): the profile's mounts made inside bubblewrap's namespaces
with the kernel's mount API, executed for real as root and as an ordinary user (nobody):

- the same mounts as bubblewrap makes them from the same list (`mounts()`): a writable root, a read-only
  path inside it, a hidden file (empty), a hidden directory (an empty tmpfs), everything else read-only;
- no capability left (all five sets read back), no_new_privs, no unmount or read-write remount as root;
- process 1 is the mounter in the same restricted view: bubblewrap's own process 1 would be one in the
  unrestricted view, reachable through /proc/1/root (a write and a read through it are tried);
- the command's stdin, stdout, stderr and exit status (a signal's 128+N), background processes ended;
- any failure to apply the list: status 125, a message, and the command never runs;
- the committed executables rebuild byte for byte from mounter.c with the pinned zig;
- `wrap()` uses it where the probe says it works, and gives bubblewrap the mounts itself where not.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from cupcake_py.sandbox import bwrap as bw
from cupcake_py.sandbox.bwrap import locate_mounter as locate
from tests.sandbox.floor import require_bwrap

SETPRIV = shutil.which("setpriv")


def _kernel() -> tuple[int, int]:
    major, minor = os.uname().release.split(".")[:2]
    return int(major), int("".join(ch for ch in minor if ch.isdigit()) or 0)


# the mount API the mounter uses (open_tree, move_mount: 5.2; mount_setattr: 5.12); on an older kernel
# the probe refuses the mounter and bubblewrap makes the mounts (the other sandbox tests run that way)
pytestmark = pytest.mark.skipif(_kernel() < (5, 12), reason="the mounter needs Linux >= 5.12 (mount_setattr)")
NOBODY = 65534
SECRET = "HIDDEN-SECRET-9d41"
USERS = ["root", "nobody"]


@pytest.fixture
def tree() -> Iterator[Path]:
    """A project (writable) holding a protected dir, a secret file and a secret dir, under a base
    nobody can reach (pytest's own temp dir is private to root); the protected bytes are checked after."""
    base = Path(tempfile.mkdtemp(prefix="cupcake-mounter-"))
    try:
        proj = base / "proj"
        (proj / ".cupcake").mkdir(parents=True)
        (proj / ".cupcake" / "rulebook.yml").write_text("original\n")
        (proj / ".env").write_text(SECRET)
        (proj / "keys").mkdir()
        (proj / "keys" / "id").write_text(SECRET)
        (base / "outside.txt").write_text("outside\n")
        (base / "empty").write_text("")
        for p in [base, *base.rglob("*")]:
            os.chown(p, NOBODY, NOBODY)
        os.chmod(base, 0o755)  # root inside has no CAP_DAC_OVERRIDE either: the project is everyone's
        os.chmod(proj, 0o777)
        os.chmod(base / "empty", 0o444)
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _profile(base: Path) -> dict[str, object]:
    proj = base / "proj"
    return {"writable": [str(proj)], "read_only": [str(proj / ".cupcake")],
            "hidden": [str(proj / ".env"), str(proj / "keys")], "network": True, "share_processes": False}


def _with_list(listing: Path | bytes, argv: list[str]) -> list[str]:
    """`argv` with the mount list on fd 4, opened by a shell outside, as the launcher's shell opens it."""
    if isinstance(listing, bytes):
        path = Path(tempfile.mkdtemp(prefix="cupcake-list-")) / "list.mounts"
        path.write_bytes(listing)
        listing = path
    return ["/bin/sh", "-c", 'exec "$@" 4< "$0"', str(listing), *argv]


def _run(base: Path, user: str, script: str, *, mounter: bool = True, stdin: str = "",
         timeout: float = 60) -> subprocess.CompletedProcess[str]:
    bwrap = require_bwrap()
    profile = _profile(base)
    empty = str(base / "empty")
    become: list[str] = []
    if user == "nobody":
        if os.geteuid() != 0 or SETPRIV is None:
            pytest.fail("the ordinary-user half needs root and setpriv (util-linux) to become nobody")
        become = [SETPRIV, f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    if mounter:
        exe = locate()
        assert exe is not None, "no mounter for this machine"
        listing = b"".join(w.encode() + b"\0" for m in bw.mounts(profile, empty) for w in m)
        argv = _with_list(listing, [*become, bwrap, *bw.mounter_arguments(profile), "--", exe, "4",
                                    "/bin/sh", "-c", script])
    else:
        argv = [*become, bwrap, *bw.arguments(profile, empty), "--", "/bin/sh", "-c", script]
    return subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=timeout, cwd=base / "proj")


PROBES = r"""
p=$PWD
{ echo w > "$p/new.txt"; } 2>/dev/null && echo writable-root
{ echo x > "$p/.cupcake/rulebook.yml"; } 2>/dev/null && echo PROTECTED-WRITTEN
{ echo x > "$p/../outside.txt"; } 2>/dev/null && echo OUTSIDE-WRITTEN
cat "$p/.env" 2>/dev/null; ls -A "$p/keys" 2>/dev/null; cat "$p/keys/id" 2>/dev/null
echo > /dev/null && echo devnull
grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' /proc/self/status | tr -s '\t' ' '
umount "$p/.cupcake" 2>/dev/null && echo UNMOUNTED
mount -o remount,rw,bind "$p/.cupcake" 2>/dev/null && echo REMOUNTED
{ echo x > /proc/1/root"$p/.cupcake/rulebook.yml"; } 2>/dev/null && echo ESCAPED-THROUGH-PID1
cat /proc/1/root"$p/.env" /proc/1/root"$p/keys/id" 2>/dev/null
exit 0
"""


@pytest.mark.parametrize("user", USERS)
def test_the_mounter_makes_the_profiles_mounts_and_leaves_no_capability(tree: Path, user: str) -> None:
    done = _run(tree, user, PROBES)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "writable-root" in out and "devnull" in out, out
    for harm in ("PROTECTED-WRITTEN", "OUTSIDE-WRITTEN", SECRET, "UNMOUNTED", "REMOUNTED", "ESCAPED-THROUGH-PID1"):
        assert harm not in out, out
    for cap in ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"):
        assert f"{cap}: 0000000000000000" in out, out
    assert "NoNewPrivs: 1" in out, out
    assert (tree / "proj" / ".cupcake" / "rulebook.yml").read_text() == "original\n"
    assert (tree / "outside.txt").read_text() == "outside\n"


@pytest.mark.parametrize("user", USERS)
def test_the_same_answers_as_bubblewrap_making_the_mounts_itself(tree: Path, user: str) -> None:
    """Same list, both appliers: the same view (every probe's answer); the one difference is the
    bounding set, which the mounter empties and bubblewrap, run by root, leaves full (its `--cap-drop
    ALL` empties the other sets; no_new_privs keeps an exec from gaining any of it either way)."""
    boxed = _run(tree, user, PROBES)
    (tree / "proj" / "new.txt").unlink()
    plain = _run(tree, user, PROBES, mounter=False)
    assert boxed.returncode == plain.returncode == 0, (boxed.stderr, plain.stderr)
    assert "CapBnd: 0000000000000000" in boxed.stdout

    def view(out: str) -> list[str]:
        return [line for line in out.splitlines() if not line.startswith("CapBnd:")]

    assert view(boxed.stdout) == view(plain.stdout)


@pytest.mark.parametrize("user", USERS)
def test_stdio_exit_status_and_background_processes(tree: Path, user: str) -> None:
    done = _run(tree, user, "read line; echo \"got $line\"; echo err >&2; exit 7", stdin="hello\n")
    assert (done.returncode, done.stdout, done.stderr) == (7, "got hello\n", "err\n")
    assert _run(tree, user, "kill -TERM $$").returncode == 128 + 15
    # a background writer outliving the command is ended with the sandbox (process 1 exits)
    marker = tree / "proj" / "late.txt"
    done = _run(tree, user, f"(sleep 1; echo late > {marker}) & exit 0")
    assert done.returncode == 0
    subprocess.run(["sleep", "1.5"], check=True)
    assert not marker.exists()


@pytest.mark.parametrize("listing, why", [
    (b"bind\0/nonexistent-src\0/tmp\0", "cannot bind /nonexistent-src"),
    (b"chmod\0/a\0/b\0", "unknown mount kind chmod"),
    (b"ro-bind\0/a\0", "ends inside an entry"),
    (b"ro-bind\0/tmp\0/tmp", "does not end with a NUL"),
    (b"tmpfs\0rwx\0/tmp\0", "bad tmpfs mode rwx"),
])
def test_a_list_that_cannot_be_applied_runs_nothing(tree: Path, listing: bytes, why: str) -> None:
    bwrap, exe = require_bwrap(), locate()
    assert exe is not None
    marker = tree / "proj" / "ran.txt"
    done = subprocess.run(_with_list(listing, [bwrap, *bw.mounter_arguments({}), "--", exe, "4", "/bin/sh", "-c",
                                               f": > {marker}"]), capture_output=True, text=True, timeout=60)
    assert done.returncode == 125 and why in done.stderr and "the command did not run" in done.stderr, done
    assert not marker.exists()


def test_a_missing_program_is_127_as_in_a_shell(tree: Path) -> None:
    bwrap, exe = require_bwrap(), locate()
    assert exe is not None
    done = subprocess.run(_with_list(b"", [bwrap, *bw.mounter_arguments({}), "--", exe, "4", "no-such-program-x"]),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 127 and "no-such-program-x" in done.stderr


@pytest.mark.parametrize("fd", ["", "x", "2", "99999"])
def test_a_bad_descriptor_runs_nothing(tree: Path, fd: str) -> None:
    bwrap, exe = require_bwrap(), locate()
    assert exe is not None
    marker = tree / "proj" / "ran.txt"
    done = subprocess.run([bwrap, *bw.mounter_arguments({}), "--", exe, fd, "/bin/sh", "-c", f": > {marker}"],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 125 and "the command did not run" in done.stderr and not marker.exists(), done


def test_the_command_does_not_inherit_the_list(tree: Path) -> None:
    bwrap, exe = require_bwrap(), locate()
    assert exe is not None
    done = subprocess.run(_with_list(b"", [bwrap, *bw.mounter_arguments({}), "--", exe, "4", "/bin/sh", "-c",
                                           "ls /proc/self/fd"]), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and "4" not in done.stdout.split(), done


def test_the_committed_executables_rebuild_byte_for_byte() -> None:
    from cupcake_py.sandbox.mounter.build import check

    check()


def test_wrap_uses_the_mounter_where_it_works_and_bubblewrap_alone_where_not(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    bwrap = require_bwrap()
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    proj = tmp_path / "proj"
    proj.mkdir()
    profile = {"writable": [str(proj)], "read_only": [], "hidden": [], "network": True, "share_processes": False}
    line, args_file = bw.wrap("true", profile, bwrap)
    exe = locate()
    assert exe is not None and f"--args 3 -- {exe} 4 /bin/bash -c true 3< " in line and ".mounts" in line, line
    assert b"--as-pid-1" in Path(args_file).read_bytes()
    assert subprocess.run(["bash", "-c", line], cwd=proj, timeout=60).returncode == 0
    # shared processes: no pid namespace for a process 1 of its own: bubblewrap makes the mounts
    line, _ = bw.wrap("true", {**profile, "share_processes": True}, bwrap)
    assert exe not in line and "--args 3 -- /bin/bash -c true 3<" in line
    # a mounter that does not work here (the probe's answer is kept): bubblewrap makes the mounts
    fake = tmp_path / "mounter-broken"
    fake.write_text("#!/bin/sh\nexit 1\n")
    fake.chmod(0o755)
    monkeypatch.setattr("cupcake_py.sandbox.bwrap.locate_mounter", lambda: str(fake))
    line, _ = bw.wrap("true", profile, bwrap)
    assert str(fake) not in line and "--args 3 -- /bin/bash -c true 3<" in line
    assert subprocess.run(["bash", "-c", line], cwd=proj, timeout=60).returncode == 0
    probe = (tmp_path / "state" / "cupcake-py" / "sandbox" / bw.MOUNTER_PROBE).read_text()
    assert '"ok":false' in probe.replace(" ", "") and str(fake) in probe


DEV_PROBES = r"""
ls -la /dev /dev/pts | sed 's/ [A-Z][a-z][a-z] [ 0-9][0-9] [0-9:]* / /' | tail -n +2
echo x > /dev/null && echo null-ok
head -c 4 /dev/urandom | wc -c; head -c 3 /dev/zero | wc -c
echo shm > /dev/shm/x && cat /dev/shm/x
bash -c 'cat <(echo process-substitution)'
echo stdin-ok | cat /dev/stdin
python3 -c 'import os, pty; m, s = pty.openpty(); print("pty", os.ttyname(s))'
python3 -c 'import multiprocessing; multiprocessing.Lock(); print("semaphore ok")'
ls /dev/vda /dev/sda /dev/mem 2>/dev/null; exit 0
"""


@pytest.mark.parametrize("user", USERS)
def test_dev_is_the_one_bubblewraps_dev_gives(tree: Path, user: str) -> None:
    """The mounter builds /dev itself (bubblewrap's --dev costs six binds, each a mount table read): the
    same entries, types, modes and owners, and the same behaviour (null, zero, urandom, shm, a new pty,
    process substitution, /dev/stdin), with no raw disk or memory device."""
    boxed = _run(tree, user, DEV_PROBES)
    plain = _run(tree, user, DEV_PROBES, mounter=False)
    assert boxed.returncode == plain.returncode == 0, (boxed.stderr, plain.stderr)
    assert boxed.stdout == plain.stdout
    for seen in ("null-ok", "shm", "process-substitution", "stdin-ok", "pty /dev/pts/0", "semaphore ok"):
        assert seen in boxed.stdout, boxed.stdout
    assert "/dev/vda" not in boxed.stdout and "/dev/sda" not in boxed.stdout and "/dev/mem" not in boxed.stdout


def test_a_probe_that_times_out_is_not_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A probe cut short (a busy machine) falls back for that call only: the next call probes again
    and uses the mounter; the command line does not depend on the load at the first probe."""
    bwrap = require_bwrap()
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    exe = locate()
    assert exe is not None
    slow = tmp_path / "mounter-slow"
    slow.write_text(f"#!/bin/sh\nsleep 5\nexec {exe} \"$@\"\n")
    slow.chmod(0o755)
    monkeypatch.setattr("cupcake_py.sandbox.bwrap.locate_mounter", lambda: str(slow))
    monkeypatch.setattr(bw, "MOUNTER_PROBE_TIMEOUT_S", 0.5)
    assert bw.usable_mounter(bwrap) is None
    assert not (tmp_path / "state" / "cupcake-py" / "sandbox" / bw.MOUNTER_PROBE).exists()
    monkeypatch.setattr(bw, "MOUNTER_PROBE_TIMEOUT_S", 30.0)
    assert bw.usable_mounter(bwrap) == str(slow)
    assert (tmp_path / "state" / "cupcake-py" / "sandbox" / bw.MOUNTER_PROBE).exists()
