"""`cupcake test --watch` / `cupcake validate --watch`: run, then run again whenever a policy,
test or data file under the watched paths changes, until interrupted (Ctrl-C: exit 130).

In: the paths (files or directories) and a `run()` that prints one report and returns its exit
status. Out: the last run's status, when `max_runs` (tests) is reached. A change is seen through
the engine's inotify tree watch (engine/watch.py, as `cupcake serve` uses) and confirmed by the
files' (name, size, mtime) fingerprint; without inotify the fingerprint is polled, so a change is
never missed. A run that raises is reported by the caller's own error handling and the loop goes on.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

WATCHED_SUFFIXES = (".rego", ".json", ".yaml", ".yml", ".py")


def fingerprint(paths: list[Path]) -> tuple[tuple[str, int, int], ...]:
    out: list[tuple[str, int, int]] = []
    for p in paths:
        if p.is_file():
            files = [p]
        else:
            files = [Path(d) / n for d, _, names in os.walk(p) for n in names if n.endswith(WATCHED_SUFFIXES)]
        for f in files:
            try:
                st = f.stat()
            except OSError:
                continue
            out.append((str(f), st.st_size, st.st_mtime_ns))
    return tuple(sorted(out))


def watch(paths: list[Path], run: Callable[[], int], *, poll: float = 0.2, max_runs: int | None = None) -> int:
    """Run, then rerun on every change; returns after `max_runs` runs (None: until Ctrl-C -> 130)."""
    from cupcake_py.engine.watch import TreeWatch

    dirs = sorted({str(p if p.is_dir() else p.parent) for p in paths})
    runs, status = 0, 0
    try:
        while True:
            tree = TreeWatch(dirs)
            before = fingerprint(paths)
            status = run()
            runs += 1
            sys.stdout.flush()
            if max_runs is not None and runs >= max_runs:
                return status
            sys.stderr.write(f"cupcake: watching {', '.join(dirs)} for changes (Ctrl-C stops)\n")
            sys.stderr.flush()
            while True:
                time.sleep(poll)
                if tree.quiet():
                    continue
                now = fingerprint(paths)
                if now != before:
                    break
                tree.close()
                tree = TreeWatch(dirs)
            tree.close()
            sys.stderr.write("cupcake: change seen, running again\n")
    except KeyboardInterrupt:
        return 130
