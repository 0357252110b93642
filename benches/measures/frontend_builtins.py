"""Extra measures named by issues 2 and 5, built on the colleagues' scripts:

- parse speed (issue 2): MB/s of Rego over the compliance-suite modules, with
  benches/parse_speed.py's corpus and timing (lexer alone and full parse);
- host builtins (issue 5): µs per call of benches/host_builtins.py's cases, called directly,
  and through WebAssembly (a policy calling the builtin N times in one evaluation, minus the
  same policy calling the native `upper`) = the host call overhead.
"""

from __future__ import annotations

import time
import timeit
from typing import Any

from measures.common import Context, Unavailable, goal, product_import


def parse_speed(ctx: Context) -> dict[str, Any]:
    ps = product_import("benches/parse_speed.py", lambda: __import__("parse_speed"))
    if not ps.SUITE.is_dir():
        raise Unavailable(f"the compliance suite is not at {ps.SUITE} (the corpus of parse_speed.py)")
    modules = ps.corpus()
    if ctx.quick:
        modules = modules[: len(modules) // 4]
    from cupcake_py.rego.lexer import tokenize

    mb = sum(len(m.encode()) for m in modules) / 1e6
    rounds = ctx.pick(1, 5)
    lex = ps.measure(tokenize, modules, rounds)
    full = ps.measure(ps.parse_module, modules, rounds)
    speed = mb / full
    return {"modules": len(modules), "mb": round(mb, 3), "rounds_best_of": rounds,
            "lex_mb_s": round(mb / lex, 2), "parse_mb_s": round(speed, 2),
            "goals": [goal(2, "parse speed in MB/s of Rego (reported)", f"{speed:.2f} MB/s (lexer {mb / lex:.2f})",
                           None)],
            "headline": f"parse {speed:.2f} MB/s, lex {mb / lex:.2f} MB/s over {len(modules)} modules"}


def host_builtins(ctx: Context) -> dict[str, Any]:
    hb = product_import("benches/host_builtins.py and the host builtins", lambda: __import__("host_builtins"))
    from cupcake_py.host import HostOptions, PolicyModule
    from cupcake_py.host.builtins import BuiltinContext, lookup
    from cupcake_py.plan import compile_query
    from cupcake_py.wasm import compile_policy

    bctx = BuiltinContext(seed=1)
    direct: dict[str, float] = {}
    for name, args in hb.CASES:
        b = lookup(name)
        if b is None:
            raise Unavailable(f"host builtin {name} is not registered")
        t0 = time.perf_counter()
        b.fn(bctx, *args)  # warm caches; also sizes the batches (about 20 ms, 100 ms in a full run)
        n = max(1, int(ctx.pick(0.02, 0.1) / max(time.perf_counter() - t0, 1e-6)))
        best = min(timeit.repeat(lambda fn=b.fn, args=args: fn(bctx, *args), number=n, repeat=ctx.pick(2, 5)))
        key = name if name not in direct else f"{name} ({len([k for k in direct if k.startswith(name)]) + 1})"
        direct[key] = round(best / n * 1e6, 2)
    calls = ctx.pick(200, 2000)
    wasm: dict[str, dict[str, float]] = {}
    base = None
    for label, expr in hb.CALLS:
        policy = compile_query([hb.POLICY.format(n=calls, call=expr)], "data.bench.out = x", entrypoint="eval")
        inst = PolicyModule(compile_policy(policy), HostOptions(cache_dir=None, deadline=60.0)).instantiate(None)
        inst.eval("eval", None)
        per = min(timeit.repeat(lambda inst=inst: inst.eval("eval", None), number=1, repeat=ctx.pick(3, 5))) / calls * 1e6
        base = per if base is None else base
        wasm[label] = {"us_per_call": round(per, 2), "over_native_us": round(per - base, 2)}
    host = [v["over_native_us"] for k, v in wasm.items() if "(host)" in k]
    overhead = min(host) if host else float("nan")
    return {"direct_us_per_call": direct, "through_wasm": wasm, "calls_per_evaluation": calls,
            "goals": [goal(5, "host-builtin call overhead, µs per call (reported)",
                           f"{overhead:.1f} µs over a native builtin (cheapest host builtin)", None)],
            "headline": f"host call ≈ {overhead:.1f} µs over native; sprintf direct {direct.get('sprintf', 0):.1f} µs"}
