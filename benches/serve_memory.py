"""RSS of one `cupcake serve --stdio` over many mixed requests (issues 21 and 29: memory stays flat).

Three projects whose policy calls host builtins (regex.match, sprintf) are served in turn, in
batches of 500 pipelined requests, both harnesses. The mix (by request number): allowed and
denied Bash calls, an MCP call with fractional numbers (`temperature: 0.7`, `timeout: 1.5`,
`1e400`), a malformed line (not JSON; an object without an id; a lone surrogate), an event
with a 256 KiB command every 100th request and a line over --max-input-bytes every 1,000th.
Requests are written by a thread as fast as the server reads them (pipelined). The server's RSS
(/proc VmRSS) is sampled after every twentieth of the run; the growth after warm-up compares the
median of the last three samples with that of the first three after the first tenth (`growth`).
Goal: <= 1 MiB growth.

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
import threading
import time
from pathlib import Path
from typing import IO, Any

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


def make_projects(work: Path) -> list[Path]:
    """The three projects the requests go to (a policy per harness, calling host builtins)."""
    projects = []
    for i in range(3):
        for h in ("opencode", "claude"):
            pol = work / f"p{i}" / ".cupcake" / "policies" / h
            pol.mkdir(parents=True, exist_ok=True)
            (pol / "mem.rego").write_text(POLICY.format(i=i, h=h))
        projects.append(work / f"p{i}")
    return projects


def _writer(stdin: IO[bytes], requests: int, projects: list[Path], plain: bool) -> None:
    """Every request line, written as fast as the server reads them (pipelining: the pipe's
    buffer is the only limit, so the server never waits for the driver)."""
    try:
        batch: list[str] = []
        for i in range(requests):
            batch.append(request(i, projects, plain)[0])
            if len(batch) == 200 or i == requests - 1:
                stdin.write(("\n".join(batch) + "\n").encode())
                batch = []
        stdin.flush()
    except BrokenPipeError:
        pass  # the server died: the reader reports it
    finally:
        try:
            stdin.close()
        except BrokenPipeError:
            pass


def rss_run(work: Path, requests: int, env: dict[str, str] | None = None, plain: bool = False,
            samples_wanted: int = 20) -> dict[str, Any]:
    """Serve `requests` mixed requests through one `cupcake serve --stdio`; RSS samples (KiB) at
    every 1/`samples_wanted` of the run and the growth after warm-up (see `growth`)."""
    projects = make_projects(work)
    exe = Path(sys.executable).parent / "cupcake"
    srv = subprocess.Popen([str(exe), "serve", "--stdio", "--no-global", "--timeout", "60",
                            "--max-input-bytes", str(MAX_LINE)], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE, env=env or dict(os.environ), cwd=work)
    assert srv.stdin is not None and srv.stdout is not None
    samples: list[int] = []
    counts = {"allow": 0, "deny": 0, "fail": 0}
    every = max(1, requests // samples_wanted)
    t0 = time.monotonic()
    writer = threading.Thread(target=_writer, args=(srv.stdin, requests, projects, plain), daemon=True)
    writer.start()
    try:
        for i in range(requests):
            kind = _kind(i, plain)
            line = srv.stdout.readline()
            if not line:
                raise RuntimeError(f"the server ended after {i} answers (exit {srv.wait()})")
            got = json.loads(line)
            decision = got["response"].get("decision") or got["response"].get("hookSpecificOutput", {}).get(
                "permissionDecision", "allow")
            seen = "fail" if got["exit_code"] == 2 else decision
            assert seen == kind, (i, kind, got)
            counts[kind] += 1
            if (i + 1) % every == 0 or i + 1 == requests:
                samples.append(_rss_kib(srv.pid))
    finally:
        writer.join(timeout=60)
        srv.wait(timeout=120)
    warm, final, grown = growth(samples)
    return {"requests": requests, "counts": counts, "seconds": round(time.monotonic() - t0, 1), "rss_kib": samples,
            "warm_up_kib": warm, "final_kib": final, "growth_after_warmup_kib": grown,
            "spread_after_warmup_kib": max(samples[1:] or samples) - min(samples[1:] or samples)}


def growth(samples: list[int]) -> tuple[int, int, int]:
    """(warm-up RSS, final RSS, growth) in KiB. Warm-up ends with the first tenth of the run (the
    bundles, instances and caches are made by then); the RSS then moves up and down with the large
    requests (a 1 MiB line, 256 KiB commands). So both ends are medians of three samples (the
    first three after warm-up, the last three), and the growth is their difference: a leak grows
    it with the run's length, a passing spike does not."""
    after = samples[max(1, len(samples) // 10):] or samples
    head, tail = sorted(after[:3]), sorted(after[-3:])
    warm, final = head[len(head) // 2], tail[len(tail) // 2]
    return warm, final, final - warm


def _kind(i: int, plain: bool) -> str:
    """What request `i` must be answered with (as `request` makes it, without making the line)."""
    if plain:
        return ("allow", "deny")[i % 2]
    if i % 1000 == 999:
        return "fail"
    if i % 100 == 99:
        return "allow"
    return ("allow", "deny", "allow", "allow", "fail", "fail")[i % 6]


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
    grown = out["growth_after_warmup_kib"] / 1024
    print(f"{args.requests} {'plain' if args.plain else 'mixed'} requests (both harnesses) in {out['seconds']} s, "
          f"load average {os.getloadavg()[0]:.1f}: RSS MiB {mib}; warm-up {out['warm_up_kib'] / 1024:.1f} MiB, "
          f"final {out['final_kib'] / 1024:.1f} MiB, growth after warm-up {grown:.2f} MiB (goal <= 1 MiB: "
          f"{'met' if grown <= 1 else 'OVER'}), spread after warm-up {out['spread_after_warmup_kib'] / 1024:.1f} MiB")


if __name__ == "__main__":
    main()
