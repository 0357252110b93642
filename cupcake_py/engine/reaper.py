"""Kill whatever child processes this process still has (Linux: /proc/self/task/*/children).

`cupcake eval` calls it once before answering, so no signal command, git process or anything a
provider started outlives the evaluation, even when an exception or the hard deadline cut its
own cleanup short. A child that leads its own process group (shell signals run with
start_new_session) has its whole group killed. Elsewhere than Linux this does nothing.
"""

from __future__ import annotations

import os

try:
    from _signal import SIGKILL  # the C module behind `signal` (which also imports enum)
except ImportError:  # not a CPython private module everywhere: the public one has the same constant
    from signal import SIGKILL

TASKS = "/proc/self/task"


def children() -> list[int]:
    """PIDs of this process's live children (every thread's)."""
    out: list[int] = []
    try:
        tasks = os.listdir(TASKS)
    except OSError:
        return out
    for task in tasks:
        try:
            with open(f"{TASKS}/{task}/children", encoding="ascii") as f:
                text = f.read()
        except OSError:
            continue
        out += [int(p) for p in text.split() if int(p) not in out]
    return out


def kill_children() -> list[int]:
    """SIGKILL every child (and the group of a child that leads one) and reap it; the PIDs."""
    killed = children()
    for pid in killed:
        try:
            if os.getpgid(pid) == pid:
                os.killpg(pid, SIGKILL)
            else:
                os.kill(pid, SIGKILL)
        except (ProcessLookupError, PermissionError):
            continue
    for pid in killed:
        try:
            os.waitpid(pid, 0)
        except ChildProcessError:
            pass
    return killed
