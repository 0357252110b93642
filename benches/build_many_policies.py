"""Bundle build of a project with N one-rule policy files, side by side (issue 29: 10,000 policies
in <= 20 s with peak RSS <= 400 MB).

    make bench-many-policies
    .venv/bin/python benches/build_many_policies.py [--policies 100 1000 10000]

Each size is built in a fresh process (`engine/bundle.load` without a cache: parse, compile, plan,
codegen, wasmtime's native compilation and the module summary), as the detached build worker of
`cupcake eval` does; the bench reports that process's wall time, CPU time (user + system, all threads: steadier than wall time
on a busy machine) and peak RSS (ru_maxrss).
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
POLICY = """# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Bash"]
package cupcake.policies.opencode.p{i}

import rego.v1

deny contains {{"rule_id": "R{i}", "reason": "no cmd{i}", "severity": "HIGH"}} if input.tool_input.command == "cmd{i}"
"""
CHILD = """
import sys
from cupcake_py.engine import bundle
from cupcake_py.engine.project import ConfigDir
cfg = ConfigDir("project", sys.argv[1] + "/.cupcake", sys.argv[1], "opencode")
b, hit = bundle.load(cfg, use_cache=False)
print(len(b.wasm), len(b.policies))
"""


def one(n: int, root: Path) -> dict[str, float]:
    project = root / f"p{n}"
    d = project / ".cupcake" / "policies" / "opencode"
    d.mkdir(parents=True)
    for i in range(n):
        (d / f"p{i}.rego").write_text(POLICY.format(i=i))
    env = {**os.environ, "XDG_CACHE_HOME": str(root / "cache"), "XDG_CONFIG_HOME": str(root / "cfg"),
           "XDG_STATE_HOME": str(root / "state")}
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    before, cpu0 = usage.ru_maxrss, usage.ru_utime + usage.ru_stime
    t0 = time.monotonic()
    out = subprocess.run([sys.executable, "-c", CHILD, str(project)], capture_output=True, text=True, env=env,
                         cwd=REPO)
    wall = time.monotonic() - t0
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    peak, cpu = usage.ru_maxrss, usage.ru_utime + usage.ru_stime - cpu0
    if out.returncode != 0:
        raise SystemExit(f"{n} policies: the build failed after {wall:.1f} s (peak RSS {peak / 1024:.0f} MB): "
                         f"{out.stderr.strip().splitlines()[-1:]}")
    wasm, policies = map(int, out.stdout.split())
    return {"policies": n, "seconds": round(wall, 2), "cpu_seconds": round(cpu, 2), "peak_rss_mb": round(max(peak, before) / 1024, 1),
            "wasm_kib": wasm // 1024, "packages": policies}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--policies", type=int, nargs="+", default=[100, 1000, 10000])
    args = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="cupcake-build-many-") as tmp:
        for n in args.policies:  # ru_maxrss of children is a running maximum: smallest first
            r = one(n, Path(tmp))
            ok = n != 10000 or (r["seconds"] <= 20 and r["peak_rss_mb"] <= 400)
            print(f"{n:6d} policies: {r['seconds']:8.2f} s (CPU {r['cpu_seconds']:6.2f} s), peak RSS {r['peak_rss_mb']:7.1f} MB, "
                  f"wasm {r['wasm_kib']} KiB" + ("" if n != 10000 else f"  (goal <= 20 s, <= 400 MB: "
                                                  f"{'met' if ok else 'NOT met'})"), flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} (2 cores: wall time grows with the load; peak RSS does not)")


if __name__ == "__main__":
    main()
