"""µs per call of host builtins.

1. direct: the Python function alone (warm caches), per builtin;
2. through WebAssembly: a policy calls the builtin N times in one evaluation; the
   per-call cost minus the same policy calling a native builtin (``upper``) is the host
   call overhead (arguments dumped from WASM memory, parsed, the result written back).

Run: .venv/bin/python benches/host_builtins.py [--quick]
"""

from __future__ import annotations

import argparse
import time
import timeit
from decimal import Decimal

from cupcake_py.host.builtins import BuiltinContext, lookup

SCHEMA = "type Employee { id: String! salary: Int! } type Query { employeeByID(id: String): Employee }"
CASES = [
    ("sprintf", ("user %s has %d items (%.2f%%)", ["alice", 42, Decimal("99.5")])),
    ("sprintf", ("%v", [{"a": [1, 2, frozenset({3})]}])),
    ("regex.match", (r"^[a-z]+\[[0-9]+\]$", "foo[123]")),
    ("regex.replace", ("the quick brown fox", r"(\w+)", "<$1>")),
    ("glob.match", ("*.github.com", ["."], "api.github.com")),
    ("time.parse_rfc3339_ns", ("2017-06-02T19:00:00.123456789-07:00",)),
    ("time.format", ([1670006453141828752, "Asia/Kolkata", "RFC1123Z"],)),
    ("units.parse_bytes", ("4.5GiB",)),
    ("io.jwt.decode", ("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIwIiwiaXNzIjoib3BhIn0."
                       "XmVoLoHI3pxMtMO_WRONMSJzGUDP9pDjy8Jp0_tdRXY",)),
    ("strings.render_template", ("{{range $i, $n := .names}}{{if $i}}, {{end}}hello {{$n}}{{end}}",
                                 {"names": ["ann", "bob", "cy"]})),
    ("graphql.parse_query", ('query { employeeByID(id: "alice") { salary } }',)),
    ("graphql.is_valid", ('query { employeeByID(id: "alice") { salary } }', SCHEMA)),
    ("graphql.schema_is_valid", (SCHEMA,)),
    ("rego.parse_module", ("p.rego", "package a\n\nallow if { input.user == \"admin\"; count(input.xs) > 1 }\n")),
]  # fmt: skip


def direct(quick: bool) -> None:
    ctx = BuiltinContext(seed=1)
    print("direct Python calls")
    for name, args in CASES:
        b = lookup(name)
        assert b is not None
        fn = b.fn
        fn(ctx, *args)  # warm caches
        n = 200 if quick else 2000
        best = min(timeit.repeat(lambda fn=fn, args=args: fn(ctx, *args), number=n, repeat=3 if quick else 5))
        print(f"  {name:28s} {best / n * 1e6:9.2f} µs/call")


POLICY = """package bench
import rego.v1
out := [y | some i in numbers.range(1, {n}); y := {call}]
"""
CALLS = [
    ("upper (native, baseline)", 'upper("abc")'),
    ("sprintf (native fast path)", 'sprintf("%d", [i])'),  # opa_bi_try_sprintf answers: no host call
    ("sprintf %.2f (host)", 'sprintf("%.2f", [i])'),  # a float verb: the runtime hands it to the host
    ("strings.count (host)", 'strings.count("a,b,c", ",")'),
    ("regex.match (native, constant pattern)", 'regex.match("^a+$", "aaa")'),  # wasm/regex_call.py
    # a pattern made at run time (+ a native concat and sprintf) and a subject that changes: the host's RE2
    ("regex.match (host)", 'regex.match(concat("", ["^[0-9]+", "$"]), sprintf("%d", [i]))'),
]


def through_wasm(quick: bool) -> None:
    from cupcake_py.host import HostOptions, PolicyModule
    from cupcake_py.plan import compile_query
    from cupcake_py.wasm import compile_policy

    n = 500 if quick else 5000
    print(f"through WebAssembly ({n} calls in one evaluation, best of 5)")
    base = None
    for label, expr in CALLS:
        policy = compile_query([POLICY.format(n=n, call=expr)], "data.bench.out = x", entrypoint="eval")
        inst = PolicyModule(compile_policy(policy), HostOptions(cache_dir=None, deadline=60.0)).instantiate(
            None
        )
        inst.eval("eval", None)
        best = float("inf")
        for _ in range(5):
            t = time.perf_counter()
            inst.eval("eval", None)
            best = min(best, time.perf_counter() - t)
        per = best / n * 1e6
        base = per if base is None else base
        extra = "" if per == base else f"   (+{per - base:.2f} over native)"
        print(f"  {label:28s} {per:9.2f} µs/call{extra}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="fewer iterations (smoke run)")
    args = ap.parse_args()
    direct(args.quick)
    through_wasm(args.quick)


if __name__ == "__main__":
    main()
