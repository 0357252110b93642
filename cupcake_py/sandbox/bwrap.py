"""The profile applied with bubblewrap: where bwrap is, whether it runs here, its arguments, and the
command a harness runs instead of the agent's.

In: a profile (sandbox/profile.py), the agent's shell command, the directory for cupcake's
sandbox files (`sandbox_dir()`: `$XDG_STATE_HOME/cupcake-py/sandbox`, a state path: read-only
inside every sandbox, protected by the guardrails for every tool).
Out:
- `locate(configured)`: the bwrap executable (the rulebook's `sandbox.bwrap`, else the first of
  `BWRAP_PATHS`; never looked up on PATH, which the agent's environment controls), or None.
- `probe(bwrap)`: (ok, reason): a sandbox with the floor's options really started (cached in
  `probe.json` per bwrap file, user and boot; a failure is probed again next time).
- `arguments(profile, empty)`: the bubblewrap options: `--ro-bind / /`, a fresh `/dev` and `/proc`,
  writable binds (and the `pinned` directories bound onto themselves: a mount point cannot be
  renamed or removed), read-only binds over the protected paths inside them and empty read-only
  files over hidden files (deeper paths mounted later; not over a file the user, not root,
  neither owns nor may read: `hidden_by_permissions`, its mode hides it already, and a bind
  costs bubblewrap a mount table scan), then an empty tmpfs with mode 0555 over
  each hidden directory (nothing is mounted below a hidden path; a tmpfs is a mount without the
  mount table scan bubblewrap does for every bind, and whatever a command writes there after a
  chmod is its own and gone when it ends), `--cap-drop ALL` (root inside cannot unmount or
  remount), `--new-session` (no TIOCSTI into the agent's terminal), `--die-with-parent`,
  `--unshare-pid`/`--unshare-ipc` unless processes are shared, and `--unshare-net` when the
  network is off, `--unsetenv` for each `unset_env` name. bubblewrap always sets no_new_privs.
- `wrap(command, profile, bwrap)`: writes the arguments NUL-separated to
  `<BLAKE2b-160 of them>.args` (content-addressed: an existing file is reused only when its bytes
  are the same) and returns the command line the harness runs (sandbox/launcher.py: bubblewrap
  reading that file as fd 3, the command unchanged inside, the removal of absent agent
  configuration after it, the command's exit status), and the file's path.
Fails closed: `SandboxError` when the files cannot be written (the caller then does not claim a
sandbox).
"""

from __future__ import annotations

import os

from cupcake_py.core.errors import CupcakeError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

BWRAP_PATHS = ("/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap")
EMPTY = "empty"  # an empty read-only file in sandbox_dir(): mounted over hidden files
PROBE = "probe.json"
FLOOR_OPTIONS = ("--cap-drop", "ALL", "--new-session", "--die-with-parent")


class SandboxError(CupcakeError):
    pass


def sandbox_dir() -> str:
    from cupcake_py.core.userdirs import user_state_dir

    return os.path.join(user_state_dir(), "sandbox")


def locate(configured: str | None = None) -> str | None:
    for p in (configured,) if configured else BWRAP_PATHS:
        if p and os.path.isabs(p) and os.access(p, os.X_OK) and os.path.isfile(p):
            return p
    return None


def _boot_id() -> str:
    try:
        with open("/proc/sys/kernel/random/boot_id", "rb") as f:  # bytes: no codec module to import
            return f.read().strip().decode("ascii", "replace")
    except OSError:
        return ""


def probe(bwrap: str) -> tuple[bool, str | None]:
    """Whether bubblewrap starts a sandbox with the floor's options here (cached while the bwrap
    file, the user and the boot are the same and it worked)."""
    from cupcake_py.core import jsonio

    try:
        st = os.stat(bwrap)
    except OSError as e:
        return False, f"{bwrap}: {e.strerror}"
    ident = {"bwrap": bwrap, "mtime_ns": st.st_mtime_ns, "size": st.st_size, "uid": os.getuid(), "boot": _boot_id()}
    cache = os.path.join(sandbox_dir(), PROBE)
    try:
        with open(cache, "rb") as f:
            known = jsonio.loads(f.read())
        if isinstance(known, dict) and known.get("ident") == ident and known.get("ok") is True:
            return True, None
    except (OSError, jsonio.JSONError):
        pass
    import subprocess

    argv = [bwrap, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--unshare-pid",
            "--unshare-ipc", *FLOOR_OPTIONS, "--", "/bin/sh", "-c", "exit 0"]
    try:
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired) as e:
        return False, f"bubblewrap did not start: {e}"
    if r.returncode != 0:
        err = r.stderr.decode("utf-8", "replace").strip().splitlines()
        return False, f"bubblewrap cannot create a sandbox here: {err[-1] if err else 'exit ' + str(r.returncode)}"
    try:
        _private_dir()
        from cupcake_py.core.userdirs import atomic_write

        atomic_write(sandbox_dir(), PROBE, [jsonio.dumps({"ident": ident, "ok": True})], ".json")
    except (OSError, SandboxError):
        pass  # probed again next time
    return True, None


def _private_dir() -> str:
    from cupcake_py.core.userdirs import private_dir

    d = sandbox_dir()
    if not private_dir(d, "the sandbox profile dir"):
        raise SandboxError(f"the sandbox profile dir {d} cannot be created or is not private to this user")
    return d


def _empty_file(d: str) -> str:
    """An empty regular file owned by this user (mounted read-only over hidden files)."""
    import stat

    path = os.path.join(d, EMPTY)
    try:
        st = os.lstat(path)
        if stat.S_ISREG(st.st_mode) and st.st_size == 0 and st.st_uid == os.getuid():
            return path
        os.unlink(path)
    except FileNotFoundError:
        pass
    except OSError as e:
        raise SandboxError(f"{path}: {e.strerror}") from None
    from cupcake_py.core.userdirs import atomic_write

    try:
        atomic_write(d, EMPTY, [], "")
        os.chmod(path, 0o444)
    except OSError as e:
        raise SandboxError(f"{path}: {e.strerror}") from None
    return path


def _depth(p: str) -> int:
    return 0 if p == "/" else p.rstrip("/").count("/")


def hidden_by_permissions(path: str) -> bool:
    """A regular file this user (not root) neither owns nor may read: inside the sandbox, where
    every capability is dropped and no set-id program gains any (no_new_privs), its mode already
    hides it, and only its owner or root could change that mode. Anything else (root, the owner,
    a readable file, an ACL or group that grants reading, a path that cannot be examined) is False:
    mounted over as before."""
    import stat

    uid, euid = os.getuid(), os.geteuid()
    if uid == 0 or euid == 0:
        return False  # root owns /etc/shadow and the like: the mode does not stop it
    try:
        st = os.stat(path)
    except OSError:
        return False
    if not stat.S_ISREG(st.st_mode) or st.st_uid in (uid, euid):
        return False
    return not os.access(path, os.R_OK) and not os.access(path, os.R_OK, effective_ids=True)


def arguments(profile: dict[str, Any], empty: str) -> list[str]:
    args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", *FLOOR_OPTIONS]
    if not profile.get("share_processes"):
        args += ["--unshare-pid", "--unshare-ipc"]
    if not profile.get("network", True):
        args += ["--unshare-net"]
    mounts: list[tuple[int, int, str, list[str]]] = []
    for p in profile["writable"] + profile.get("pinned", []):  # pinned: a mount point cannot be moved away
        mounts.append((_depth(p), 0, p, ["--bind", p, p]))
    for p in profile["read_only"]:
        mounts.append((_depth(p), 1, p, ["--ro-bind", p, p]))
    hidden_dirs: list[str] = []
    for p in profile["hidden"]:
        if os.path.isdir(p):
            hidden_dirs.append(p)
        elif not hidden_by_permissions(p):
            mounts.append((_depth(p), 2, p, ["--ro-bind", empty, p]))
    for _, _, _, how in sorted(mounts):
        args += how
    for p in sorted(hidden_dirs):  # last: nothing is mounted below a hidden path
        args += ["--perms", "0555", "--tmpfs", p]
    for name in profile.get("unset_env", []):
        args += ["--unsetenv", name]
    return args


def wrap(command: str, profile: dict[str, Any], bwrap: str) -> tuple[str, str]:
    """(the command the harness runs, the arguments file)."""
    from cupcake_py.core.userdirs import atomic_write

    d = _private_dir()
    args = arguments(profile, _empty_file(d))
    data = b"\0".join(a.encode("utf-8", "surrogateescape") for a in args) + b"\0"
    try:  # the module behind hashlib.blake2b: importing hashlib loads OpenSSL (~10 ms of start-up)
        from _blake2 import blake2b
    except ImportError:  # pragma: no cover - CPython always has it
        from hashlib import blake2b

    name = blake2b(data, digest_size=20).hexdigest() + ".args"
    path = os.path.join(d, name)
    try:
        with open(path, "rb") as f:
            same = f.read(len(data) + 1) == data
    except OSError:
        same = False
    if not same:
        try:
            atomic_write(d, name, [data], ".args")
        except OSError as e:
            raise SandboxError(f"cannot write the sandbox profile {path}: {e.strerror}") from None
    from cupcake_py.sandbox.launcher import command_line

    links = [(e["path"], e["text"], e["target"]) for e in profile.get("links", [])]
    return command_line(command, bwrap, path, [e["path"] for e in profile.get("absent", [])], links,
                        profile["writable"] + profile.get("pinned", [])), path
