"""(6) Same policy and input, same process: our compiled WASM module (instance reused,
`eval_raw` with the input JSON) vs regorus (`gordon-to-regorus`, a Rust interpreter;
`set_input_json` + `eval_rule`). Batches alternate between the engines; results are checked
equal before timing. Workloads: one small rule, and the 10 generated policies plus the shipped
aggregator (`data.cupcake.system.evaluate`) on the typical Bash event and on an event that
makes policies fire. Besides wall time, the CPU time of this thread per evaluation (both
engines run in it; steadier than wall time on a busy machine).
"""

from __future__ import annotations

import json
import time
from typing import Any

from measures import projects
from measures.common import REPO, Context, Unavailable, alternate, environ, goal, product_import, summary

TINY = """package bench.tiny

import rego.v1

deny contains msg if {
	some word in split(input.tool_input.command, " ")
	startswith(word, "rm")
	msg := sprintf("no %s", [word])
}
"""


def workloads() -> list[dict[str, Any]]:
    # the aggregator alone: regorus rejects the shipped helper library (policies/system/commands.rego)
    system = [("evaluate.rego", (REPO / "policies/system/evaluate.rego").read_text())]
    gen = [(f"p{i:04d}.rego", projects.policy_source(i)) for i in range(10)] + system
    typical = {"tool_name": "Bash", "tool_input": {"command": projects.TYPICAL_COMMAND}, "hook_event_name": "PreToolUse",
               "agent": "build"}
    firing = {**typical, "tool_input": {"command": "tool0 --force && wipe0 && deploy-1 now"}}
    return [
        {"name": "one rule (split + startswith + sprintf)", "sources": [("tiny.rego", TINY)],
         "entrypoint": "bench/tiny/deny", "input": {"tool_input": {"command": "rm -rf build && ls"}}},
        {"name": "10 generated policies + aggregator, typical event", "sources": gen,
         "entrypoint": "cupcake/system/evaluate", "input": typical},
        {"name": "10 generated policies + aggregator, firing event", "sources": gen,
         "entrypoint": "cupcake/system/evaluate", "input": firing},
    ]


def canon(v: Any) -> str:
    """Order-insensitive form of a result (sets come back as arrays in either engine's order)."""
    if isinstance(v, dict):
        return "{" + ",".join(f"{json.dumps(k)}:{canon(x)}" for k, x in sorted(v.items())) + "}"
    if isinstance(v, list):
        return "[" + ",".join(sorted(canon(x) for x in v)) + "]"
    return json.dumps(v)


def fired(result: Any) -> bool:
    """Whether any decision came out (a non-empty set, or any non-empty verb of the aggregator)."""
    if isinstance(result, dict):
        return any(bool(v) for v in result.values())
    return bool(result)


def run(ctx: Context) -> dict[str, Any]:
    # the run's isolated cache and config homes, as every other in-process measure: the native-code cache is
    # MAC'd with the key of the config home, so the cache dir and the key must come from one environment
    with environ(ctx.env):
        return _run(ctx)


def _run(ctx: Context) -> dict[str, Any]:
    regorus = product_import("regorus (pip gordon-to-regorus, in the dev extra)", lambda: __import__("regorus"))

    def imports() -> Any:
        import orjson

        from cupcake_py.host import HostOptions, PolicyModule
        from cupcake_py.plan import compile_entrypoints
        from cupcake_py.rego import parse_module
        from cupcake_py.wasm import compile_policy

        return orjson, HostOptions, PolicyModule, compile_entrypoints, parse_module, compile_policy

    orjson, HostOptions, PolicyModule, compile_entrypoints, parse_module, compile_policy = product_import(
        "the compiler and host", imports)
    batch = ctx.pick(20, 200)
    rows = []
    for w in workloads():
        modules = [parse_module(text, name) for name, text in w["sources"]]
        inst = PolicyModule(compile_policy(compile_entrypoints(modules, [w["entrypoint"]])),
                            HostOptions(deadline=60.0)).instantiate()
        eng = regorus.Engine()
        for name, text in w["sources"]:
            eng.add_policy(name, text)
        inp = json.dumps(w["input"])
        inp_b = inp.encode()
        rule = "data." + w["entrypoint"].replace("/", ".")

        def ours(inst: Any = inst, inp_b: bytes = inp_b, ep: str = w["entrypoint"]) -> Any:
            return inst.eval_raw(ep, input_json=inp_b)

        def theirs(eng: Any = eng, inp: str = inp, rule: str = rule) -> Any:
            eng.set_input_json(inp)
            return eng.eval_rule_as_json(rule)

        got_ours = orjson.loads(ours())[0]["result"]
        got_theirs = json.loads(theirs())
        if canon(got_ours) != canon(got_theirs):
            raise Unavailable(f"{w['name']}: results differ, not comparable: ours {got_ours!r} regorus {got_theirs!r}")

        def times(fn: Any) -> Any:
            return lambda: [fn() for _ in range(batch)]

        cpu: dict[str, list[float]] = {}
        samples = alternate({"ours (WASM)": times(ours), "regorus": times(theirs)}, rounds=ctx.pick(3, 15),
                            warmup=1, budget_s=ctx.pick(1, 8), cpu=cpu, cpu_clock=time.thread_time)
        stats = {k: summary([s / batch for s in v], "us") for k, v in samples.items()}
        cpu_stats = {k: summary([s / batch for s in v], "us") for k, v in cpu.items()}
        eps = {k: round(1e6 / s["median"]) for k, s in stats.items()}
        rows.append({"workload": w["name"], "per_eval": stats, "evals_per_second": eps,
                     "ratio_ours_over_regorus": round(eps["ours (WASM)"] / eps["regorus"], 3),
                     "cpu_per_eval": cpu_stats,
                     "cpu_ratio_ours_over_regorus": round(cpu_stats["regorus"]["median"]
                                                          / cpu_stats["ours (WASM)"]["median"], 3),
                     "policies_fired": fired(got_ours)})
    main = rows[1]
    r = main["ratio_ours_over_regorus"]
    return {"batch": batch, "rows": rows,
            "goals": [goal(10, "evaluations per second, ours vs regorus (reported; > 1× = ours faster)",
                           f"{r:.2f}× on the 10-policy workload", None)],
            "headline": (f"10 policies: ours {main['evals_per_second']['ours (WASM)']}/s vs regorus "
                         f"{main['evals_per_second']['regorus']}/s ({r:.2f}×)")}
