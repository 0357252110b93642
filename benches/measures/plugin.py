"""(8) Plugin overhead: node calls the built OpenCode plugin's `tool.execute.before` hook with a
fake OpenCode context (plugin_overhead.mjs), which spawns the real `cupcake eval`; alternated
with node spawning `cupcake eval` directly with the same event. Overhead = hook − direct
(issue 8: ≤ 5 ms per tool call).

The project routes nothing to the event (no policies, no builtins), so `cupcake eval` answers
on its fast path: the plugin's own work does not depend on what the engine decides, and short
calls let many rounds fit, which the difference of two process times needs to rise above the
noise.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
from pathlib import Path
from typing import Any

from measures import cold_eval, projects
from measures.common import REPO, Context, Unavailable, goal, percentile, run_json, summary

GOAL_MS = 5.0
BUNDLE = REPO / "cupcake_py/harness/opencode/plugin/cupcake.js"
SCRIPT = Path(__file__).with_name("plugin_overhead.mjs")


def run(ctx: Context) -> dict[str, Any]:
    node = shutil.which("node")
    if node is None:
        raise Unavailable("node is not on PATH")
    if not BUNDLE.exists():
        raise Unavailable(f"the plugin bundle {BUNDLE.relative_to(REPO)} is not built (make plugin)")
    cupcake = cold_eval.eval_cmd()[0]
    if not Path(cupcake).exists():
        raise Unavailable("no `cupcake` console script next to the Python interpreter (pip install -e .)")
    project = projects.make_project(ctx.work / "plugin", 0, builtins=False)
    event = projects.bash_event(project)
    env = {**ctx.env, "XDG_CONFIG_HOME": str(ctx.work / "plugin-config")}  # no global config: nothing routed
    answer = run_json(cold_eval.eval_cmd(), json.dumps(event).encode(), project, env)
    if answer != {"decision": "allow"}:
        raise Unavailable(f"cupcake eval on an empty project answers {answer!r}, expected allow")
    rounds = ctx.pick(4, 30)
    proc = subprocess.run([node, str(SCRIPT), str(BUNDLE), cupcake, str(project), str(rounds),
                           projects.TYPICAL_COMMAND], capture_output=True, env=env, timeout=900)
    if proc.returncode != 0:
        raise Unavailable(f"node harness failed ({proc.returncode}): {proc.stderr.decode()[-800:]}")
    data = json.loads(proc.stdout.decode().strip().splitlines()[-1])
    hook, direct = summary([x / 1000 for x in data["hook_ms"]]), summary([x / 1000 for x in data["direct_ms"]])
    overhead = hook["median"] - direct["median"]
    diffs = [h - d for h, d in zip(data["hook_ms"], data["direct_ms"], strict=True)]
    paired = statistics.median(diffs)
    return {"variants": {"plugin hook → cupcake eval": hook, "node → cupcake eval directly": direct},
            "overhead_ms_median_difference": round(overhead, 2), "overhead_ms_paired_median": round(paired, 2),
            "paired_differences_p25_p75_ms": [round(percentile(diffs, 25), 1), round(percentile(diffs, 75), 1)],
            "decision": data["decision"], "rounds": rounds,
            "note": "cupcake eval runs on a project that routes nothing (its fast path); the overhead is the "
                    "difference of two process-sized times, so under load its noise is several ms",
            "goals": [goal(8, f"plugin adds ≤ {GOAL_MS:g} ms over the cupcake eval process", f"{overhead:+.1f} ms "
                           f"(paired median {paired:+.1f} ms)", overhead <= GOAL_MS)],
            "headline": f"plugin overhead {overhead:+.1f} ms (hook {hook['median']:.0f} ms vs direct "
                        f"{direct['median']:.0f} ms)"}
