"""Source -> native code for 25 Cupcake-size policies (goal: <= 1 s in total).

    .venv/bin/python benches/compile_policies.py [--runs 5]

The 25 policies are the example project's policies (harness/opencode/examples/engine-project)
repeated under distinct package names, plus the system aggregator (policies/system). Stages
timed per run, in one process after a warm-up: parse, compile passes, plan, WASM codegen
(with the runtime link), and wasmtime native compilation (no native-code cache). Prints the
medians and the total.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

EXAMPLES = REPO / "harness/opencode/examples/engine-project/.cupcake/policies"
N_POLICIES = 25


def sources() -> list[tuple[str, str]]:
    base = sorted(EXAMPLES.rglob("*.rego"))
    out: list[tuple[str, str]] = []
    for i in range(N_POLICIES):
        f = base[i % len(base)]
        text = f.read_text()
        if i >= len(base):
            text = text.replace("package cupcake.policies.opencode.", f"package cupcake.policies.copy{i}.", 1)
        out.append((f"{f.stem}-{i}.rego", text))
    for f in sorted((REPO / "policies/system").glob("*.rego")):
        out.append((f.name, f.read_text()))
    return out


def run_once(srcs: list[tuple[str, str]]) -> dict[str, float]:
    from cupcake_py.host import HostOptions, PolicyModule
    from cupcake_py.plan import compile_entrypoints
    from cupcake_py.rego import parse_module
    from cupcake_py.rego.compile import compile_modules
    from cupcake_py.wasm import compile_policy

    t: dict[str, float] = {}
    t0 = time.perf_counter()
    modules = [parse_module(text, name) for name, text in srcs]
    t["parse"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    compiled = compile_modules(modules)
    t["compile"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    policy = compile_entrypoints(modules, ["cupcake/system/evaluate"], compiled=compiled)
    t["plan"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    wasm = compile_policy(policy)
    t["codegen"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    PolicyModule(wasm, HostOptions(cache_dir=None))
    t["native"] = time.perf_counter() - t0
    t["total"] = sum(t.values())
    return t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    srcs = sources()
    lines = sum(text.count("\n") for _, text in srcs)
    run_once(srcs)  # warm-up: imports, runtime load
    runs = [run_once(srcs) for _ in range(args.runs)]
    print(f"{len(srcs)} modules ({N_POLICIES} policies + system), {lines} lines, {args.runs} runs (medians):")
    for stage in runs[0]:
        print(f"  {stage:8s} {statistics.median(r[stage] for r in runs) * 1000:8.1f} ms")
    total = statistics.median(r["total"] for r in runs)
    print(f"source -> native code: {total:.3f} s (goal <= 1 s): {'ok' if total <= 1.0 else 'OVER'}")


if __name__ == "__main__":
    main()
