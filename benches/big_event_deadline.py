"""10 MB and 100 MB events against a 5 s deadline (issue 29: the deadline bounds the whole process,
and a huge event costs a bounded amount of memory).

    .venv/bin/python benches/big_event_deadline.py [--mb 10 100] [--timeout 5] [--harness opencode claude]

Per harness and size: one `cupcake eval --harness H --timeout T --max-input-bytes <size+1MB>` of a
Bash event whose command is one word of the given size, on a warm cache of a project with one
routed policy. Reports the wall time, the exit status, the answer (stdout, and stderr where the
harness puts the reason) and the process's peak RSS (ru_maxrss of that one child). Expected: a
fail-closed deny (exit 2) within the deadline: the 100 MB event holds more data than the policy
memory cap (--wasm-max-memory, 64 MB) and is denied once parsed; the 10 MB one is enriched and
denied when its policy input does not fit.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO

POLICY = """# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
package cupcake.policies.opencode.big

import rego.v1

deny contains {"rule_id": "B", "reason": "no rm", "severity": "HIGH"} if startswith(input.tool_input.command, "rm")
"""


def _run(harness: str, mb: int, timeout: float) -> str:
    exe = str(Path(sys.executable).parent / "cupcake")
    with tempfile.TemporaryDirectory(prefix="cupcake-big-event-") as tmp:
        project = Path(tmp) / "p"
        (project / ".cupcake" / "policies" / harness).mkdir(parents=True)
        (project / ".cupcake" / "policies" / harness / "big.rego").write_text(POLICY.replace("opencode", harness))
        env = {**os.environ, "XDG_CACHE_HOME": f"{tmp}/cache", "XDG_CONFIG_HOME": f"{tmp}/cfg",
               "XDG_STATE_HOME": f"{tmp}/state"}

        def event(command: str) -> bytes:
            tool = {"tool": "bash", "args": {"command": command}} if harness == "opencode" else \
                {"tool_name": "Bash", "tool_input": {"command": command}}
            return json.dumps({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(project),
                               **tool}).encode()

        subprocess.run([exe, "eval", "--harness", harness, "--timeout", "120"], input=event("ls"), env=env,
                       cwd=project, capture_output=True, check=True)  # warm cache
        # written in pieces, never held here: a child forked by a process holding the event would count
        # its pages in its own peak RSS (kept across exec)
        path = Path(tmp) / "event.json"
        head, tail = event("echo @").split(b"@")
        with path.open("wb") as f:
            f.write(head)
            for _ in range(mb):
                f.write(b"a" * (1 << 20))
            f.write(tail)
        limit = str(path.stat().st_size + (1 << 20))
        argv = [exe, "eval", "--harness", harness, "--timeout", str(timeout), "--max-input-bytes", limit]
        t0 = time.monotonic()
        exit_code, out, err, peak_kib = _run_measured(argv, path, env, project)
        wall = time.monotonic() - t0
    answer = out.decode()[:200].strip() + (" | stderr: " + err.decode()[:200].strip() if err else "")
    return (f"{harness} {mb} MB event, --timeout {timeout:g}: {wall:.2f} s wall, exit {exit_code}, "
            f"peak RSS {peak_kib / 1024:.0f} MB; load average {os.getloadavg()[0]:.1f}\n  answer: {answer}")


def _run_measured(argv: list[str], event: Path, env: dict[str, str], cwd: Path) -> tuple[int, bytes, bytes, int]:
    """(exit status, stdout, stderr, peak RSS in KiB) of one process fed the file `event` on a pipe;
    the peak is that process's own (wait4), not the largest of all children so far."""
    proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            cwd=cwd)
    stdin, stdout, stderr = proc.stdin, proc.stdout, proc.stderr
    assert stdin is not None and stdout is not None and stderr is not None
    got: dict[str, bytes] = {}

    def feed() -> None:
        try:
            with event.open("rb") as f:
                while chunk := f.read(1 << 20):
                    stdin.write(chunk)
        except BrokenPipeError:
            pass  # answered before reading it all
        finally:
            try:
                stdin.close()
            except BrokenPipeError:
                pass

    def drain(name: str, f: IO[bytes]) -> None:
        got[name] = f.read()

    threads = [threading.Thread(target=feed), threading.Thread(target=drain, args=("out", stdout)),
               threading.Thread(target=drain, args=("err", stderr))]
    for t in threads:
        t.start()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    for t in threads:
        t.join()
    return proc.returncode, got["out"], got["err"], usage.ru_maxrss


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=int, nargs="+", default=[10, 100])
    ap.add_argument("--timeout", type=float, default=5.0)
    ap.add_argument("--harness", nargs="+", default=["opencode", "claude"])
    args = ap.parse_args()
    for harness in args.harness:
        for mb in sorted(args.mb):  # smallest first: ru_maxrss of the children only grows
            print(_run(harness, mb, args.timeout), flush=True)


if __name__ == "__main__":
    main()
