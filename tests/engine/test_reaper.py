"""engine/reaper.py: the live children of a process are found (every thread's) and killed.
Run in a child interpreter: killing the test process's own children could hit other tests' servers."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

PROBE = """
import subprocess
from cupcake_py.engine import reaper
procs = [subprocess.Popen(["sleep", "30"]), subprocess.Popen(["sleep", "30"], start_new_session=True)]
pids = reaper.children()
assert all(p.pid in pids for p in procs) and all(isinstance(p, int) for p in pids), pids
killed = reaper.kill_children()
assert {p.pid for p in procs} <= set(killed), killed
assert not {p.pid for p in procs} & set(reaper.children())
assert reaper.kill_children() == [] and reaper._no_children()
import os, time
zombie = subprocess.Popen(["true"])
while not os.path.exists(f"/proc/{zombie.pid}") or open(f"/proc/{zombie.pid}/stat").read().split(") ")[1][0] != "Z":
    time.sleep(0.01)
assert not reaper._no_children()  # an exited child not yet waited for is still a child
assert reaper.kill_children() == [zombie.pid] and reaper._no_children()
print("ok", len(killed))
"""


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="Linux only (/proc/self/task/*/children)")
def test_children_are_listed_and_killed() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0 and out.stdout.startswith("ok 2"), out.stderr
