"""(1) Cold `cupcake eval --harness opencode`: a new process per event, warm bundle cache, on a
typical PreToolUse Bash event against the shipped builtins (project + global) and 10
generated policies; alternated with `python -c "import wasmtime"` (the floor: a Python that
can run WebAssembly) and `python -c pass`. Full runs add the two reference points of
benches/eval_cold.py: the routing-miss path (no WASM at all) and a routed Read against its one
policy that needs no host builtins (what importing the host builtin library costs).
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from typing import Any

from measures import projects
from measures.common import Context, alternate, cupcake_cmd, goal, process, ratio, run_json, summary

GOAL = 1.25  # issue 6: cold eval / import wasmtime
FLOOR = "python -c 'import wasmtime'"
EMPTY = "python -c pass"


def eval_cmd() -> list[str]:
    return [*cupcake_cmd(), "eval", "--harness", "opencode"]


def phase_trace(setup: projects.Setup) -> dict[str, float]:
    """`--trace all` of one run: milliseconds per engine phase (where the time goes), and the
    run's own wall time (`process`), so the time outside the traced phases can be told."""
    t0 = time.perf_counter()
    proc = subprocess.run([*eval_cmd(), "--trace", "all"], input=setup.stdin, capture_output=True,
                          cwd=setup.project, env=setup.env, timeout=120)
    wall = (time.perf_counter() - t0) * 1000
    line = next((ln for ln in proc.stderr.decode().splitlines() if ln.startswith("cupcake trace:")), "")
    phases = {k: float(v) for k, v in re.findall(r"(\w+)=([\d.]+)ms", line)}
    return {**phases, "process": round(wall, 2)} if phases else {}


def floors(ctx: Context, setup: projects.Setup) -> dict[str, Any]:
    return {
        EMPTY: process([ctx.python, "-c", "pass"], cwd=setup.project, env=setup.env),
        FLOOR: process([ctx.python, "-c", "import wasmtime"], cwd=setup.project, env=setup.env),
    }


def compare(ctx: Context, setup: projects.Setup, label: str, extra: dict[str, Any] | None = None) -> dict[str, Any]:
    """Alternate the floors with `cupcake eval` (and `extra` variants); stats and ratios."""
    variants = {**floors(ctx, setup), label: process(eval_cmd(), setup.stdin, setup.project, setup.env)}
    variants.update(extra or {})
    cpu: dict[str, list[float]] = {}
    samples = alternate(variants, rounds=ctx.pick(2, 31), warmup=ctx.pick(0, 1), min_rounds=2, cpu=cpu)
    trace = {} if ctx.quick else phase_trace(setup)  # --quick: one eval less
    stats = {k: summary(v) for k, v in samples.items()}
    cpu_stats = {k: summary(v) for k, v in cpu.items()}
    floor, empty = stats[FLOOR], stats[EMPTY]
    return {
        "variants": stats,
        "cpu": cpu_stats,
        "ratios": {k: {"vs_import_wasmtime": ratio(s, floor), "vs_python_pass": ratio(s, empty),
                       "cpu_vs_import_wasmtime": ratio(cpu_stats[k], cpu_stats[FLOOR])}
                   for k, s in stats.items()},
        "decision": setup.response,
        "phases_ms_one_run": trace,
        "builtins_left_out": setup.dropped,
    }


def references(ctx: Context, setup: projects.Setup) -> dict[str, Any]:
    """eval_cold.py's routing miss and no-host-builtins project, as extra variants."""
    import eval_cold

    miss = {**setup.event, "hook_event_name": "PermissionRequest"}
    native = ctx.work / "no-host-builtins"
    (native / ".cupcake/policies/opencode").mkdir(parents=True)
    (native / ".cupcake/policies/opencode/read.rego").write_text(eval_cold.NATIVE_POLICY)
    read = {**setup.event, "cwd": str(native), "tool": "read", "args": {"filePath": str(native / "app.py")}}
    read_in = json.dumps(read).encode()
    cmd = [*eval_cmd(), "--no-global"]
    run_json(cmd, read_in, native, setup.env)  # warm its bundle cache
    return {"cupcake eval, routing miss (no WASM)": process(eval_cmd(), json.dumps(miss).encode(), setup.project,
                                                            setup.env),
            "cupcake eval, 1 policy without host builtins (Read)": process(cmd, read_in, native, setup.env)}


def run(ctx: Context) -> dict[str, Any]:
    setup = projects.typical(ctx, eval_cmd(), n=10)
    label = "cupcake eval (builtins + 10 policies)"
    out = compare(ctx, setup, label, {} if ctx.quick else references(ctx, setup))
    r = out["ratios"][label]["vs_import_wasmtime"]
    out["policies"] = {"generated": 10, "routed_generated": projects.routed_count(10),
                       "project_builtins": [b for b in projects.PROJECT_BUILTINS if b not in setup.dropped],
                       "global_builtins": [b for b in projects.GLOBAL_BUILTINS if b not in setup.dropped]}
    out["goals"] = [goal(6, f"cold eval / import wasmtime ≤ {GOAL}×", f"{r:.2f}×", r <= GOAL)]
    cpu_r = out["ratios"][label]["cpu_vs_import_wasmtime"]
    out["headline"] = (f"cold eval {out['variants'][label]['median']:.0f} ms median = {r:.2f}× import wasmtime "
                       f"({out['variants'][FLOOR]['median']:.0f} ms); CPU time {cpu_r:.2f}×")
    return out
