"""µs per builtin call through WebAssembly: host builtins (regex.match with a pattern made at run
time, sprintf with a float verb) and the native paths (regex.match with a constant pattern,
sprintf's fast path) against a native one (upper), each called N times in one
evaluation of a compiled policy.

The per-call cost is (evaluation with N calls - evaluation with 0 calls) / N, best of R;
"overhead" is a host call's cost minus the native call's. Before timing, every policy is
checked to make exactly N calls of its builtin (counted through a wrapper).

    .venv/bin/python benches/host_builtin_call.py [--calls 2000] [--repeat 7]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

POLICY = """package bench
import rego.v1
out := [y | some i in numbers.range(1, input.n); y := {call}]
"""
CALLS: list[tuple[str, str, str | None, bool]] = [  # label, expression, host builtin to count, called?
    ("upper (native)", 'upper("abc")', None, False),
    ("regex.match (native)", 'regex.match("^a+$", "aaa")', "regex.match", False),  # constant pattern: C runtime
    # a pattern made at run time and a subject that changes per call (no memo hit): the host's RE2
    ("regex.match (host)", 'regex.match(concat("", ["^[0-9]+", "$"]), sprintf("%d", [i]))', "regex.match", True),
    ("sprintf (native fast path)", 'sprintf("%d-%s", [i, "x"])', "sprintf", False),  # opa_bi_try_sprintf answers
    ("sprintf %.2f (host)", 'sprintf("%.2f-%s", [i, "x"])', "sprintf", True),  # float verb: the host answers
]


def _policy(expr: str, host: str | None, counted: bool) -> Any:
    from cupcake_py.host import HostOptions, PolicyModule
    from cupcake_py.host.builtins import lookup
    from cupcake_py.plan import compile_query
    from cupcake_py.wasm import compile_policy

    plan = compile_query([POLICY.format(call=expr)], "data.bench.out = x", entrypoint="eval")
    module = PolicyModule(compile_policy(plan), HostOptions(cache_dir=None, deadline=60.0))
    extra = None
    if counted and host is not None:
        found = lookup(host)
        assert found is not None
        fn = found.fn
        calls = [0]

        def counting(ctx: Any, *args: Any) -> Any:
            calls[0] += 1
            return fn(ctx, *args)

        extra = {host: counting}
        inst = module.instantiate(builtins=extra)
        inst.calls = calls  # type: ignore[attr-defined]
        return inst
    return module.instantiate()


def _best(inst: Any, n: int, repeat: int) -> float:
    inp = {"n": n}
    inst.eval("eval", inp)
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        inst.eval("eval", inp)
        best = min(best, time.perf_counter() - t)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    n = args.calls
    print(f"{n} calls per evaluation, best of {args.repeat}; µs per call")
    native = None
    for label, expr, host, called in CALLS:
        if host is not None:
            check = _policy(expr, host, counted=True)
            rows = check.eval("eval", {"n": n})
            assert len(rows[0]["x"]) == n, rows[0]["x"][:3]
            if check.calls[0] != (n if called else 0):
                raise SystemExit(f"{label}: expected {n if called else 0} host calls, counted {check.calls[0]}")
        inst = _policy(expr, host, counted=False)
        per = (_best(inst, n, args.repeat) - _best(inst, 0, args.repeat)) / n * 1e6
        native = per if native is None else native
        extra = f"   overhead over native {per - native:8.2f}" if called else ""
        print(f"  {label:22s} {per:8.2f}{extra}")
    print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
