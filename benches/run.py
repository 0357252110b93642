"""cupcake-py benchmarks: what users feel, side by side with the floor and with peers.

    .venv/bin/python benches/run.py            # full run (make bench): benches/results.json, RESULTS.md, bench.png
    .venv/bin/python benches/run.py --quick    # smoke run (≤ 60 s): same files under benches/out/
    .venv/bin/python benches/run.py --only cold_eval,regorus --out-dir /tmp/b
    .venv/bin/python benches/run.py --render   # RESULTS.md + chart again from results.json

Every measure alternates the commands it compares within one run and reports median, p90 and
ratios (benches/measures/). A measure whose product piece is missing reports "not available:
<reason>" (also when the product itself raises); one whose own code crashes reports "failed:
<error>"; neither stops the others. results.json
is rewritten after every measure; RESULTS.md and the chart at the end.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
import traceback
from pathlib import Path
from typing import Any

STARTED = time.perf_counter()
HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE), str(HERE.parent)]

from measures import REGISTRY, resolve  # noqa: E402
from measures.common import Context, Unavailable, isolated_env  # noqa: E402
from measures.machine import describe, load_average  # noqa: E402
from measures.report import write_chart, write_markdown  # noqa: E402

BUDGET_S = {True: 60.0, False: 600.0}  # issue 10: --quick ≤ 60 s, make bench ≤ 10 min


def product_frame(e: BaseException) -> str | None:
    """file:line when the innermost frame of ours (benches/ or cupcake_py/) is product code."""
    product = str(HERE.parent / "cupcake_py")
    for frame in reversed(traceback.extract_tb(e.__traceback__)):
        if frame.filename.startswith(product):
            return f"{Path(frame.filename).relative_to(HERE.parent)}:{frame.lineno}"
        if frame.filename.startswith(str(HERE)):
            return None
    return None


def run_measure(key: str, ctx: Context) -> dict[str, Any]:
    t0 = time.perf_counter()
    load = load_average()
    try:
        out = {"status": "ok", **resolve(key)(ctx)}
    except Unavailable as e:
        out = {"status": "not available", "reason": str(e)}
    except Exception as e:  # noqa: BLE001 - a broken measure is reported, never hidden, and the run goes on
        where = product_frame(e)
        status = "failed" if where is None else "not available"  # a crash inside the product: not ready
        prefix = "" if where is None else f"the product raised at {where}: "
        out = {"status": status, "reason": f"{prefix}{type(e).__name__}: {str(e)[:2000]}",
               "traceback": traceback.format_exc(limit=8)[-3000:]}
    out["title"] = REGISTRY[key][0]
    out["seconds"] = round(time.perf_counter() - t0, 2)
    out["load_average"] = {"start": load, "end": load_average()}
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="few rounds, small sizes (CI smoke run, ≤ 60 s)")
    ap.add_argument("--only", default="", help=f"comma list of measures: {', '.join(REGISTRY)}")
    ap.add_argument("--out-dir", type=Path, default=None,
                    help="where results.json, RESULTS.md and bench.png go (default: benches/, --quick: benches/out/)")
    ap.add_argument("--render", action="store_true",
                    help="only rewrite RESULTS.md and the chart from the out dir's results.json")
    args = ap.parse_args(argv)
    keys = [k.strip() for k in args.only.split(",") if k.strip()] or list(REGISTRY)
    unknown = [k for k in keys if k not in REGISTRY]
    if unknown:
        ap.error(f"unknown measure(s) {', '.join(unknown)}; known: {', '.join(REGISTRY)}")
    out_dir: Path = args.out_dir or (HERE / "out" if args.quick else HERE)
    out_dir.mkdir(parents=True, exist_ok=True)
    if args.render:
        done = json.loads((out_dir / "results.json").read_text())
        write_markdown(done, out_dir / "RESULTS.md", write_chart(done, out_dir / "bench.png"))
        return 0
    results: dict[str, Any] = {"mode": "quick" if args.quick else "full", "machine": describe(),
                               "started_utc": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()), "measures": {}}
    print(f"cupcake-py benches ({results['mode']}): load average {results['machine']['load_average_start']} "
          f"on {results['machine']['nproc']} CPUs", flush=True)
    work = Path(tempfile.mkdtemp(prefix="cupcake-bench-"))
    try:
        ctx = Context(quick=args.quick, work=work, env=isolated_env(work))
        for key in keys:
            print(f"-- {REGISTRY[key][0]} ...", flush=True)
            m = results["measures"][key] = run_measure(key, ctx)
            line = m.get("headline") if m["status"] == "ok" else f"{m['status']}: {m['reason'][:300]}"
            print(f"   {line}  ({m['seconds']:.1f} s)", flush=True)
            write_json(out_dir / "results.json", results)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    results["load_average_end"] = load_average()
    if not args.quick:
        results["last_quick_run"] = last_quick_run()
    chart = results["chart"] = write_chart(results, out_dir / "bench.png")
    total = time.perf_counter() - STARTED
    results["seconds_total"] = round(total, 1)
    budget = BUDGET_S[args.quick]
    results["run_goal"] = {"issue": 10, "goal": f"{'--quick' if args.quick else 'make bench'} ≤ {budget:g} s",
                           "measured": f"{total:.0f} s", "met": total <= budget}
    write_json(out_dir / "results.json", results)
    write_markdown(results, out_dir / "RESULTS.md", chart)
    print(f"done in {total:.0f} s (budget {budget:g} s): {out_dir / 'results.json'}, {out_dir / 'RESULTS.md'}"
          + (f", {out_dir / chart['file']}" if chart.get("file") else f" (chart: {chart.get('reason')})"))
    return 0


def last_quick_run() -> dict[str, Any] | None:
    """The --quick goal (issue 10), from the last `make bench-quick` on this checkout (benches/out/)."""
    try:
        q = json.loads((HERE / "out" / "results.json").read_text())
    except (OSError, ValueError):
        return None
    if q.get("mode") != "quick" or "run_goal" not in q:
        return None
    return {"started_utc": q["started_utc"], "run_goal": q["run_goal"],
            "load_average_start": q["machine"]["load_average_start"]}


def write_json(path: Path, results: dict[str, Any]) -> None:
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n")
    os.replace(tmp, path)


if __name__ == "__main__":
    raise SystemExit(main())
