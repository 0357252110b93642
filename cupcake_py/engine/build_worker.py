"""Bundle builds that never hold an evaluation past its deadline: the worker process.

On a bundle-cache miss, `cupcake eval` (and `cupcake serve`) does not compile in its own process
(10,000 policies can take longer than any hook timeout): `build_wait.wait_for` (the evaluation's
side) starts this module as a detached worker and waits for the cache entry until the
evaluation's deadline.

In (argv): scope, .cupcake path, root path, harness, cache key, custom builtin modules. Out: the
cache entry `<key>.bundle` (bundle.write_cached), or `<key>.error` holding the build's message
(policies that do not compile, a build past MAX_BUILD_SECONDS); the starter prints the worker's
pid or `busy`. Exit status 2 when the arguments or the cache directory are unusable.

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

from cupcake_py.engine import bundle as bundles
from cupcake_py.engine.build_wait import BUSY, entry_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from cupcake_py.engine.project import ConfigDir

MAX_BUILD_SECONDS = 900  # the worker's own limit


# ----------------------------------------------------------------------------- the worker process


def _record_error(key: str, message: str) -> None:
    from cupcake_py.core.userdirs import atomic_write

    try:
        atomic_write(bundles.cache_dir(), f"{key}.error", (message.encode("utf-8", "replace"),), ".error")
    except OSError:
        pass


def _build(cfg: ConfigDir, key: str, builtins: list[str]) -> int:
    """Build and write the entry (or the error); the lock is held. 0 when the entry exists."""
    import signal

    from cupcake_py.core import cache_mac

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

    from cupcake_py.core.userdirs import private_dir
    from cupcake_py.engine.project import ConfigDir

    scope, cupcake_path, root_path, harness, key, *builtins = argv
    if scope not in ("project", "global") or not private_dir(bundles.cache_dir(), "bundle cache"):
        return 2
    fd = os.open(entry_path(bundles.cache_dir(), key, ".lock"), os.O_RDWR | os.O_CREAT, 0o600)
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
        log = os.open(entry_path(bundles.cache_dir(), key, ".log"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
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
