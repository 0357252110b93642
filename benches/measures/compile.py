"""(4) Compile: Rego source → native code, per stage (parse, compile passes, plan, WASM
codegen with the runtime link, wasmtime native compilation without the native-code cache),
for 1, 25 and 100 generated policies plus the shipped system aggregator, alternated per
round; the 25 Cupcake-size policies of benches/compile_policies.py (issue 4: ≤ 1 s); the
engine's bundle build for the typical project (cache miss) and its cache-hit path (bundle
file read + native code deserialized), in process.
"""

from __future__ import annotations

import statistics
import time
from pathlib import Path
from typing import Any

from measures import cold_eval, projects
from measures.common import REPO, Context, environ, goal, per_call, product_import, summary

GOAL_25 = 1.0  # issue 4: seconds, source → native for 25 Cupcake-size policies


def generated_sources(n: int) -> list[tuple[str, str]]:
    srcs = [(f"p{i:04d}.rego", projects.policy_source(i)) for i in range(n)]
    return srcs + [(f.name, f.read_text()) for f in sorted((REPO / "policies/system").glob("*.rego"))]


def stage_medians(runs: list[dict[str, float]]) -> dict[str, float]:
    return {stage: round(statistics.median(r[stage] for r in runs) * 1000, 2) for stage in runs[0]}


def run(ctx: Context) -> dict[str, Any]:
    cp = product_import("benches/compile_policies.py (the compiler pipeline)", lambda: __import__("compile_policies"))
    sizes = ctx.pick((1, 25), (1, 25, 100))
    rounds = ctx.pick(1, 3)
    inputs: dict[str, list[tuple[str, str]]] = {f"{n} generated": generated_sources(n) for n in sizes}
    inputs["25 Cupcake-size (compile_policies.py)"] = cp.sources()
    cp.run_once(inputs[f"{sizes[0]} generated"])  # warm-up: imports, runtime load
    runs: dict[str, list[dict[str, float]]] = {k: [] for k in inputs}
    names = list(inputs)
    for r in range(rounds):
        for k in names[r % len(names):] + names[:r % len(names)]:
            runs[k].append(cp.run_once(inputs[k]))
    table = {k: {"modules": len(inputs[k]), "lines": sum(t.count("\n") for _, t in inputs[k]),
                 "runs": len(v), "stages_ms": stage_medians(v)} for k, v in runs.items()}
    out: dict[str, Any] = {"source_to_native": table}
    out.update(bundle_paths(ctx))
    t25 = table["25 Cupcake-size (compile_policies.py)"]["stages_ms"]["total"] / 1000
    tg = table["25 generated"]["stages_ms"]["total"] / 1000
    out["goals"] = [goal(4, f"source → native, 25 Cupcake-size policies ≤ {GOAL_25:g} s", f"{t25:.2f} s",
                         t25 <= GOAL_25),
                    goal(4, f"source → native, 25 generated policies ≤ {GOAL_25:g} s (same goal, our policies)",
                         f"{tg:.2f} s", tg <= GOAL_25)]
    hit = out["bundle_cache_hit"]["variants"]
    out["headline"] = (f"25 Cupcake-size policies → native in {t25:.2f} s; bundle cache hit "
                       f"{hit['bundle.load (cache hit)']['median']:.1f} ms + native code "
                       f"{hit['PolicyModule.load (native-code cache hit)']['median']:.1f} ms")
    return out


def bundle_paths(ctx: Context) -> dict[str, Any]:
    """The engine's own paths for the typical project: full build (miss) and cache hit."""
    setup = projects.typical(ctx, cold_eval.eval_cmd(), n=10)
    with environ(ctx.env):
        from cupcake_py.engine import bundle as bundles
        from cupcake_py.engine.project import find_project
        from cupcake_py.host import HostOptions, PolicyModule

        cfg = find_project(str(setup.project))
        t0 = time.perf_counter()
        built, _ = bundles.load(cfg, use_cache=False)
        miss_s = time.perf_counter() - t0
        calls = ctx.pick(10, 60)
        hit = {"bundle.load (cache hit)": summary(per_call(lambda: bundles.load(cfg), calls)),
               "PolicyModule.load (native-code cache hit)":
                   summary(per_call(lambda: PolicyModule.load(built.wasm, HostOptions()), calls))}
        no_cache = HostOptions(cache_dir=None)
        native = summary(per_call(lambda: PolicyModule.load(built.wasm, no_cache), ctx.pick(1, 3)))
    return {"bundle_build_miss": {"what": "builtins + 10 generated policies, rulebook → bundle (no cache)",
                                  "seconds": round(miss_s, 3), "wasm_bytes": len(built.wasm),
                                  "builtins_left_out": sorted(setup.dropped)},
            "bundle_cache_hit": {"variants": hit},
            "native_compile_no_cache": native,
            "project": str(Path(setup.project).name)}
