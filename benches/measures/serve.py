"""(9) `cupcake serve`: what a warm evaluator buys (issue 21).

- Decision latency from node over stdio: plugin-ts/bench/serve.mjs calls the built plugin's
  `tool.execute.before` on the shipped-builtins project (10 generated policies, the project builtins,
  the global config), alternating a plugin in "spawn" mode and one in "serve" mode. Goal: serve p50 ≤ 2 ms.
- Scaling, warm: one server answers the typical Bash event on projects of 10 / 100 / 1000 generated
  policies (no builtins, no global config: the curve shows the policies alone); wall and CPU time per
  request. Goal: 10 → 1000 policies ≤ 2× latency.
- Memory: one server answers N requests over three projects (routed WASM with host builtins); its RSS
  is sampled every N/20 requests (growth: benches/serve_memory.py `growth`). The 100,000-request run: `benches/serve_memory.py --requests 100000`.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from measures import projects
from measures.common import REPO, Context, Unavailable, config_home_env, cupcake_cmd, goal, summary

SCRIPT = REPO / "plugin-ts/bench/serve.mjs"
sys.path.insert(0, str(REPO / "benches"))
from serve_memory import rss_run  # noqa: E402


def _node_latency(ctx: Context) -> dict[str, Any]:
    node = shutil.which("node")
    if node is None or not SCRIPT.exists():
        raise Unavailable("node or plugin-ts/bench/serve.mjs is missing")
    cupcake = cupcake_cmd()[0]
    if not cupcake.endswith("cupcake"):
        raise Unavailable("no `cupcake` console script next to the Python interpreter")
    project = projects.make_project(ctx.work / "serve-builtins", 10)
    config_home = ctx.work / "serve-config"
    projects.make_global(config_home)
    env = config_home_env(ctx.env, config_home)
    proc = subprocess.run([node, str(SCRIPT), "--json", "--project", str(project), "--cupcake", cupcake,
                           "--samples", str(ctx.pick(10, 60)), "--command", projects.TYPICAL_COMMAND],
                          capture_output=True, env=env, timeout=900, cwd=SCRIPT.parent.parent)
    if proc.returncode != 0:
        raise Unavailable(f"plugin-ts/bench/serve.mjs failed ({proc.returncode}): {proc.stderr.decode()[-800:]}")
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def _warm_scaling(ctx: Context, sizes: tuple[int, ...]) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    requests = ctx.pick(30, 300)
    for n in sizes:
        project = projects.make_project(ctx.work / f"serve-scale-{n}", n, builtins=False)
        line = json.dumps({"id": 0, "harness": "opencode", "event": projects.bash_event(project)}).encode() + b"\n"
        srv = subprocess.Popen([*cupcake_cmd(), "serve", "--stdio", "--no-global"], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, env=ctx.env, cwd=project)
        assert srv.stdin is not None and srv.stdout is not None
        try:
            for _ in range(5):  # bundle build / load, instance, caches
                srv.stdin.write(line)
                srv.stdin.flush()
                first = json.loads(srv.stdout.readline())
            walls = []
            cpu0 = _cpu(srv.pid)
            for _ in range(requests):
                t0 = time.perf_counter()
                srv.stdin.write(line)
                srv.stdin.flush()
                srv.stdout.readline()
                walls.append(time.perf_counter() - t0)
            cpu_ms = (_cpu(srv.pid) - cpu0) * 1000 / requests
        finally:
            srv.stdin.close()
            srv.wait(timeout=60)
        rows[str(n)] = {"policies": n, "routed": projects.routed_count(n), "wall_ms": summary(walls),
                        "server_cpu_ms_per_request": round(cpu_ms, 3), "decision": first["response"]["decision"]}
    return rows


def _cpu(pid: int) -> float:
    """CPU seconds of a process, all its threads: the scheduler's nanosecond run time
    (/proc/<pid>/task/*/schedstat) when the kernel keeps it, else user + system time in clock
    ticks (/proc/<pid>/stat: 10 ms steps, coarse over a few hundred sub-millisecond requests)."""
    import os

    tasks = Path(f"/proc/{pid}/task")
    try:
        return sum(int((t / "schedstat").read_text().split()[0]) for t in tasks.iterdir()) / 1e9
    except (OSError, ValueError, IndexError):
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(") ", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(ctx: Context) -> dict[str, Any]:
    latency = _node_latency(ctx)
    sizes = ctx.pick((10, 100), (10, 100, 1000))
    scaling = _warm_scaling(ctx, sizes)
    memory = rss_run(ctx.work / "serve-memory", ctx.pick(1_000, 20_000), env=ctx.env)
    lo, hi = scaling[str(sizes[0])], scaling[str(sizes[-1])]
    growth_wall = hi["wall_ms"]["median"] / lo["wall_ms"]["median"]
    growth_cpu = hi["server_cpu_ms_per_request"] / lo["server_cpu_ms_per_request"]
    p50 = latency["serve_ms"]["median"]
    return {"latency": latency, "scaling": scaling, "memory": memory,
            "goals": [goal(21, "decision latency from node, serve mode, shipped-builtins project: p50 ≤ 2 ms",
                           f"{p50:.2f} ms (spawn {latency['spawn_ms']['median']:.1f} ms)", p50 <= 2.0),
                      goal(21, f"warm (serve) latency {sizes[0]} → {sizes[-1]} policies ≤ 2×",
                           f"{growth_wall:.2f}× wall, {growth_cpu:.2f}× server CPU", growth_wall <= 2.0),
                      goal(21, f"server RSS flat over {memory['requests']:,} requests (reported)",
                           f"+{memory['growth_after_warmup_kib'] / 1024:.1f} MiB after warm-up "
                           f"({memory['warm_up_kib'] / 1024:.0f} → {memory['final_kib'] / 1024:.0f} MiB)", None)],
            "headline": (f"serve p50 {p50:.2f} ms vs spawn {latency['spawn_ms']['median']:.1f} ms from node "
                         f"({latency['speedup']:.0f}×); warm {sizes[0]} → {sizes[-1]} policies "
                         f"{lo['wall_ms']['median']:.2f} → {hi['wall_ms']['median']:.2f} ms")}
