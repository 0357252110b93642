"""(8) Plugin overhead, with the plugin's own bench (plugin-ts/bench/overhead.mjs, --json): node
calls the built plugin's hooks with a fake OpenCode context and, interleaved, spawns the same
`cupcake eval --harness opencode` process bare (plain and detached); overhead = hook − bare
process (paired medians). Engines: "constant" (a tiny sh responder: steady process time, so
the difference is precise) and "engine" (the real cupcake in a `cupcake init` project; its
process time is long and noisy under load). Issue 8: ≤ 5 ms per tool call.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import Any

from measures import cold_eval
from measures.common import REPO, Context, Unavailable, config_home_env, goal

GOAL_MS = 5.0
SCRIPT = REPO / "plugin-ts/bench/overhead.mjs"
BUNDLE = REPO / "cupcake_py/harness/opencode/plugin/cupcake.js"


def run(ctx: Context) -> dict[str, Any]:
    node = shutil.which("node")
    if node is None:
        raise Unavailable("node is not on PATH")
    for need in (SCRIPT, BUNDLE):
        if not need.exists():
            raise Unavailable(f"{need.relative_to(REPO)} is missing")
    cupcake = cold_eval.eval_cmd()[0]
    if not cupcake.endswith("cupcake"):
        raise Unavailable("no `cupcake` console script next to the Python interpreter (pip install -e .)")
    env = config_home_env(ctx.env, ctx.work / "plugin-config")  # no global config
    samples, engine_samples = ctx.pick((30, 2), (200, 10))
    proc = subprocess.run([node, str(SCRIPT), "--json", "--samples", str(samples), "--engine-samples",
                           str(engine_samples), "--cupcake", cupcake], capture_output=True, env=env, timeout=900,
                          cwd=SCRIPT.parent.parent)
    if proc.returncode != 0:
        raise Unavailable(f"plugin-ts/bench/overhead.mjs failed ({proc.returncode}): {proc.stderr.decode()[-800:]}")
    data = json.loads(proc.stdout)
    rows = {f"{r['engine']}: {r['name']}": r for r in data["results"]}
    main = rows.get("constant: PreToolUse bash")
    if main is None:
        raise Unavailable(f"overhead.mjs reported no 'constant: PreToolUse bash' row: {sorted(rows)}")
    worst = max(r["overhead_median_ms"] for r in rows.values() if r["engine"] == "constant")
    return {"runtime": data["runtime"], "rows": rows,
            "goals": [goal(8, f"plugin adds ≤ {GOAL_MS:g} ms over the cupcake eval process",
                           f"{main['overhead_median_ms']:+.2f} ms (PreToolUse; worst scenario {worst:+.2f} ms)",
                           worst <= GOAL_MS)],
            "headline": (f"plugin overhead {main['overhead_median_ms']:+.2f} ms per PreToolUse call "
                         f"(p90 {main['overhead_p90_ms']:+.2f} ms; process {main['process_median_ms']:.1f} ms)")}
