"""Cold `cupcake eval` (a new process per event, warm bundle + native-code cache) against
`python -c "import wasmtime"`, measured interleaved in the same run.

    .venv/bin/python benches/eval_cold.py [--runs 15]

Events: a routed Read (WASM evaluation, no signals) and a routing miss (PermissionRequest:
no WASM) in a copy of harness/opencode/examples/engine-project, the same two for
`--harness claude` in a copy of harness/examples/project (a Read routed to the shipped
builtins, and a Notification nothing is routed to), and a routed Read in a
project whose only policy needs no host builtins (shows what the host builtin library
import costs). "host floor" is the host's share of the routed Read: a process that only
imports the host, loads the same compiled bundle (native-code cache hit) and evaluates the
same policy input the engine passed (taken from a --debug-dir trace); the gap between it and
the routed Read is the engine's own start-up and work. Prints medians and the ratio eval / import-wasmtime (goal ≤ 1.25×), for
wall-clock time and for the child's CPU time (user + system: steadier on a busy machine).
Child processes run with bytecode caching on, as an installed cupcake does.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from cupcake_py.harness.examples import cupcake_command, examples_dir, project_dir  # noqa: E402

FLOOR = """
import sys
from cupcake_py.host import PolicyModule
wasm, raw = open(sys.argv[1], "rb").read(), open(sys.argv[2], "rb").read()
sys.stdout.buffer.write(PolicyModule(wasm).instantiate().eval_raw("cupcake/system/evaluate", input_json=raw) + b"\\n")
"""

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


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def timed(cmd: list[str], stdin: bytes, cwd: Path, env: dict[str, str]) -> tuple[float, float, bytes]:
    """(wall seconds, child CPU seconds, stdout)."""
    c0, t0 = _child_cpu(), time.perf_counter()
    proc = subprocess.run(cmd, input=stdin, capture_output=True, cwd=cwd, env=env)
    dt, cpu = time.perf_counter() - t0, _child_cpu() - c0
    if proc.returncode != 0:
        raise SystemExit(f"{cmd} failed ({proc.returncode}): {proc.stdout!r} {proc.stderr[-500:]!r}")
    return dt, cpu, proc.stdout


def _floor_files(root: Path, project: Path, event: dict[str, object], eval_cmd: list[str],
                 env: dict[str, str]) -> tuple[Path, Path]:
    """The routed Read's compiled bundle and the policy input the engine gave it."""
    from cupcake_py.engine import bundle
    from cupcake_py.engine.project import find_project

    debug = root / "debug"
    timed([*eval_cmd, "--debug-dir", str(debug)], json.dumps(event).encode(), project, env)
    text = next(debug.glob("*.txt")).read_text()
    section = text.split("== project policy input\n", 1)[1].split("\n\n== ", 1)[0]
    cfg = find_project(None, project)
    assert cfg is not None
    old = os.environ.get("XDG_CACHE_HOME")
    os.environ["XDG_CACHE_HOME"] = env["XDG_CACHE_HOME"]  # the bundle cache the evals use
    try:
        wasm = bundle.load(cfg)[0].wasm
    finally:
        if old is None:
            os.environ.pop("XDG_CACHE_HOME")
        else:
            os.environ["XDG_CACHE_HOME"] = old
    (root / "floor.wasm").write_bytes(wasm)
    (root / "floor.json").write_text(json.dumps(json.loads(section)))
    return root / "floor.wasm", root / "floor.json"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        project = root / "project"
        shutil.copytree(examples_dir() / "engine-project", project, symlinks=True)
        (root / "config").mkdir()
        env = dict(os.environ, XDG_CACHE_HOME=str(root / "cache"), XDG_CONFIG_HOME=str(root / "config"),
                   XDG_STATE_HOME=str(root / "state"))
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
        claude_project = root / "claude-project"
        shutil.copytree(project_dir("claude"), claude_project, symlinks=True)
        claude = {"session_id": "bench", "cwd": str(claude_project)}
        events["claude: routed Read (WASM)"] = {**claude, "hook_event_name": "PreToolUse", "tool_name": "Read",
                                               "tool_input": {"file_path": str(claude_project / "src/app.py")}}
        events["claude: routing miss"] = {**claude, "hook_event_name": "Notification", "message": "m"}
        commands = {name: [*cupcake_command(), "eval", "--harness", "claude"] if name.startswith("claude:")
                    else eval_cmd for name in events}
        for name, ev in events.items():  # warm the bundle cache and the native-code cache
            _, _, out = timed(commands[name], json.dumps(ev).encode(), Path(str(ev["cwd"])), env)
            print("warm-up:", out.decode().strip()[:100])
        floor = _floor_files(root, project, events["routed Read (WASM)"], eval_cmd, env)
        floor_cmd = [sys.executable, "-c", FLOOR, str(floor[0]), str(floor[1])]
        print("warm-up:", timed(floor_cmd, b"", project, env)[2].decode().strip()[:100])
        names = ["import wasmtime", *events, "host floor (routed Read)"]
        wall: dict[str, list[float]] = {k: [] for k in names}
        cpu: dict[str, list[float]] = {k: [] for k in names}
        for _ in range(args.runs):
            for name in names:
                if name == "import wasmtime":
                    w, c, _ = timed([sys.executable, "-c", "import wasmtime"], b"", project, env)
                elif name.startswith("host floor"):
                    w, c, _ = timed(floor_cmd, b"", project, env)
                else:
                    ev = events[name]
                    w, c, _ = timed(commands[name], json.dumps(ev).encode(), Path(str(ev["cwd"])), env)
                wall[name].append(w)
                cpu[name].append(c)
        base_wall, base_cpu = statistics.median(wall["import wasmtime"]), statistics.median(cpu["import wasmtime"])
        print(f"{'':30} {'wall median ms':>14} {'min':>7} {'ratio':>6}   {'CPU median ms':>13} {'ratio':>6}")
        for name in names:
            w, c = statistics.median(wall[name]), statistics.median(cpu[name])
            print(f"{name:30} {w * 1000:14.1f} {min(wall[name]) * 1000:7.1f} {w / base_wall:6.2f}x"
                  f"   {c * 1000:13.1f} {c / base_cpu:6.2f}x")
        print(f"load average: {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs, {args.runs} runs each")


if __name__ == "__main__":
    main()
