"""RSS of one `cupcake serve --stdio` over many requests (issue 21: memory stays flat).

Three projects whose policy calls host builtins (regex.match, sprintf) are served in turn, in
batches of 500 pipelined requests; the server's RSS (/proc VmRSS) is sampled after every tenth of
the run. Growth is measured from the second sample (after warm-up: bundles, instances, caches).

    .venv/bin/python benches/serve_memory.py [--requests 100000]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
POLICY = """# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
package cupcake.policies.mem{i}

import rego.v1

deny contains {{"rule_id": "M{i}", "reason": sprintf("no %s here", [input.tool_input.command])}} if {{
	regex.match(`^rm\\s`, input.tool_input.command)
}}
"""


def _rss_kib(pid: int) -> int:
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        if row.startswith("VmRSS:"):
            return int(row.split()[1])
    raise RuntimeError("no VmRSS")


def rss_run(work: Path, requests: int, env: dict[str, str] | None = None) -> dict[str, Any]:
    projects = []
    for i in range(3):
        pol = work / f"p{i}" / ".cupcake" / "policies" / "opencode"
        pol.mkdir(parents=True, exist_ok=True)
        (pol / "mem.rego").write_text(POLICY.format(i=i))
        projects.append(work / f"p{i}")
    exe = Path(sys.executable).parent / "cupcake"
    srv = subprocess.Popen([str(exe), "serve", "--stdio", "--no-global"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, env=env or dict(os.environ), cwd=work)
    assert srv.stdin is not None and srv.stdout is not None
    batch, samples, done, denied = 500, [], 0, 0
    every = max(batch, requests // 10)
    try:
        while done < requests:
            n = min(batch, requests - done)
            lines = []
            for k in range(n):
                i = done + k
                cmd = f"rm file{i}" if i % 2 else f"ls dir{i}"
                event = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(projects[i % 3]),
                         "tool": "bash", "args": {"command": cmd}}
                lines.append(json.dumps({"id": i, "harness": "opencode", "event": event}))
            srv.stdin.write(("\n".join(lines) + "\n").encode())
            srv.stdin.flush()
            for _ in range(n):
                got = json.loads(srv.stdout.readline())
                assert got["exit_code"] == 0, got
                denied += got["response"]["decision"] == "deny"
            done += n
            if done % every < batch or done == requests:
                samples.append(_rss_kib(srv.pid))
    finally:
        srv.stdin.close()
        srv.wait(timeout=120)
    base = samples[1] if len(samples) > 1 else samples[0]
    return {"requests": requests, "denied": denied, "rss_kib": samples,
            "growth_after_warmup_kib": max(samples[1:] or samples) - base}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=100_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="cupcake-serve-mem-") as tmp:
        env = {**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / "cache")}
        out = rss_run(Path(tmp), args.requests, env)
    print(json.dumps(out))
    mib = [round(k / 1024, 1) for k in out["rss_kib"]]
    print(f"{args.requests} requests: RSS MiB {mib}; growth after warm-up {out['growth_after_warmup_kib'] / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
