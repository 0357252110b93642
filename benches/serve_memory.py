"""RSS of one `cupcake serve --stdio` over many mixed requests (issues 21 and 29: memory stays flat).

Three projects whose policy calls host builtins (regex.match, sprintf) are served in turn, in
batches of 500 pipelined requests, both harnesses. The mix (by request number): allowed and
denied Bash calls, an MCP call with fractional numbers (`temperature: 0.7`, `timeout: 1.5`,
`1e400`), a malformed line (not JSON; an object without an id; a lone surrogate), an event
with a 256 KiB command every 100th request and a line over --max-input-bytes every 1,000th.
The server's RSS (/proc VmRSS) is sampled after every tenth of the run; growth is measured from
the second sample (after warm-up: bundles, instances, caches). Goal: <= 1 MiB growth.

    .venv/bin/python benches/serve_memory.py [--requests 100000] [--plain]

--plain: only allowed and denied Bash calls (the issue 21 workload).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
POLICY = """# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
package cupcake.policies.{h}.mem{i}

import rego.v1

deny contains {{"rule_id": "M{i}", "reason": sprintf("no %s here", [input.tool_input.command])}} if {{
	regex.match(`^rm\\s`, input.tool_input.command)
}}
"""
MAX_LINE = 1 << 20  # --max-input-bytes of the server


def _rss_kib(pid: int) -> int:
    for row in Path(f"/proc/{pid}/status").read_text().splitlines():
        if row.startswith("VmRSS:"):
            return int(row.split()[1])
    raise RuntimeError("no VmRSS")


def _event(harness: str, cwd: Path, tool: str, args: dict[str, Any]) -> dict[str, Any]:
    base = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(cwd)}
    if harness == "opencode":
        return {**base, "tool": tool, "args": args}
    return {**base, "tool_name": {"bash": "Bash"}.get(tool, "mcp__srv__sample"), "tool_input": args}


def request(i: int, projects: list[Path], plain: bool) -> tuple[str, str]:
    """(line, what it is: allow|deny|fail) of request `i`."""
    cwd, harness = projects[i % 3], ("opencode", "claude")[(i // 3) % 2]
    kind = i % 2 if plain else i % 6
    if not plain and i % 1000 == 999:
        return "x" * (MAX_LINE + 10), "fail"
    if not plain and i % 100 == 99:
        cmd = "echo " + "a" * (256 * 1024)
        return json.dumps({"id": i, "harness": harness, "event": _event(harness, cwd, "bash", {"command": cmd})}), "allow"
    if kind == 0:
        return json.dumps({"id": i, "harness": harness, "event": _event(harness, cwd, "bash", {"command": f"ls d{i}"})}), \
            "allow"
    if kind == 1:
        return json.dumps({"id": i, "harness": harness, "event": _event(harness, cwd, "bash", {"command": f"rm f{i}"})}), \
            "deny"
    if kind == 2:
        args = f'{{"temperature": 0.7, "timeout": 1.5, "n": [1e400, -0.0, {i}.25], "q": "x{i}"}}'
        tool = "srv_sample" if harness == "opencode" else "mcp__srv__sample"
        key = ("tool", "args") if harness == "opencode" else ("tool_name", "tool_input")
        return (f'{{"id": {i}, "harness": "{harness}", "event": {{"hook_event_name": "PreToolUse", "session_id": "s", '
                f'"cwd": {json.dumps(str(cwd))}, "{key[0]}": "{tool}", "{key[1]}": {args}}}}}'), "allow"
    if kind == 3:
        return json.dumps({"id": i, "harness": harness, "event": _event(harness, cwd, "bash",
                                                                        {"command": "ls", "timeout": 2.5})}), "allow"
    bad = ['{"id": ' + str(i) + ', "harness": "opencode", "event": {"x": "\\udc80"}}', f"not json {i}",
           '{"harness": "opencode", "event": {}}', '{"id": ' + str(i) + ', "harness": "claude", "event": {"cwd": 7}}']
    return bad[i % len(bad)], "fail"


def rss_run(work: Path, requests: int, env: dict[str, str] | None = None, plain: bool = False) -> dict[str, Any]:
    projects = []
    for i in range(3):
        for h in ("opencode", "claude"):
            pol = work / f"p{i}" / ".cupcake" / "policies" / h
            pol.mkdir(parents=True, exist_ok=True)
            (pol / "mem.rego").write_text(POLICY.format(i=i, h=h))
        projects.append(work / f"p{i}")
    exe = Path(sys.executable).parent / "cupcake"
    srv = subprocess.Popen([str(exe), "serve", "--stdio", "--no-global", "--timeout", "60",
                            "--max-input-bytes", str(MAX_LINE)], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, env=env or dict(os.environ), cwd=work)
    assert srv.stdin is not None and srv.stdout is not None
    batch, samples, done = 500, [], 0
    counts = {"allow": 0, "deny": 0, "fail": 0}
    every = max(batch, requests // 10)
    t0 = time.monotonic()
    try:
        while done < requests:
            n = min(batch, requests - done)
            lines, kinds = [], []
            for k in range(n):
                line, kind = request(done + k, projects, plain)
                lines.append(line)
                kinds.append(kind)
            srv.stdin.write(("\n".join(lines) + "\n").encode())
            srv.stdin.flush()
            for kind in kinds:
                got = json.loads(srv.stdout.readline())
                decision = got["response"].get("decision") or got["response"].get("hookSpecificOutput", {}).get(
                    "permissionDecision", "allow")
                seen = "fail" if got["exit_code"] == 2 else decision
                assert seen == kind, (kind, got)
                counts[kind] += 1
            done += n
            if done % every < batch or done == requests:
                samples.append(_rss_kib(srv.pid))
    finally:
        srv.stdin.close()
        srv.wait(timeout=120)
    base = samples[1] if len(samples) > 1 else samples[0]
    return {"requests": requests, "counts": counts, "seconds": round(time.monotonic() - t0, 1), "rss_kib": samples,
            "growth_after_warmup_kib": max(samples[1:] or samples) - base}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=100_000)
    ap.add_argument("--plain", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="cupcake-serve-mem-") as tmp:
        env = {**os.environ, "XDG_CACHE_HOME": str(Path(tmp) / "cache"), "XDG_CONFIG_HOME": str(Path(tmp) / "cfg"),
               "XDG_STATE_HOME": str(Path(tmp) / "state")}
        out = rss_run(Path(tmp), args.requests, env, args.plain)
    print(json.dumps(out))
    mib = [round(k / 1024, 1) for k in out["rss_kib"]]
    growth = out["growth_after_warmup_kib"] / 1024
    print(f"{args.requests} {'plain' if args.plain else 'mixed'} requests in {out['seconds']} s: RSS MiB {mib}; "
          f"growth after warm-up {growth:.2f} MiB (goal <= 1 MiB: {'met' if growth <= 1 else 'OVER'})")


if __name__ == "__main__":
    main()
