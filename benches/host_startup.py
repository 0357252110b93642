"""Cold and warm costs of the wasmtime host: native-code cache miss/hit, deserialize,
instantiate (with data), first and warm evaluations. Each cold measurement runs in a fresh
Python process, as an agent's tool call would.

    .venv/bin/python benches/host_startup.py [--note NOTE] [--runs N]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SUITE = REPO.parent / "shared" / "rego-compliance" / "v1"

CHILD = r"""
import json, sys, time
t0 = time.perf_counter()
from cupcake_py.host import HostOptions, PolicyModule
t_import = time.perf_counter() - t0
wasm = open(sys.argv[1], "rb").read()
opts = HostOptions(cache_dir=__import__("pathlib").Path(sys.argv[2]))
t = time.perf_counter(); module = PolicyModule(wasm, opts); t_load = time.perf_counter() - t
t = time.perf_counter(); policy = module.instantiate(data_json=open(sys.argv[3], "rb").read()); t_inst = time.perf_counter() - t
inp = open(sys.argv[4], "rb").read() or None
t = time.perf_counter(); policy.eval_raw("eval", input_json=inp); t_first = time.perf_counter() - t
warm = []
for _ in range(200):
    t = time.perf_counter(); policy.eval_raw("eval", input_json=inp); warm.append(time.perf_counter() - t)
s = module.load_stats
print(json.dumps({"cache": s.cache, "import": t_import, "load": t_load, "compile": s.compile_s,
                  "deserialize": s.deserialize_s, "store": s.store_s, "instantiate": t_inst,
                  "first_eval": t_first, "warm_eval_median": sorted(warm)[len(warm) // 2]}))
"""


def _case(note: str) -> dict:
    sys.path.insert(0, str(REPO))
    from cupcake_py.core import values

    for path in sorted(SUITE.rglob("*.json")):
        for case in values.parse_json(path.read_bytes())["cases"]:
            if case["note"] == note:
                return case
    raise SystemExit(f"no case {note!r}")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--note", default="aggregates/count virtual")
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    from cupcake_py import ir
    from cupcake_py.core import values
    from cupcake_py.wasm import compile_policy

    case = _case(args.note)
    wasm = compile_policy(ir.load(case["plan"]))
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        (d / "m.wasm").write_bytes(wasm)
        (d / "data.json").write_text(values.dump_json(case.get("data", {})))
        (d / "input.json").write_text(values.dump_json(case["input"]) if "input" in case else "")
        cache = d / "cache"
        argv = [sys.executable, "-c", CHILD, str(d / "m.wasm"), str(cache), str(d / "data.json"), str(d / "input.json")]
        rows = []
        for i in range(args.runs + 1):
            if i == 0 or i == args.runs:  # first run: cache miss; last run: corrupt-free miss again
                for f in cache.glob("*.cwasm") if cache.exists() else []:
                    f.unlink()
            out = subprocess.run(argv, capture_output=True, text=True, check=True, cwd=REPO).stdout
            rows.append(json.loads(out))
    print(f"module: {args.note} ({len(wasm)} bytes)")
    for kind in ("miss", "hit"):
        sel = [r for r in rows if r["cache"] == kind]
        if not sel:
            continue
        print(f"cache {kind} ({len(sel)} runs, medians, ms):")
        for k in ("import", "load", "compile", "deserialize", "store", "instantiate", "first_eval", "warm_eval_median"):
            print(f"  {k:18} {statistics.median(r[k] for r in sel) * 1000:8.2f}")


if __name__ == "__main__":
    main()
