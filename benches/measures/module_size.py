"""(7) Module size: our WebAssembly modules vs OPA's ~140 KB for a similar policy (OPA's figure
is quoted from issue 4; no `opa` binary exists here to rebuild it). Sizes raw and gzip -9, for
one small rule, the Cupcake-like bundle (aggregator + 10 generated policies), the engine's
typical bundle (shipped builtins + 10 policies), and the linked C runtime alone.
"""

from __future__ import annotations

import gzip
from typing import Any

from measures import cold_eval, projects, regorus_cmp
from measures.common import REPO, Context, environ, goal, product_import

OPA_KB = 140


def sizes(wasm: bytes) -> dict[str, Any]:
    return {"bytes": len(wasm), "kb": round(len(wasm) / 1024, 1), "gzip_kb": round(len(gzip.compress(wasm, 9)) / 1024, 1)}


def run(ctx: Context) -> dict[str, Any]:
    def imports() -> Any:
        from cupcake_py.plan import compile_entrypoints
        from cupcake_py.rego import parse_module
        from cupcake_py.wasm import compile_policy

        return compile_entrypoints, parse_module, compile_policy

    compile_entrypoints, parse_module, compile_policy = product_import("the compiler", imports)
    rows: dict[str, Any] = {}
    for w in regorus_cmp.workloads()[:2]:
        modules = [parse_module(text, name) for name, text in w["sources"]]
        rows[w["name"].removesuffix(", typical event")] = sizes(compile_policy(compile_entrypoints(
            modules, [w["entrypoint"]])))
    setup = projects.typical(ctx, cold_eval.eval_cmd(), n=10)
    with environ(ctx.env):
        from cupcake_py.engine import bundle as bundles
        from cupcake_py.engine.project import find_project

        b, _ = bundles.load(find_project(str(setup.project)))
    rows["engine bundle: shipped builtins + 10 policies"] = sizes(b.wasm)
    runtime = REPO / "cupcake_py/wasm/runtime/runtime.wasm"
    if runtime.exists():
        rows["C runtime alone (runtime.wasm, before linking)"] = sizes(runtime.read_bytes())
    similar = rows["10 generated policies + aggregator"]
    return {"rows": rows, "opa_reference_kb": OPA_KB, "builtins_left_out": setup.dropped,
            "goals": [goal(4, f"module size vs OPA's ~{OPA_KB} KB for a similar policy (aggregator + 10 policies)",
                           f"{similar['kb']:.0f} KB ({similar['gzip_kb']:.0f} KB gzipped)",
                           similar["kb"] <= OPA_KB)],
            "headline": (f"aggregator + 10 policies: {similar['kb']:.0f} KB vs OPA ~{OPA_KB} KB; one rule: "
                         f"{rows['one rule (split + startswith + sprintf)']['kb']:.0f} KB")}
