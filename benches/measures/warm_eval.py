"""(3) Warm in-process decision: the engine's modules imported once, the same event decided
again and again in one process (what a long-lived host or server would pay per tool call).

Three granularities, alternated:
- full decision: `Evaluation.run` (validate, discover, bundle cache hit, route, preprocess,
  signals, module load from the native-code cache, instantiate, WASM, synthesis);
- instantiate + evaluate: a fresh instance of the already loaded module, one evaluation;
- policy evaluation only: one `eval_raw` on a reused instance with the engine's policy input.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from measures import cold_eval, projects
from measures.common import Context, Unavailable, alternate, environ, goal, product_import, summary


class WarmEngine:
    """The engine driven in-process on one project and event."""

    def __init__(self, project: Path, event_json: bytes, global_config: Path | None) -> None:
        def imports() -> Any:
            from cupcake_py.engine import bundle
            from cupcake_py.engine.evaluator import Evaluation
            from cupcake_py.engine.observe import Trace
            from cupcake_py.engine.options import EvalOptions
            from cupcake_py.engine.project import find_project
            from cupcake_py.engine.routed_aggregator import entrypoint
            from cupcake_py.host import HostOptions, PolicyModule

            return bundle, Evaluation, Trace, EvalOptions, find_project, HostOptions, PolicyModule, entrypoint

        (self.bundles, self.Evaluation, self.Trace, EvalOptions, find_project, HostOptions,
         self.PolicyModule, self.aggregator) = product_import("the engine (cupcake_py.engine)", imports)
        glob = dict(global_config=str(global_config)) if global_config else dict(no_global=True)
        self.opts = EvalOptions(policy_dir=str(project), timeout=60.0, **glob)
        self.raw = event_json
        dbg = self.Evaluation(EvalOptions(policy_dir=str(project), timeout=60.0, debug_files=True, **glob),
                              self.Trace())
        self.final = dbg.run(event_json)
        self.policy_input = dbg.trace.notes.get("project policy input")
        self.bundle, _ = self.bundles.load(find_project(str(project)))
        self.host_options = HostOptions(deadline=60.0)
        self.module = self.PolicyModule.load(self.bundle.wasm, self.host_options) if self.bundle.wasm else None

    def decide(self) -> None:
        self.Evaluation(self.opts, self.Trace()).run(self.raw)

    def variants(self) -> dict[str, Callable[[], None]]:
        out: dict[str, Callable[[], None]] = {"full decision (Evaluation.run)": self.decide}
        if self.module is None or self.policy_input is None:
            return out
        import orjson

        inp = orjson.dumps(self.policy_input)
        inst = self.module.instantiate()
        ep = self.aggregator(inst.entrypoints)
        out["instantiate + evaluate"] = lambda: self.module.instantiate().eval_raw(ep, input_json=inp)
        out["policy evaluation only (instance reused)"] = lambda: inst.eval_raw(ep, input_json=inp)
        return out




    def host_calls(self) -> dict[str, Any]:
        """Host-builtin calls of one policy evaluation: count per builtin and the time spent inside
        the Python implementations (the rest of a call's cost is crossing the WASM boundary)."""
        if self.module is None or self.policy_input is None:
            return {}
        import orjson

        from cupcake_py.host.builtins import lookup

        counts: Counter[str] = Counter()
        spent: Counter[str] = Counter()

        def wrap(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
            def call(bctx: Any, *args: Any) -> Any:
                counts[name] += 1
                t0 = time.perf_counter()
                try:
                    return fn(bctx, *args)
                finally:
                    spent[name] += time.perf_counter() - t0

            return call

        names = set(self.module.summary().builtins.values())
        inst = self.module.instantiate(builtins={n: wrap(n, b.fn) for n in names if (b := lookup(n)) is not None})
        t0 = time.perf_counter()
        inst.eval_raw(self.aggregator(inst.entrypoints), input_json=orjson.dumps(self.policy_input))
        total = time.perf_counter() - t0
        return {"calls": sum(counts.values()), "by_builtin": dict(counts.most_common(6)),
                "python_ms": round(sum(spent.values()) * 1000, 2), "evaluation_ms": round(total * 1000, 2)}


def run(ctx: Context) -> dict[str, Any]:
    setup = projects.typical(ctx, cold_eval.eval_cmd(), n=10)
    with environ(ctx.env):
        engine = WarmEngine(setup.project, setup.stdin, Path(ctx.env["XDG_CONFIG_HOME"]) / "cupcake")
        if engine.final.kind != setup.response.get("decision"):
            raise Unavailable(f"in-process decision {engine.final.kind!r} differs from the process's "
                              f"{setup.response!r}")
        samples = alternate(engine.variants(), rounds=ctx.pick(20, 300), warmup=ctx.pick(1, 2),
                            budget_s=ctx.pick(1, 25))
        host = engine.host_calls()
    stats = {k: summary(v, "us") for k, v in samples.items()}
    full = stats["full decision (Evaluation.run)"]
    return {"variants": stats, "decision": engine.final.kind, "builtins_left_out": setup.dropped,
            "host_calls_one_evaluation": host,
            "goals": [goal(10, "warm in-process decision: median µs (reported)", f"{full['median']:.0f} µs", None)],
            "headline": f"warm decision {full['median']:.0f} µs median (p90 {full['p90']:.0f} µs)"}
