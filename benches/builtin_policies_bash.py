"""Policy evaluation of the shipped builtin policies on Bash events (issue 14 goal: ≤ 1 ms and ≤ 10
host-builtin calls per event), project and global phase each, instance reused.

Run: .venv/bin/python benches/builtin_policies_bash.py [--rounds N]
Prints, per command: µs median of `eval_raw` per phase (the engine's real policy input,
input.shell included) and the host-builtin calls of one evaluation. Timing on a shared machine
is noisy: read the minimum next to the median.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).parent))

COMMANDS = [
    "ls -la src && grep -rn TODO src | head -20",
    "git commit -m 'fix: parser'",
    "rm -rf build/ && python3 -m pytest -q",
    "for f in src/*.py; do sed -i 's/a/b/' \"$f\"; done",
    "rm -rf secrets",
]


def measure(project: Path, command: str, rounds: int) -> list[dict[str, Any]]:
    import orjson

    from cupcake_py.engine import bundle as bundles
    from cupcake_py.engine.evaluator import Evaluation
    from cupcake_py.engine.observe import Trace
    from cupcake_py.engine.options import EvalOptions
    from cupcake_py.engine.project import find_global, find_project
    from cupcake_py.engine.routed_aggregator import entrypoint as aggregator
    from cupcake_py.host import HostOptions, PolicyModule
    from cupcake_py.host.builtins import lookup

    event = {"hook_event_name": "PreToolUse", "session_id": "s", "cwd": str(project), "tool": "bash",
             "args": {"command": command}}
    from cupcake_py.harness import get

    ev = Evaluation(EvalOptions(policy_dir=str(project), timeout=60.0, debug_files=True), Trace(), get("opencode"))
    final = ev.run(orjson.dumps(event))
    out = []
    for scope, cfg in (("global", find_global(None)), ("project", find_project(str(project)))):
        inp = ev.trace.notes.get(f"{scope} policy input")
        if cfg is None or inp is None:
            continue
        b, _ = bundles.load(cfg)
        module = PolicyModule.load(b.wasm, HostOptions(deadline=60.0))
        counts: Counter[str] = Counter()

        def wrap(name: str, fn: Any, counts: Counter[str] = counts) -> Any:
            def call(bctx: Any, *args: Any) -> Any:
                counts[name] += 1
                return fn(bctx, *args)
            return call

        names = set(module.summary().builtins.values())
        counted = module.instantiate(builtins={n: wrap(n, x.fn) for n in names if (x := lookup(n)) is not None})
        raw = orjson.dumps(inp)
        entry = aggregator(counted.entrypoints)  # the one the evaluator calls
        counted.eval_raw(entry, input_json=raw)
        inst = module.instantiate()
        samples = []
        for _ in range(rounds):
            t0 = time.perf_counter()
            inst.eval_raw(entry, input_json=raw)
            samples.append((time.perf_counter() - t0) * 1e6)
        out.append({"scope": scope, "median_us": round(statistics.median(samples)), "min_us": round(min(samples)),
                    "host_calls": sum(counts.values()), "by_builtin": dict(counts), "decision": final.kind})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=200)
    args = ap.parse_args()
    from measures.projects import make_global, make_project

    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        os.environ["XDG_CONFIG_HOME"] = str(root / "config")
        os.environ["XDG_CACHE_HOME"] = str(root / "cache")
        os.environ["XDG_STATE_HOME"] = str(root / "state")
        make_global(root / "config")
        project = make_project(root / "proj", 0)
        (project / "secrets").mkdir()
        os.chdir(project)
        for command in COMMANDS:
            for row in measure(project, command, args.rounds):
                print(f"{command[:48]:48} {row['scope']:7} {row['median_us']:>6} µs (min {row['min_us']:>5})"
                      f"  host calls {row['host_calls']:>2} {row['by_builtin']}  -> {row['decision']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
