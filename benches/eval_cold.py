"""Cold `cupcake eval` (a new process per event, warm bundle + native-code cache) against
`python -c "import wasmtime"`, measured interleaved in the same run.

    .venv/bin/python benches/eval_cold.py [--runs 15]

Events: a routed Read (WASM evaluation, no signals) and a routing miss (PermissionRequest:
no WASM) in a copy of harness/opencode/examples/engine-project, and a routed Read in a
project whose only policy needs no host builtins (shows what the host builtin library
import costs). Prints medians and the
ratio eval / import-wasmtime (goal ≤ 1.25×).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from cupcake_py.harness.opencode.examples import cupcake_command, examples_dir  # noqa: E402

NATIVE_POLICY = """# METADATA
# custom:
#   routing:
#     required_events: ["PreToolUse"]
#     required_tools: ["Read"]
package cupcake.policies.opencode.read_env

import rego.v1

deny contains {"rule_id": "ENV", "severity": "HIGH", "reason": "no .env reads"} if {
	endswith(input.resolved_file_path, "/.env")
}
"""


def timed(cmd: list[str], stdin: bytes, cwd: Path, env: dict[str, str]) -> tuple[float, bytes]:
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, capture_output=True, cwd=cwd, env=env)
    dt = time.perf_counter() - t0
    if proc.returncode != 0:
        raise SystemExit(f"{cmd} failed ({proc.returncode}): {proc.stdout!r} {proc.stderr[-500:]!r}")
    return dt, proc.stdout


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        shutil.copytree(examples_dir() / "engine-project", project, symlinks=True)
        (root / "config").mkdir()
        env = dict(os.environ, XDG_CACHE_HOME=str(root / "cache"), XDG_CONFIG_HOME=str(root / "config"))
        # An installed cupcake has its bytecode cached; without this every run would recompile
        # whatever module has no up-to-date .pyc (the warm-up run writes them).
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        native = root / "native"
        (native / ".cupcake/policies/opencode").mkdir(parents=True)
        (native / ".cupcake/policies/opencode/read.rego").write_text(NATIVE_POLICY)
        base = {"session_id": "bench", "cwd": str(project), "call_id": "c"}
        events = {
            "routed Read (WASM)": {**base, "hook_event_name": "PreToolUse", "tool": "read",
                                   "args": {"filePath": str(project / "src/app.py")}},
            "routing miss": {**base, "hook_event_name": "PermissionRequest", "tool": "read",
                             "args": {"filePath": str(project / "src/app.py")}},
        }
        events["routed Read, no host builtins"] = {**events["routed Read (WASM)"], "cwd": str(native)}
        eval_cmd = [*cupcake_command(), "eval", "--harness", "opencode"]
        for ev in events.values():  # warm the bundle cache and the native-code cache
            _, out = timed(eval_cmd, json.dumps(ev).encode(), Path(ev["cwd"]), env)
            print("warm-up:", out.decode().strip())
        samples: dict[str, list[float]] = {"import wasmtime": [], **{k: [] for k in events}}
        for _ in range(args.runs):
            samples["import wasmtime"].append(timed([sys.executable, "-c", "import wasmtime"], b"", project, env)[0])
            for name, ev in events.items():
                samples[name].append(timed(eval_cmd, json.dumps(ev).encode(), Path(ev["cwd"]), env)[0])
        base_med = statistics.median(samples["import wasmtime"])
        print(f"{'':24} {'median ms':>10} {'min ms':>8} {'ratio':>6}")
        for name, xs in samples.items():
            med = statistics.median(xs)
            print(f"{name:24} {med * 1000:10.1f} {min(xs) * 1000:8.1f} {med / base_med:6.2f}x")
        print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs, {args.runs} runs each")


if __name__ == "__main__":
    main()
