"""Shell signals: `sh -c COMMAND` with the event JSON on stdin, run in the project root,
all at once, each in its own process group.

Result per signal (stored at `input.signals.<name>`):
- exit 0: stdout (trimmed) parsed as JSON when it is JSON, else the string;
- non-zero exit: {"exit_code": n, "output": stdout, "error": stderr, "success": false};
- timeout: the whole process group is killed (SIGKILL) and the result is
  {"exit_code": -1, "output", "error": "timed out after Ns", "success": false, "timed_out": true};
- could not start: {"exit_code": -1, "output": "", "error": "<why>", "success": false}.
Output beyond MAX_OUTPUT bytes per stream is dropped. When the evaluation's total deadline
passes first, every running signal group is killed and SignalDeadline is raised (the
caller fails closed). Nothing outlives the evaluation: this process becomes a child subreaper
before the first signal starts, so even a descendant that left the signal's process group and
session (`(setsid cmd &)`) is re-parented to it and killed by `reaper.kill_children` at the end.
"""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import time

from cupcake_py.core import jsonio
from cupcake_py.core.errors import CupcakeError
from cupcake_py.core.record import FrozenRecord

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_OUTPUT = 1 << 20


class SignalDeadline(CupcakeError):
    pass


class _Run:
    """One running signal (identity matters: selector keys point back to it)."""

    __slots__ = ("name", "proc", "timeout", "started", "stdin", "written", "out", "err", "open_streams", "timed_out",
                 "error", "finished")

    def __init__(self, name: str, proc: subprocess.Popen[bytes] | None, timeout: float, started: float, stdin: bytes,
                 error: str | None = None, finished: float | None = None) -> None:
        self.name, self.proc, self.timeout, self.started, self.stdin = name, proc, timeout, started, stdin
        self.written = 0
        self.out = bytearray()
        self.err = bytearray()
        self.open_streams = 0
        self.timed_out = False
        self.error: str | None = error
        self.finished: float | None = finished


class SignalResult(FrozenRecord):
    __slots__ = ("name", "value", "seconds", "ok")
    name: str
    value: Any
    seconds: float
    ok: bool

    def __init__(self, name: str, value: Any, seconds: float, ok: bool) -> None:
        self._fill(name, value, seconds, ok)


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGKILL the process group `proc` leads (started with start_new_session=True)."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _kill(run: _Run) -> None:
    if run.proc is not None:
        kill_group(run.proc)


def _value(run: _Run) -> tuple[Any, bool]:
    out = bytes(run.out).decode("utf-8", "replace")
    err = bytes(run.err).decode("utf-8", "replace")
    if run.error is not None:
        return {"exit_code": -1, "output": "", "error": run.error, "success": False}, False
    if run.timed_out:
        return {"exit_code": -1, "output": out, "error": f"timed out after {run.timeout:g}s" + (f": {err}" if err else ""),
                "success": False, "timed_out": True}, False
    assert run.proc is not None
    code = run.proc.returncode
    if code != 0:
        return {"exit_code": code if code >= 0 else -1, "output": out, "error": err, "success": False}, False
    text = out.strip()
    try:
        return jsonio.loads(text), True
    except jsonio.JSONError:
        return text, True


def run_signals(specs: dict[str, dict[str, Any]], stdin: bytes, cwd: str | os.PathLike[str], deadline: float) -> list[SignalResult]:
    """Run every signal of `specs` ({name: {command, timeout_seconds}}) concurrently."""
    from cupcake_py.engine.reaper import become_subreaper

    become_subreaper()  # daemonised descendants of a signal stay ours, so they are killed at the end
    sel = selectors.DefaultSelector()
    runs: list[_Run] = []
    try:
        for name, spec in specs.items():
            now = time.monotonic()
            try:
                proc = subprocess.Popen(["/bin/sh", "-c", spec["command"]], cwd=cwd, stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
            except OSError as e:
                runs.append(_Run(name, None, spec["timeout_seconds"], now, b"", error=f"could not start: {e}",
                                 finished=now))
                continue
            run = _Run(name, proc, float(spec["timeout_seconds"]), now, stdin)
            runs.append(run)
            assert proc.stdin and proc.stdout and proc.stderr
            for stream in (proc.stdin, proc.stdout, proc.stderr):
                os.set_blocking(stream.fileno(), False)
            sel.register(proc.stdin, selectors.EVENT_WRITE, (run, "in"))
            sel.register(proc.stdout, selectors.EVENT_READ, (run, "out"))
            sel.register(proc.stderr, selectors.EVENT_READ, (run, "err"))
            run.open_streams = 2
        _pump(sel, runs, deadline)
    finally:
        for run in runs:
            if run.proc is not None and run.finished is None:
                _kill(run)
            if run.proc is not None:
                for pipe in (run.proc.stdin, run.proc.stdout, run.proc.stderr):
                    try:
                        if pipe is not None:
                            pipe.close()
                    except OSError:
                        pass
                try:
                    run.proc.wait(timeout=1)
                except subprocess.TimeoutExpired:
                    pass
        sel.close()
    results = []
    for run in runs:
        value, ok = _value(run)
        results.append(SignalResult(run.name, value, (run.finished or time.monotonic()) - run.started, ok))
    return results


def _pump(sel: selectors.BaseSelector, runs: list[_Run], deadline: float) -> None:
    while True:
        pending = [r for r in runs if r.finished is None]
        if not pending:
            return
        now = time.monotonic()
        if now >= deadline:
            for r in pending:
                _kill(r)
            raise SignalDeadline("the evaluation deadline passed while signals were running: "
                                 + ", ".join(r.name for r in pending))
        for r in pending:
            if r.open_streams == 0:
                assert r.proc is not None
                if r.proc.poll() is not None:
                    r.finished = time.monotonic()
                    continue
            if now - r.started >= r.timeout:
                r.timed_out = True
                _kill(r)
                r.finished = now
                for key in list(sel.get_map().values()):
                    if key.data[0] is r:
                        sel.unregister(key.fileobj)
        waits = [r.started + r.timeout - now for r in runs if r.finished is None]
        if not waits:
            continue
        timeout = max(0.0, min([deadline - now, *waits]))
        if not sel.get_map():
            time.sleep(min(timeout, 0.005))
            continue
        for key, _ in sel.select(min(timeout, 0.05)):
            run, kind = key.data
            f = key.fileobj
            if kind == "in":
                try:
                    n = os.write(key.fd, run.stdin[run.written:run.written + 65536])
                    run.written += n
                except (BrokenPipeError, BlockingIOError, OSError):
                    run.written = len(run.stdin)
                if run.written >= len(run.stdin):
                    sel.unregister(f)
                    f.close()  # type: ignore[union-attr]  # registered as proc.stdin; typeshed: int | HasFileno
                continue
            try:
                chunk = os.read(key.fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                sel.unregister(f)
                run.open_streams -= 1
                continue
            buf = run.out if kind == "out" else run.err
            if len(buf) < MAX_OUTPUT:
                buf.extend(chunk[: MAX_OUTPUT - len(buf)])
