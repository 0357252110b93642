"""Run OPA's Rego compliance suite through cupcake-py's WebAssembly pipeline.

    .venv/bin/python tests/compliance/run.py --suite ../shared/rego-compliance/v1 [--mode plan|source]
        [--strict] [--json OUT] [--filter SUBSTR] [--jobs N] [--compiler winch|cranelift] [--verbose]

plan mode: the case's OPA IR → our WASM backend → our wasmtime host.
source mode: the case's modules + query → our front end and planner → backend → host.
--strict: the host runs with strict builtin errors (OPA's --strict-builtin-errors): the
strict_error cases must fail with OPA's error code and message (judge.judge_strict).
Our own cases (no OPA IR, so source mode only): --suite tests/compliance/cases --mode source.
The last line printed is `N passed, M failed[, K skipped]`. Exit status: 0 when nothing
failed, 1 when some cases failed, 2 when the run itself could not start.
"""

from __future__ import annotations

import argparse
import collections
import json
import multiprocessing
import os
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `tests.compliance` and `cupcake_py` importable
    _root = Path(__file__).resolve().parents[2]
    sys.path[:0] = [str(_root)]
    __package__ = "tests.compliance"  # noqa: A001

from .runner import CaseResult, Mode, SourceModeUnavailable, run_case, source_compiler  # noqa: E402
from .suite import DEFAULT_SUITE, iter_cases  # noqa: E402

_MODE: Mode = "plan"
_STRICT = False


def _work(case: dict[str, Any]) -> dict[str, Any]:
    return run_case(case, _MODE, _STRICT).as_dict()


def _init(mode: Mode, strict: bool = False) -> None:
    global _MODE, _STRICT
    _MODE, _STRICT = mode, strict


def run_suite(suite: Path, mode: Mode = "plan", substr: str | None = None, jobs: int | None = None,
              progress: bool = False, strict: bool = False) -> list[CaseResult]:
    """Run every case (in parallel when jobs > 1); results in suite order."""
    if mode == "source":
        source_compiler()  # fail fast, before any work
    cases = list(iter_cases(suite, substr))
    jobs = jobs or min(os.cpu_count() or 1, 4)
    out: list[dict[str, Any]] = []
    if jobs <= 1 or len(cases) < 8:
        _init(mode, strict)
        out = [_work(c) for c in cases]
    else:
        # Not "fork": the parent may already run wasmtime/threads (pytest, the host's epoch timer),
        # and a forked child can inherit a held lock and hang forever.
        ctx = multiprocessing.get_context("spawn")
        with ctx.Pool(jobs, initializer=_init, initargs=(mode, strict), maxtasksperchild=200) as pool:
            for i, r in enumerate(pool.imap(_work, cases, chunksize=4)):
                out.append(r)
                if progress and (i + 1) % 200 == 0:
                    print(f"  {i + 1}/{len(cases)}", file=sys.stderr, flush=True)
    return [CaseResult(**r) for r in out]


def summarize(results: list[CaseResult], seconds: float) -> list[str]:
    counts = collections.Counter(r.status for r in results)
    cats = collections.Counter(r.category for r in results if r.status == "failed")
    missing = collections.Counter(b for r in results for b in r.missing_builtins)
    lines = [f"suite: {len(results)} cases in {seconds:.1f} s"]
    if cats:
        lines.append("failures by category: " + ", ".join(f"{c} {n}" for c, n in cats.most_common()))
    if missing:
        lines.append(f"cases needing a host builtin neither native nor implemented: {cats['needs-host-builtin']} "
                     "(builtins: " + ", ".join(f"{b} {n}" for b, n in missing.most_common()) + ")")
    tail = f"{counts['passed']} passed, {counts['failed']} failed"
    if counts["skipped"]:
        tail += f", {counts['skipped']} skipped"
    return [*lines, tail]


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--suite", type=Path, default=DEFAULT_SUITE, help="suite folder (e.g. ../shared/rego-compliance/v1)")
    ap.add_argument("--mode", choices=["plan", "source"], default="plan")
    ap.add_argument("--strict", action="store_true", help="strict builtin errors (judge.judge_strict)")
    ap.add_argument("--json", type=Path, help="write per-case results (note, status, reason, category) here")
    ap.add_argument("--filter", help="only cases whose note contains this text")
    ap.add_argument("--jobs", type=int, default=None, help="worker processes (default: CPU count)")
    ap.add_argument("--compiler", choices=["winch", "cranelift"], default=None,
                    help="wasmtime compiler for the case modules (default: winch, or $CUPCAKE_COMPLIANCE_COMPILER)")
    ap.add_argument("--verbose", "-v", action="store_true", help="print every failure")
    args = ap.parse_args(argv)
    if args.compiler:  # read by runner.py in this process and in the spawned workers
        os.environ["CUPCAKE_COMPLIANCE_COMPILER"] = args.compiler
        from . import runner

        runner.OPTIONS = runner.HostOptions(cache_dir=None, deadline=5.0, compiler=args.compiler)
    if not args.suite.is_dir():
        print(f"run.py: suite folder not found: {args.suite}", file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    try:
        results = run_suite(args.suite, args.mode, args.filter, args.jobs, progress=True, strict=args.strict)
    except SourceModeUnavailable as e:
        print(f"run.py: {e}", file=sys.stderr)
        return 2
    seconds = time.perf_counter() - t0
    if args.json:
        args.json.write_text(json.dumps([r.as_dict() for r in results], indent=1, ensure_ascii=False))
    if args.verbose:
        for r in results:
            if r.status == "failed":
                print(f"FAIL [{r.category}] {r.note}: {r.reason[:300]}")
    for line in summarize(results, seconds):
        print(line)
    return 0 if all(r.status != "failed" for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
