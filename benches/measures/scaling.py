"""(5) Scaling: eval latency with 10 / 100 / 1000 generated policies (no builtins, no global
config, so the curve shows the policies alone). Per size: the bundle build time (in process,
cache miss), the cold `cupcake eval` process (sizes alternated in each round), and the warm
in-process decision and policy evaluation (measure 3's engine driver).
"""

from __future__ import annotations

import json
import time
from typing import Any

from measures import cold_eval, projects, warm_eval
from measures.common import Context, alternate, environ, goal, process, run_json, summary


def run(ctx: Context) -> dict[str, Any]:
    sizes = ctx.pick((10, 100), (10, 100, 1000))
    cmd = [*cold_eval.eval_cmd(), "--no-global"]
    rows: dict[int, dict[str, Any]] = {}
    cold: dict[str, Any] = {}
    for n in sizes:
        project = projects.make_project(ctx.work / f"scale-{n}", n, builtins=False)
        event = json.dumps(projects.bash_event(project)).encode()
        with environ(ctx.env):
            from cupcake_py.engine import bundle as bundles
            from cupcake_py.engine.project import find_project

            t0 = time.perf_counter()
            built, _ = bundles.load(find_project(str(project)))
            build_s = time.perf_counter() - t0
        resp = run_json(cmd, event, project, ctx.env)
        with environ(ctx.env):
            engine = warm_eval.WarmEngine(project, event, None)
            warm = alternate(engine.variants(), rounds=ctx.pick(10, 100), warmup=1, budget_s=ctx.pick(0.5, 12))
        rows[n] = {"policies": n, "routed": projects.routed_count(n), "bundle_build_s": round(build_s, 3),
                   "wasm_bytes": len(built.wasm), "decision": resp,
                   "warm": {k: summary(v, "us") for k, v in warm.items()}}
        cold[f"{n} policies"] = process(cmd, event, project, ctx.env)
    samples = alternate(cold, rounds=ctx.pick(2, 7), warmup=ctx.pick(0, 1), min_rounds=2)
    for n in sizes:
        rows[n]["cold_process"] = summary(samples[f"{n} policies"])
    lo, hi = rows[sizes[0]], rows[sizes[-1]]
    growth = hi["cold_process"]["median"] / lo["cold_process"]["median"]
    key = "policy evaluation only (instance reused)"
    per_policy = None
    if key in hi["warm"] and key in lo["warm"]:
        per_policy = (hi["warm"][key]["median"] - lo["warm"][key]["median"]) / (hi["routed"] - lo["routed"])
    return {"sizes": list(sizes), "rows": {str(n): r for n, r in rows.items()},
            "marginal_us_per_routed_policy": None if per_policy is None else round(per_policy, 2),
            "goals": [goal(10, f"eval latency {sizes[0]} → {sizes[-1]} policies (reported)",
                           f"cold {lo['cold_process']['median']:.0f} → {hi['cold_process']['median']:.0f} ms "
                           f"({growth:.2f}×)", None)],
            "headline": (f"cold eval {lo['cold_process']['median']:.0f} ms at {sizes[0]} policies, "
                         f"{hi['cold_process']['median']:.0f} ms at {sizes[-1]}")}
