"""Source -> native code for ONE large policy: N partial-set rules in one package (issue 15's
20,000-rule case; goal <= 5 s, and a module wasmtime accepts).

    .venv/bin/python benches/compile_large.py [--rules 20000] [--runs 1] [--profile]

Stages, each timed with the cyclic GC paused as `cupcake eval` pauses it for a bundle build:
parse, compile + plan, WASM codegen (with the runtime link), wasmtime native compilation (no
native-code cache). Wall-clock and this process's CPU time (user + system, all threads: steadier
on a busy machine; wasmtime compiles on several threads, so its CPU time can exceed wall time).
--profile prints the top cProfile entries of one run instead.
"""

from __future__ import annotations

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

HEAD = """# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
package cupcake.policies.large

import rego.v1

"""


def large_policy(n: int) -> str:
    rule = 'deny contains {{"rule_id": "R{i}", "reason": "no cmd{i}"}} if {{\n\tinput.tool_input.command == "cmd{i}"\n}}\n\n'
    return HEAD + "".join(rule.format(i=i) for i in range(n))


def run_once(text: str) -> dict[str, float]:
    from cupcake_py.host import HostOptions, PolicyModule
    from cupcake_py.plan import compile_entrypoints
    from cupcake_py.rego import parse_module
    from cupcake_py.wasm import compile_policy

    system = [parse_module(f.read_text(), f.name) for f in sorted((REPO / "policies/system").glob("*.rego"))
              if not f.name.endswith("_test.rego")]
    t: dict[str, float] = {}
    clock = [time.perf_counter(), time.process_time()]

    def lap(stage: str) -> None:
        now = [time.perf_counter(), time.process_time()]
        t[stage], t[stage + " cpu"] = now[0] - clock[0], now[1] - clock[1]
        clock[:] = now

    gc.disable()
    try:
        module = parse_module(text, "large.rego")
        lap("parse")
        policy = compile_entrypoints([module, *system], ["cupcake/system/evaluate"])
        lap("plan")
        wasm = compile_policy(policy)
        lap("codegen")
        PolicyModule(wasm, HostOptions(cache_dir=None))
        lap("native")
    finally:
        gc.enable()
    t["total"] = sum(v for k, v in t.items() if not k.endswith(" cpu"))
    t["total cpu"] = sum(v for k, v in t.items() if k.endswith(" cpu"))
    return t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rules", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    text = large_policy(args.rules)
    if args.profile:
        import cProfile
        import pstats

        cProfile.runctx("run_once(text)", globals(), {"text": text}, "/tmp/compile_large.prof")
        pstats.Stats("/tmp/compile_large.prof").sort_stats("tottime").print_stats(25)
        return
    runs = [run_once(text) for _ in range(args.runs)]
    print(f"{args.rules} rules, {len(text) // 1024} KiB of Rego, {args.runs} run(s) (medians):")
    for stage in runs[0]:
        print(f"  {stage:12s} {statistics.median(r[stage] for r in runs):8.2f} s")
    total = statistics.median(r["total"] for r in runs)
    print(f"source -> native code: {total:.2f} s wall (goal <= 5 s): {'ok' if total <= 5.0 else 'OVER'}; "
          f"load average {__import__('os').getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
