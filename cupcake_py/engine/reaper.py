"""Kill whatever child processes this process still has (Linux: /proc/self/task/*/children).

`cupcake eval` calls it once before answering, so no signal command, git process or anything a
provider started outlives the evaluation, even when an exception or the hard deadline cut its
own cleanup short. A child that leads its own process group (shell signals run with
start_new_session) has its whole group killed. Elsewhere than Linux this does nothing.

Children registered with `spare(pid)` (the detached bundle build worker) are left alone.

`become_subreaper()` (called before the first signal or git process is spawned) makes this
process a child subreaper, when `arm()` was called first (`cupcake eval` arms it: a short-lived
process that reaps everything at its end; a long-lived one such as a test run or an authoring
command would collect its orphans as zombies) (Linux `prctl(PR_SET_CHILD_SUBREAPER)`): a descendant whose parent exits, such
as a daemon a signal started with `(setsid cmd &)` in its own session, is re-parented to
cupcake instead of init, so `kill_children` finds and kills it too. Killing a child can orphan
its own children, which then become ours: `kill_children` repeats until none is left.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # `_signal` has no stubs; `signal` re-exports its names
    from signal import SIGKILL
else:
    try:
        from _signal import SIGKILL  # the C module behind `signal` (which also imports enum)
    except ImportError:  # not a CPython private module everywhere: the public one has the same constant
        from signal import SIGKILL

TASKS = "/proc/self/task"
PR_SET_CHILD_SUBREAPER = 36
MAX_ROUNDS = 64  # kill rounds (each can orphan a deeper generation, re-parented to us)

_subreaper: list[bool] = []
_armed: list[bool] = []
_spared: set[int] = set()  # children meant to outlive the evaluation (a detached bundle build worker)


def spare(pid: int) -> None:
    """Never kill child `pid` (the bundle build worker of engine/build_worker.py: it finishes the
    build after the evaluation answered, bounded by its own time limit)."""
    _spared.add(pid)


def forget_spared(pid: int) -> None:
    """`pid` was reaped: a new process with the same id is fair game again."""
    _spared.discard(pid)


def arm() -> None:
    """Let `become_subreaper` act in this process (called by `cupcake eval`, which reaps at exit)."""
    _armed.append(True)


def become_subreaper() -> bool:
    """Make this process a child subreaper (once; Linux only; only once `arm()` was called). False
    when not armed or impossible (another OS, no libc): then daemonised descendants can escape."""
    if not _armed:
        return False
    if not _subreaper:
        ok = False
        if os.path.isdir(TASKS):
            import ctypes

            try:
                libc = ctypes.CDLL(None, use_errno=True)
                ok = libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
            except (OSError, AttributeError):
                ok = False
        _subreaper.append(ok)
    return _subreaper[0]


def children() -> list[int]:
    """PIDs of this process's live children (every thread's)."""
    out: list[int] = []
    try:
        tasks = os.listdir(TASKS)
    except OSError:
        return out
    for task in tasks:
        try:
            with open(f"{TASKS}/{task}/children", "rb", buffering=0) as f:
                text = f.read()
        except OSError:
            continue
        out += [int(p) for p in text.split() if int(p) not in out]
    return out


def _kill_round(pids: list[int]) -> None:
    for pid in pids:
        try:
            if os.getpgid(pid) == pid:
                os.killpg(pid, SIGKILL)
            else:
                os.kill(pid, SIGKILL)
        except (ProcessLookupError, PermissionError):
            continue
    for pid in pids:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass


def _no_children() -> bool:
    """True when this process has no child at all (one waitid: ECHILD), so there is nothing to
    look for; WNOWAIT leaves any child that exited waitable by its owner."""
    try:
        os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    except (AttributeError, OSError):  # no waitid here, or it failed: look at /proc
        return False
    return False


def kill_children() -> list[int]:
    """SIGKILL every child (and the group of a child that leads one) and reap it, again for the
    descendants that killing orphaned onto us; the PIDs."""
    if _no_children():
        return []
    killed: list[int] = []
    for _ in range(MAX_ROUNDS):
        pids = [p for p in children() if p not in killed and p not in _spared]
        if not pids:
            break
        _kill_round(pids)
        killed += pids
    return killed
