"""A 100 MB event against a 5 s deadline (issue 29: the deadline bounds the whole process).

    .venv/bin/python benches/big_event_deadline.py [--mb 100] [--timeout 5]

One `cupcake eval --harness opencode --timeout T --max-input-bytes <size+1MB>` of a Bash event
whose command is one word of the given size, on a warm cache of a project with one routed
policy. Reports the wall time, the answer (a decision, or the fail-closed deny when the deadline
passed) and the process's peak RSS (ru_maxrss).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

POLICY = """# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
package cupcake.policies.opencode.big

import rego.v1

deny contains {"rule_id": "B", "reason": "no rm", "severity": "HIGH"} if startswith(input.tool_input.command, "rm")
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--mb", type=int, default=100)
    ap.add_argument("--timeout", type=float, default=5.0)
    args = ap.parse_args()
    exe = str(Path(sys.executable).parent / "cupcake")
    with tempfile.TemporaryDirectory(prefix="cupcake-big-event-") as tmp:
        project = Path(tmp) / "p"
        (project / ".cupcake" / "policies" / "opencode").mkdir(parents=True)
        (project / ".cupcake" / "policies" / "opencode" / "big.rego").write_text(POLICY)
        env = {**os.environ, "XDG_CACHE_HOME": f"{tmp}/cache", "XDG_CONFIG_HOME": f"{tmp}/cfg"}

        def event(command: str) -> bytes:
            return json.dumps({"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(project),
                               "tool": "bash", "args": {"command": command}}).encode()

        subprocess.run([exe, "eval", "--harness", "opencode", "--timeout", "120"], input=event("ls"), env=env,
                       cwd=project, capture_output=True, check=True)  # warm cache
        raw = event("echo " + "a" * (args.mb << 20))
        limit = str(len(raw) + (1 << 20))
        t0 = time.monotonic()
        proc = subprocess.run([exe, "eval", "--harness", "opencode", "--timeout", str(args.timeout),
                               "--max-input-bytes", limit], input=raw, env=env, cwd=project, capture_output=True)
        wall = time.monotonic() - t0
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    answer = proc.stdout.decode()[:200].strip()
    print(f"{args.mb} MB event, --timeout {args.timeout:g}: {wall:.2f} s wall, exit {proc.returncode}, "
          f"peak RSS {peak:.0f} MB; load average {os.getloadavg()[0]:.1f}\n  answer: {answer}")


if __name__ == "__main__":
    main()
