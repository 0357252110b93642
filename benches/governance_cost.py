"""What governance adds to a cold `cupcake eval`: the stateless path, audit writes, and
audit + the history signal (rate_limit, escalation, loop_guard), side by side.

    .venv/bin/python benches/governance_cost.py [--runs 15] [--log-rows 100000]

Five copies of one project (a routed Bash policy plus a probe policy): `audit: off`, a
rulebook without the `audit` key (the default: on), `audit: on` (one hash-chained record per
eval), `audit: on` with the probe requiring the `history` signal, and the three history
builtins instead of the probe.
The governance database is first filled with --log-rows records of other sessions, so the
numbers include a big log (history queries must not grow with it). Runs are interleaved; prints
medians of wall and child CPU time and the difference to the stateless path, plus in-process
timings of the history read and the audit write alone (best of 200), and the median of the
engine's own `signals` phase (history read including opening the database) from the audit
records.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from benches.eval_cold import timed  # noqa: E402
from cupcake_py.harness.opencode.examples import cupcake_command  # noqa: E402

POLICY = """# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
package cupcake.policies.opencode.no_rm

import rego.v1

deny contains {"rule_id": "NO-RM", "reason": "no rm -rf", "severity": "HIGH"} if {
	contains(input.tool_input.command, "rm -rf")
}
"""

PROBE = """# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]{signals}
package cupcake.policies.opencode.probe

import rego.v1

deny contains {{"rule_id": "PROBE", "reason": "too many calls", "severity": "LOW"}} if {{
	input.history.session.windows["1m"].calls > 100000
}}
"""

# name -> (rulebook, probe policy reads input.history)
RULEBOOKS = {
    "stateless (audit: off)": ("audit: off\n", False),
    "default (no audit key: on)": ("", False),
    "audit: on (write)": ("audit: on\n", False),
    "audit: on + history signal": ("audit: on\n", True),
    "history builtins (read+write)": (("builtins:\n  rate_limit: {limits: [{tools: [Bash], max_calls: 1000}]}\n"
                                      "  escalation: {}\n  loop_guard: {max_repeats: 50}\n"), False),
}


def _fill(db: str, rows: int) -> None:
    from cupcake_py.governance import chain, store
    from cupcake_py.governance.audit import evaluation_row

    conn = store.connect(db, 5.0)
    now = time.time()

    def tx(c: object) -> None:
        for i in range(rows):
            ev = {"hook_event_name": "PreToolUse", "session_id": f"old{i % 200}", "tool_name": "Bash",
                  "tool_input": {"command": f"echo {i}"}}
            chain.append(c, evaluation_row(ev, "opencode", "/elsewhere", "allow", [], None, None, {}, "k",  # type: ignore[arg-type]
                                           now - 86400 + i * 0.5))

    store.write(conn, tx, 60.0)
    store.close_all()


def _in_process(db: str, project: str) -> tuple[float, float]:
    """(best history read, best audit write) in seconds, in this process."""
    from cupcake_py.governance import audit, history, store
    from cupcake_py.governance.settings import DEFAULT_WINDOWS

    settings = {"mode": "on", "retention_days": 30, "max_rows": 10**9, "write_budget_ms": 1000, "history_last_n": 50,
                "windows": list(DEFAULT_WINDOWS), "timeout_rules": {"BUILTIN-ESCALATION": 600}}
    conn = store.connect(db, 1.0)
    ev = {"hook_event_name": "PreToolUse", "session_id": "bench-inproc", "tool_name": "Bash",
          "tool_input": {"command": "ls -la"}}
    reads, writes = [], []
    for _ in range(200):
        now = time.time()
        t0 = time.perf_counter()
        history.gather(conn, settings, ev, project, now)
        t1 = time.perf_counter()
        audit.write_evaluation(settings, audit.evaluation_row(ev, "opencode", project, "allow", [], None, None, {},
                                                              "k", now), now, db)
        t2 = time.perf_counter()
        reads.append(t1 - t0)
        writes.append(t2 - t1)
    store.close_all()
    return min(reads), min(writes)


COLD = """
import sys, time, re, functools  # re/functools: already loaded on a routed Bash evaluation
import cupcake_py.engine.evaluator, cupcake_py.harness.opencode.preprocess, cupcake_py.host
pt = time.process_time
c0 = pt()
from cupcake_py.governance import store, history
c1 = pt()
conn = store.connect(None, 0.25)
c2 = pt()
s = {"windows": [1, 5, 60], "timeout_rules": {}, "history_last_n": 10}
history.gather(conn, s, {"session_id": "cold", "tool_name": "Bash", "tool_input": {"command": "ls"}}, sys.argv[1],
               time.time())
c3 = pt()
print(f"{(c1 - c0) * 1e3:.3f} {(c2 - c1) * 1e3:.3f} {(c3 - c2) * 1e3:.3f}")
"""


def _cold_breakdown(env: dict[str, str], project: str, runs: int) -> list[float]:
    """CPU ms of (imports, opening the database, the queries) in fresh processes: medians."""
    rows = [[float(x) for x in subprocess.run([sys.executable, "-c", COLD, project], capture_output=True, text=True,
                                               env=env, check=True).stdout.split()] for _ in range(runs + 1)][1:]
    return [statistics.median(col) for col in zip(*rows, strict=True)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--log-rows", type=int, default=100_000)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        env = dict(os.environ, XDG_CACHE_HOME=str(root / "cache"), XDG_CONFIG_HOME=str(root / "config"),
                   XDG_STATE_HOME=str(root / "state"))
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        (root / "config").mkdir()
        db = str(root / "state" / "cupcake-py" / "governance.sqlite3")
        os.environ["XDG_STATE_HOME"] = env["XDG_STATE_HOME"]
        t0 = time.perf_counter()
        _fill(db, args.log_rows)
        print(f"filled the log with {args.log_rows} records in {time.perf_counter() - t0:.1f} s")
        eval_cmd = [*cupcake_command(), "eval", "--harness", "opencode"]
        events: dict[str, tuple[Path, bytes]] = {}
        for i, (name, (rulebook, reads_history)) in enumerate(RULEBOOKS.items()):
            project = root / f"p{i}"
            (project / ".cupcake/policies/opencode").mkdir(parents=True)
            (project / ".cupcake/policies/opencode/no_rm.rego").write_text(POLICY)
            if not name.startswith("history builtins"):  # the same probe policy in rows 1-4
                signals = '\n#     required_signals: ["history"]' if reads_history else ""
                (project / ".cupcake/policies/opencode/probe.rego").write_text(PROBE.format(signals=signals))
            (project / ".cupcake/rulebook.yml").write_text(rulebook)
            ev = {"hook_event_name": "PreToolUse", "session_id": f"bench{i}", "cwd": str(project), "tool": "bash",
                  "args": {"command": "ls -la"}}
            events[name] = (project, json.dumps(ev).encode())
            _, _, out = timed(eval_cmd, events[name][1], project, env)
            print(f"warm-up {name}: {out.decode().strip()}")
        wall: dict[str, list[float]] = {k: [] for k in events}
        cpu: dict[str, list[float]] = {k: [] for k in events}
        for _ in range(args.runs):
            for name, (project, stdin) in events.items():
                w, c, _ = timed(eval_cmd, stdin, project, env)
                wall[name].append(w)
                cpu[name].append(c)
        base = "stateless (audit: off)"
        bw, bc = statistics.median(wall[base]), statistics.median(cpu[base])
        print(f"{'':32} {'wall median ms':>14} {'+ms':>7} {'vs prev':>8}   {'CPU median ms':>13} {'+ms':>7} "
              f"{'vs prev':>8}")
        prev_w, prev_c = bw, bc
        for name in events:
            w, c = statistics.median(wall[name]), statistics.median(cpu[name])
            print(f"{name:32} {w * 1000:14.1f} {(w - bw) * 1000:7.1f} {(w - prev_w) * 1000:8.1f}   {c * 1000:13.1f} "
                  f"{(c - bc) * 1000:7.1f} {(c - prev_c) * 1000:8.1f}")
            prev_w, prev_c = w, c
        print("  rows 1-4 evaluate the same two policies: rows 2 and 3 - row 1 = the audit write (by default and "
              "said), row 4 - row 3 = the history signal; row 5 evaluates the three history builtins instead of "
              "the probe policy")
        from cupcake_py.governance import store

        conn = store.connect(db, 5.0)
        phases = [json.loads(t) for (t,) in conn.execute("SELECT timings FROM audit WHERE session_id = 'bench3'")]
        store.close_all()
        sig = statistics.median(p.get("signals", 0.0) for p in phases)
        print(f"the engine's own `signals` phase (history read incl. connect), median of {len(phases)}: {sig:.2f} ms")
        read, write = _in_process(db, str(root / "p3"))
        print(f"in-process, {args.log_rows}-record log: history read {read * 1000:.2f} ms, "
              f"audit write {write * 1000:.2f} ms (best of 200)")
        imports, opening, queries = _cold_breakdown(env, str(root / "p3"), args.runs)
        print(f"history signal from cold, CPU medians: imports {imports:.2f} ms + opening the database "
              f"{opening:.2f} ms + queries {queries:.2f} ms = {imports + opening + queries:.2f} ms (goal ≤ 3 ms)")
        imp = subprocess.run([sys.executable, "-X", "importtime", "-c",
                              "import cupcake_py.governance.history, cupcake_py.governance.audit"],
                             capture_output=True, text=True, env=env).stderr.splitlines()
        print("import cost (cumulative us):", ", ".join(
            f"{line.split('|')[2].strip()} {line.split('|')[1].strip()}" for line in imp
            if line.rstrip().endswith(("sqlite3", "governance.history", "governance.audit", "governance.redact"))))
        print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs, {args.runs} runs each")


if __name__ == "__main__":
    main()
