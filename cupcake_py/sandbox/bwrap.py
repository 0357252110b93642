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
- `mounts(profile, empty)`: the profile's mounts in order, one list for both appliers: writable
  binds (and the `pinned` directories bound onto themselves: a mount point cannot be renamed or
  removed), read-only binds over the protected paths inside them and empty read-only files over
  hidden files (deeper paths mounted later; not over a file the user, not root, neither owns nor
  may read: `hidden_by_permissions`, its mode hides it already, and a bind costs bubblewrap a
  mount table scan), then an empty tmpfs with mode 0555 over each hidden directory (nothing is
  mounted below a hidden path; whatever a command writes there after a chmod is its own and gone
  when it ends).
- `arguments(profile, empty)`: bubblewrap's options when bubblewrap makes those mounts itself:
  `--ro-bind / /`, a fresh `/dev` and `/proc`, the mounts, `--cap-drop ALL` (root inside cannot
  unmount or remount), `--new-session` (no TIOCSTI into the agent's terminal),
  `--die-with-parent`, `--unshare-pid`/`--unshare-ipc` unless processes are shared, and
  `--unshare-net` when the network is off, `--unsetenv` for each `unset_env` name. bubblewrap
  always sets no_new_privs.
- `mounter_arguments(profile)`: bubblewrap's options when cupcake's mounter makes them
  (sandbox/mounter: the kernel's mount API, no mount table scan per bind): the same options
  without the mounts, `--bind / /` (the mounter makes the tree read-only first), and the mounter
  as pid 1 with CAP_SYS_ADMIN and CAP_SETPCAP, which it drops (and checks) before the command.
- `locate_mounter()`: the mounter's executable for this machine, or None.
- `usable_mounter(bwrap)`: the mounter when a probe says it works here (kept in
  `mounter-probe.json`), else None.
- `prepare(profile, bwrap, mounter, fs)`: writes the arguments (and, with the mounter, the mount
  list) NUL-separated to `<BLAKE2b-160 of them>.args` / `.mounts` (content-addressed: an existing
  file is reused only when its bytes are the same) and returns the parts of the command line:
  those files and the launcher's frame around any command (sandbox/launcher.py `frame`);
  `line(command, parts)`: the command line the harness runs (bubblewrap reading the arguments as
  fd 3 and running the mounter with the list on fd 4, the command unchanged inside, the removal
  of absent agent configuration after it, the command's exit status). `wrap(command, profile,
  bwrap)`: both at once, and the arguments file's path.
Fails closed: `SandboxError` when the files cannot be written (the caller then does not claim a
sandbox).
"""

from __future__ import annotations

import os

from cupcake_py.core.errors import CupcakeError

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cupcake_py.sandbox.lookups import Lookups

BWRAP_PATHS = ("/usr/bin/bwrap", "/bin/bwrap", "/usr/local/bin/bwrap")
EMPTY = "empty"  # an empty read-only file in sandbox_dir(): mounted over hidden files
PROBE = "probe.json"
FLOOR_OPTIONS = ("--cap-drop", "ALL", "--new-session", "--die-with-parent")
# the mounter (sandbox/mounter) as the sandbox's process 1, with what it needs for the mounts
MOUNTER_OPTIONS = ("--as-pid-1", "--cap-add", "CAP_SYS_ADMIN", "--cap-add", "CAP_SETPCAP")
MOUNTER_PROBE = "mounter-probe.json"
MOUNTER_MACHINES = ("x86_64", "aarch64")  # the mounter's prebuilt executables (sandbox/mounter)
MOUNTER_PROBE_TIMEOUT_S = 10.0


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


def locate_mounter() -> str | None:
    """cupcake's mounter for this machine (sandbox/mounter/mounter-<machine>), or None (another
    machine, or a checkout without it): bubblewrap then makes the mounts itself, same profile,
    same guarantees, slower."""
    machine = os.uname().machine
    if machine not in MOUNTER_MACHINES:
        return None
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "mounter", "mounter-" + machine)
    return path if os.path.isfile(path) and os.access(path, os.X_OK) else None


_BOOT: list[str] = []  # this boot's id, once read (both probes' caches name it)


def _boot_id() -> str:
    if not _BOOT:
        try:
            with open("/proc/sys/kernel/random/boot_id", "rb") as f:  # bytes: no codec module to import
                _BOOT.append(f.read().strip().decode("ascii", "replace"))
        except OSError:
            return ""
    return _BOOT[0]


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


def _file_ident(path: str) -> list[object] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return [path, st.st_mtime_ns, st.st_size]


def usable_mounter(bwrap: str) -> str | None:
    """The mounter (sandbox/mounter) when it makes a sandbox's mounts here, else None (bubblewrap then
    makes them). Probed once: bubblewrap with the mounter's options runs it over a read-only bind of
    the sandbox dir, and the command inside must fail to write there; the answer, either way, is
    kept in `mounter-probe.json` while bwrap, the mounter, the user and the boot are the same. A probe
    that timed out or could not start is not kept (a busy machine must not switch the mounter off)."""
    from cupcake_py.core import jsonio

    mounter = locate_mounter()
    if mounter is None:
        return None
    ident = {"bwrap": _file_ident(bwrap), "mounter": _file_ident(mounter), "uid": os.getuid(), "boot": _boot_id()}
    d = _private_dir()
    cache = os.path.join(d, MOUNTER_PROBE)
    try:
        with open(cache, "rb") as f:
            known = jsonio.loads(f.read())
        if isinstance(known, dict) and known.get("ident") == ident and isinstance(known.get("ok"), bool):
            return mounter if known["ok"] else None
    except (OSError, jsonio.JSONError):
        pass
    import subprocess

    canary = os.path.join(d, "mounter-probe.written")
    try:
        listing = _store(d, "mounter-probe.mounts", _nul(["ro-bind", d, d]))
        # the list on fd 4, opened by a shell as the launcher's shell opens it
        argv = ["/bin/sh", "-c", 'exec "$@" 4< "$0"', listing, bwrap, *mounter_arguments({}), "--", mounter, "4",
                "/bin/sh", "-c", 'exec 2>/dev/null; if true > "$1"; then exit 1; fi; exit 0', "sh", canary]
        r = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                           timeout=MOUNTER_PROBE_TIMEOUT_S, check=False)
        ok, definite = r.returncode == 0 and not os.path.lexists(canary), True
    except (OSError, SandboxError, subprocess.TimeoutExpired):
        ok, definite = False, False  # a busy machine or a passing error: not an answer to keep
    try:
        os.unlink(canary)
    except OSError:
        pass
    if not definite:
        return None  # bubblewrap makes the mounts this time; probed again next time
    try:
        from cupcake_py.core.userdirs import atomic_write

        atomic_write(d, MOUNTER_PROBE, [jsonio.dumps({"ident": ident, "ok": ok})], ".json")
    except OSError:
        pass  # probed again next time
    return mounter if ok else None


def _private_dir() -> str:
    from cupcake_py.core.userdirs import private_dir

    d = sandbox_dir()
    if not private_dir(d, "the sandbox profile dir"):
        raise SandboxError(f"the sandbox profile dir {d} cannot be created or is not private to this user")
    return d


def empty_file() -> str:
    """The empty file in the sandbox dir (made again when missing or changed): what a remembered
    mount list names (sandbox/profile_memo.py checks it before every reuse)."""
    return _empty_file(_private_dir())


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


def hidden_by_permissions(path: str, fs: Lookups | None = None) -> bool:
    """A regular file this user (not root) neither owns nor may read: inside the sandbox, where
    every capability is dropped and no set-id program gains any (no_new_privs), its mode already
    hides it, and only its owner or root could change that mode. Anything else (root, the owner,
    a readable file, an ACL or group that grants reading, a path that cannot be examined) is False:
    mounted over as before."""
    uid, euid = os.getuid(), os.geteuid()
    if uid == 0 or euid == 0:
        return False  # root owns /etc/shadow and the like: the mode does not stop it
    fs = fs or _lookups()
    owner = fs.owner(path)
    if owner is None or not fs.isfile(path) or owner in (uid, euid):
        return False
    return not fs.access(path, os.R_OK) and not fs.access(path, os.R_OK, effective_ids=True)


def mounts(profile: dict[str, Any], empty: str, fs: Lookups | None = None) -> list[tuple[str, str, str]]:
    """The profile's mounts in the order they are made: ("bind" | "ro-bind", source, destination) or
    ("tmpfs", octal mode, destination). One list for both appliers: bubblewrap's options
    (`arguments`) and the mounter's mount list (`mounter_arguments`)."""
    fs = fs or _lookups()
    ordered: list[tuple[int, int, str, tuple[str, str, str]]] = []
    for p in profile["writable"] + profile.get("pinned", []):  # pinned: a mount point cannot be moved away
        ordered.append((_depth(p), 0, p, ("bind", p, p)))
    for p in profile["read_only"]:
        ordered.append((_depth(p), 1, p, ("ro-bind", p, p)))
    hidden_dirs: list[str] = []
    for p in profile["hidden"]:
        if fs.isdir(p):
            hidden_dirs.append(p)
        elif not hidden_by_permissions(p, fs):
            ordered.append((_depth(p), 2, p, ("ro-bind", empty, p)))
    out = [m for _, _, _, m in sorted(ordered)]
    return out + [("tmpfs", "0555", p) for p in sorted(hidden_dirs)]  # last: nothing is mounted below a hidden path


def _namespaces(profile: dict[str, Any]) -> list[str]:
    args = [] if profile.get("share_processes") else ["--unshare-pid", "--unshare-ipc"]
    return args + ([] if profile.get("network", True) else ["--unshare-net"])


def _unset(profile: dict[str, Any]) -> list[str]:
    return [a for name in profile.get("unset_env", []) for a in ("--unsetenv", name)]


def arguments(profile: dict[str, Any], empty: str, fs: Lookups | None = None) -> list[str]:
    """bubblewrap's options when bubblewrap makes every mount itself (no mounter here)."""
    args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", *FLOOR_OPTIONS, *_namespaces(profile)]
    for kind, a, b in mounts(profile, empty, fs):
        args += ["--perms", a, "--tmpfs", b] if kind == "tmpfs" else [f"--{kind}", a, b]
    return args + _unset(profile)


def mounter_arguments(profile: dict[str, Any]) -> list[str]:
    """bubblewrap's options when the mounter makes the profile's mounts (sandbox/mounter): the
    namespaces, a fresh /proc and the whole tree with its devices (the mounter takes the six device
    nodes a sandbox's /dev has, then makes the tree read-only, nosuid and nodev before anything else,
    and builds /dev as bubblewrap's --dev does), the mounter as process 1 with the two capabilities
    it needs (it drops them, and checks, before the command runs)."""
    return ["--dev-bind", "/", "/", "--proc", "/proc", *FLOOR_OPTIONS, *MOUNTER_OPTIONS,
            *_namespaces(profile), *_unset(profile)]


def _store(d: str, name: str, data: bytes) -> str:
    """`data` in the file `name` of `d`, written only when its bytes differ (content-addressed)."""
    from cupcake_py.core.userdirs import atomic_write

    path = os.path.join(d, name)
    try:
        with open(path, "rb") as f:
            same = f.read(len(data) + 1) == data
    except OSError:
        same = False
    if not same:
        try:
            atomic_write(d, name, [data], os.path.splitext(name)[1])
        except OSError as e:
            raise SandboxError(f"cannot write the sandbox profile {path}: {e.strerror}") from None
    return path


def _nul(words: list[str]) -> bytes:
    return b"\0".join(a.encode("utf-8", "surrogateescape") for a in words) + b"\0"


def prepare(profile: dict[str, Any], bwrap: str, mounter: str | None, fs: Lookups | None = None) -> dict[str, Any]:
    """What the command line is made of, for any command (`line`): the arguments file and, with
    the mounter, the mount list (written), and the launcher's frame around the command (the
    removal of absent paths, the links put back: sandbox/launcher.py `frame`)."""
    d = _private_dir()
    empty = _empty_file(d)
    if mounter is not None:
        args = _nul(mounter_arguments(profile))
        listing = _nul([w for m in mounts(profile, empty, fs) for w in m])
    else:
        args, listing = _nul(arguments(profile, empty, fs)), b""
    from cupcake_py.core.cache_mac import hexdigest
    from cupcake_py.sandbox.launcher import frame

    name = hexdigest(args + b"\n" + listing, 20)
    path = _store(d, name + ".args", args)
    mount_list = _store(d, name + ".mounts", listing) if mounter is not None else None
    links = [(e["path"], e["text"], e["target"]) for e in profile.get("links", [])]
    inner = (mounter, mount_list) if mounter is not None and mount_list is not None else None
    return {"args": path, "mounts": mount_list,
            "frame": frame(bwrap, path, [e["path"] for e in profile.get("absent", [])], links,
                           profile["writable"] + profile.get("pinned", []), inner)}


def line(command: str, parts: dict[str, Any]) -> str:
    """The command line the harness runs for `command` (sandbox/launcher.py)."""
    from cupcake_py.sandbox.launcher import line_in

    return line_in(parts["frame"], command)


def mounter_for(profile: dict[str, Any], bwrap: str) -> str | None:
    """The mounter that makes this profile's mounts here, None when bubblewrap makes them."""
    return None if profile.get("share_processes") else usable_mounter(bwrap)


def wrap(command: str, profile: dict[str, Any], bwrap: str) -> tuple[str, str]:
    """(the command the harness runs, the arguments file)."""
    parts = prepare(profile, bwrap, mounter_for(profile, bwrap))
    return line(command, parts), parts["args"]


def _lookups() -> Lookups:
    from cupcake_py.sandbox.lookups import Lookups

    return Lookups()
