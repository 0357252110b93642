"""Bundle builds that never hold an evaluation past its deadline.

On a bundle-cache miss, `cupcake eval` (and `cupcake serve`) does not compile in its own process
(10,000 policies can take longer than any hook timeout): `wait_for` starts this module as a
detached worker and waits for the cache entry until the evaluation's deadline.

In: the configuration dir, its cache key, the custom builtin modules, the MAC key and the
deadline (time.monotonic()). Out: the bundle, when the worker wrote it in time;
`bundle.BuildPending` when the deadline comes first (the evaluation fails closed with the reason
"the <scope> policies ... are being compiled ..."); `bundle.BundleError` with the build's own
message when the build failed (policies that do not compile); `InProcess` when no worker could
deliver (the cache entry cannot be written, workers died): the caller builds in its own process
under its hard deadline.

Race-free with concurrent evaluations: a worker builds only while it holds `<key>.lock` (an
exclusive flock in the bundle cache dir). `python -m cupcake_py.engine.build_worker` takes the
lock first, then forks the worker, which inherits it, and exits: the evaluation reads one line,
the worker's pid (or `busy` when another worker holds the lock), so when `_start` returns the
lock is held and no evaluation starts a second build. The entry is written atomically
(bundle.write_cached): a reader sees all of it or nothing. A build error is kept as
`<key>.error` for ERROR_SECONDS (every waiting evaluation reports it), then tried again.

Detached and reaped: the worker is a grandchild in a session of its own, so it outlives the
evaluation and is out of reach of whatever kills the evaluation's process tree (the OpenCode
plugin's timeout); its parent exits at once, so init (or the nearest child subreaper) reaps it.
When that subreaper is this very process (`cupcake serve` after a signal ran), the worker's pid is
registered with engine/reaper.spare and reaped by `reap_finished`. Its own limit:
MAX_BUILD_SECONDS, after which it records an error and ends. Its stderr (the build's warnings)
goes to `<key>.log`, which the first evaluation that receives the bundle writes to its own
stderr.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cupcake_py.engine.bundle import Bundle
    from cupcake_py.engine.project import ConfigDir

POLL_SECONDS = 0.02
ERROR_SECONDS = 30.0  # a recorded build error is reported this long, then the build is tried again
MAX_BUILD_SECONDS = 900  # the worker's own limit
MAX_STARTS = 3  # workers one wait starts (a worker that died without a result: start another)
BUSY = b"busy"

_detached: list[int] = []  # workers this process started (reaped here when they are our children)


class InProcess(Exception):
    """No worker can deliver this bundle: build it in the calling process."""


def _path(key: str, suffix: str) -> str:
    from cupcake_py.engine.bundle import cache_dir

    return os.path.join(cache_dir(), f"{key}{suffix}")


def being_built(key: str) -> bool:
    """Whether a worker holds the build lock of `key` now."""
    import fcntl

    try:
        fd = os.open(_path(key, ".lock"), os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def recorded_error(key: str) -> str | None:
    """The build error a worker recorded for `key` (fresh ones only; a stale one is removed)."""
    path = _path(key, ".error")
    try:
        if time.time() - os.stat(path).st_mtime > ERROR_SECONDS:
            os.unlink(path)
            return None
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    except OSError:
        return None


def reap_finished() -> None:
    """Reap the workers that became this process's children and have ended (`cupcake serve`)."""
    from cupcake_py.engine import reaper

    for pid in list(_detached):
        try:
            done, _ = os.waitpid(pid, os.WNOHANG)
        except ChildProcessError:  # not ours (init reaps it) or already reaped
            done = pid
        if done:
            _detached.remove(pid)
            reaper.forget_spared(pid)


def _start(cfg: ConfigDir, key: str, builtins: list[str], deadline: float) -> bool:
    """Start a worker for `key`; True once a worker (this one or another) holds the lock or the
    starter failed, False when the deadline came first (the starter goes on by itself)."""
    import selectors
    import subprocess

    from cupcake_py.engine import reaper

    args = [sys.executable, "-m", "cupcake_py.engine.build_worker", cfg.scope, cfg.cupcake_path, cfg.root_path,
            cfg.harness, key, *builtins]
    starter = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                               start_new_session=True, close_fds=True)
    assert starter.stdout is not None
    reaper.spare(starter.pid)
    _detached.append(starter.pid)
    with selectors.DefaultSelector() as sel:
        sel.register(starter.stdout, selectors.EVENT_READ)
        ready = sel.select(max(0.0, deadline - time.monotonic()))
    if not ready:  # a loaded machine: the starter has not even forked yet
        starter.stdout.close()
        return False
    try:
        line = starter.stdout.readline().strip()
    finally:
        starter.stdout.close()
    reap_finished()
    if line.isdigit():
        reaper.spare(int(line))
        _detached.append(int(line))
    return True


def wait_for(cfg: ConfigDir, key: str, builtins: list[str], mac_key: bytes, deadline: float, files: int) -> Bundle:
    """The bundle of `key`, built by a worker (see the module docstring)."""
    from cupcake_py.engine.bundle import BuildPending, BundleError, read_cached

    reap_finished()
    entry = _path(key, ".bundle")
    if os.path.lexists(entry) and not os.path.isfile(entry):
        raise InProcess  # a worker could never replace it
    starts = 0
    while True:
        bundle = read_cached(key, mac_key)
        if bundle is not None:
            _pass_on_warnings(key)
            return bundle
        error = recorded_error(key)
        if error is not None:
            raise BundleError(error)
        if not being_built(key):
            # the builder may have finished between the two looks: look again before starting one
            bundle = read_cached(key, mac_key)
            if bundle is not None:
                _pass_on_warnings(key)
                return bundle
            if recorded_error(key) is None:
                if starts == MAX_STARTS:
                    raise InProcess
                starts += 1
                if _start(cfg, key, builtins, deadline):
                    continue
        left = deadline - time.monotonic()
        if left <= 0:
            raise BuildPending(f"the {cfg.scope} policies in {cfg.cupcake_path} are being compiled ({files} files) "
                               "and were not ready within the evaluation deadline; blocked until the build "
                               "finishes (it goes on in the background: retry shortly)")
        time.sleep(min(POLL_SECONDS, left))


def _pass_on_warnings(key: str) -> None:
    """What the worker wrote to stderr (warnings), written to this process's stderr once."""
    path = _path(key, ".log")
    try:
        with open(path, "rb") as f:
            text = f.read(1 << 16)
        os.unlink(path)
    except OSError:
        return
    if text.strip():
        try:
            sys.stderr.write(text.decode("utf-8", "replace"))
        except (OSError, ValueError):
            pass


# ----------------------------------------------------------------------------- the worker process


def _record_error(key: str, message: str) -> None:
    from cupcake_py.engine.bundle import cache_dir
    from cupcake_py.userdirs import atomic_write

    try:
        atomic_write(cache_dir(), f"{key}.error", (message.encode("utf-8", "replace"),), ".error")
    except OSError:
        pass


def _build(cfg: ConfigDir, key: str, builtins: list[str]) -> int:
    """Build and write the entry (or the error); the lock is held. 0 when the entry exists."""
    import signal

    from cupcake_py import cache_mac
    from cupcake_py.engine import bundle as bundles

    mac_key = cache_mac.key()
    if mac_key is None:
        return 1
    if bundles.read_cached(key, mac_key) is not None:
        return 0
    if bundles.cache_key(cfg, builtins) != key:
        return 1  # the sources changed since the evaluation looked: the next one asks for the new key

    def too_long(_sig: int, _frame: object) -> None:
        raise bundles.BundleError(f"the build of the {cfg.scope} policies took longer than {MAX_BUILD_SECONDS} s")

    signal.signal(signal.SIGALRM, too_long)
    signal.alarm(MAX_BUILD_SECONDS)
    try:
        bundle = bundles.build(cfg, key, builtins)
    except bundles.BundleError as e:
        _record_error(key, str(e))
        return 1
    except OSError as e:  # as engine/bundle.load words it in process
        _record_error(key, f"configuration error: cannot read {e.filename or cfg.cupcake_path}: {e.strerror or e}")
        return 1
    except Exception as e:  # noqa: BLE001 - reported to the evaluations as the build's error
        _record_error(key, f"the build of the {cfg.scope} policies failed: {type(e).__name__}: {e}")
        return 1
    finally:
        signal.alarm(0)
    bundles.write_cached(bundle, mac_key)
    return 0


def main(argv: list[str]) -> int:
    """Starter: take the lock, fork the worker (it inherits the lock), print its pid, exit."""
    import fcntl

    from cupcake_py.engine.bundle import cache_dir
    from cupcake_py.engine.project import ConfigDir
    from cupcake_py.userdirs import private_dir

    scope, cupcake_path, root_path, harness, key, *builtins = argv
    if scope not in ("project", "global") or not private_dir(cache_dir(), "bundle cache"):
        return 2
    fd = os.open(_path(key, ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.write(1, BUSY + b"\n")  # another worker builds this key
        return 0
    pid = os.fork()
    if pid:
        os.write(1, b"%d\n" % pid)
        return 0
    os.setsid()  # a session (and process group) of its own: killing the starter's group leaves it alone
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 1)  # the starter's reader sees the end of its pipe now
    try:  # the build's warnings (cache entries not loaded, ...), for the evaluation that gets the bundle
        log = os.open(_path(key, ".log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(log, 2)
        os.close(log)
    except OSError:
        pass
    cfg = ConfigDir("project" if scope == "project" else "global", cupcake_path, root_path, harness)
    try:
        status = _build(cfg, key, builtins)
    finally:
        os.close(fd)  # releases the lock (after the entry or the error is written)
    os._exit(status)


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
