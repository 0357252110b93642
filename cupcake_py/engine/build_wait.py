"""Waiting for a bundle build without holding an evaluation past its deadline: the evaluation's side
of engine/build_worker.py.

On a bundle-cache miss, `cupcake eval` (and `cupcake serve`) does not compile in its own process
(10,000 policies can take longer than any hook timeout): `bundle.load` calls `wait_for`, which
starts `python -m cupcake_py.engine.build_worker` as a detached worker and waits for the cache
entry until the evaluation's deadline.

In: the configuration dir, its cache key, the custom builtin modules, the deadline
(time.monotonic()), the bundle cache directory and a reader of the entry. Out: the bundle, when
the worker wrote it in time; `Pending` when the deadline comes first (bundle.load raises
`BuildPending`: the evaluation fails closed with "the <scope> policies ... are being
compiled ..."); `Failed` with the build's own message when the build failed (policies that do not
compile; bundle.load raises `BundleError`); `InProcess` when no worker could deliver (the cache
entry cannot be written, workers died): the caller builds in its own process under its hard
deadline. This module imports nothing of the bundle: the worker module imports both.
"""

from __future__ import annotations

import os
import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

    from cupcake_py.engine.bundle import Bundle
    from cupcake_py.engine.project import ConfigDir

POLL_SECONDS = 0.02
ERROR_SECONDS = 30.0  # a recorded build error is reported this long, then the build is tried again
MAX_STARTS = 3  # workers one wait starts (a worker that died without a result: start another)
BUSY = b"busy"

_detached: list[int] = []  # workers this process started (reaped here when they are our children)


class InProcess(Exception):
    """No worker can deliver this bundle: build it in the calling process."""


class Pending(Exception):
    """The deadline came before the worker's entry (bundle.load says so as `BuildPending`)."""


class Failed(Exception):
    """The worker recorded a build error, the exception's text (bundle.load raises it as `BundleError`)."""


def entry_path(directory: str, key: str, suffix: str) -> str:
    """A file of the build of `key` in the bundle cache `directory` (.bundle, .lock, .error, .log)."""
    return os.path.join(directory, f"{key}{suffix}")


def being_built(directory: str, key: str) -> bool:
    """Whether a worker holds the build lock of `key` now."""
    import fcntl

    try:
        fd = os.open(entry_path(directory, key, ".lock"), os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)
    return False


def recorded_error(directory: str, key: str) -> str | None:
    """The build error a worker recorded for `key` (fresh ones only; a stale one is removed)."""
    path = entry_path(directory, key, ".error")
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


def wait_for(cfg: ConfigDir, key: str, builtins: list[str], deadline: float, directory: str,
             read: Callable[[], Bundle | None]) -> Bundle:
    """The bundle of `key` in the cache `directory`, built by a worker; `read` reads the entry
    (None while there is none); see the module docstring."""
    reap_finished()
    entry = entry_path(directory, key, ".bundle")
    if os.path.lexists(entry) and not os.path.isfile(entry):
        raise InProcess  # a worker could never replace it
    starts = 0
    while True:
        bundle = read()
        if bundle is not None:
            _pass_on_warnings(directory, key)
            return bundle
        error = recorded_error(directory, key)
        if error is not None:
            raise Failed(error)
        if not being_built(directory, key):
            # the builder may have finished between the two looks: look again before starting one
            bundle = read()
            if bundle is not None:
                _pass_on_warnings(directory, key)
                return bundle
            if recorded_error(directory, key) is None:
                if starts == MAX_STARTS:
                    raise InProcess
                starts += 1
                if _start(cfg, key, builtins, deadline):
                    continue
        left = deadline - time.monotonic()
        if left <= 0:
            raise Pending
        time.sleep(min(POLL_SECONDS, left))


def _pass_on_warnings(directory: str, key: str) -> None:
    """What the worker wrote to stderr (warnings), written to this process's stderr once."""
    path = entry_path(directory, key, ".log")
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
