"""`make fuzz`: coverage-guided fuzzing of cupcake's input boundaries with atheris (libFuzzer).

    .venv/bin/python fuzz/run.py [--seconds 60] [TARGET ...]      # every target, FUZZ_SECONDS each
    .venv/bin/python fuzz/run.py --worker TARGET CORPUS [libFuzzer flags]   # one target (internal)

Targets: fuzz/targets.py. Seed corpora are made from the repository's examples (the example
events of both harnesses, their Bash commands, every shipped and example .rego file) into
`fuzz/corpus/<target>/` (kept between runs, git-ignored, so a longer run goes on where the
last one stopped). Each target runs in its own process for the given time; the summary reports
executions, the corpus size and findings. A finding (an input that raised, or was slower than
FUZZ_SLOW_SECONDS) is written to `fuzz/findings/<target>/`; exit status 1 when there is any.
Fixed findings become regression inputs in `fuzz/regressions/<target>/`, replayed by
tests/fuzz/test_fuzz_findings.py in `make test`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

FUZZ = Path(__file__).resolve().parent
REPO = FUZZ.parent
sys.path.insert(0, str(REPO))


def _events(harness: str) -> list[bytes]:
    out = []
    for case in sorted((REPO / "harness" / harness / "examples" / "cases").glob("*.json")):
        event = json.loads(case.read_text("utf-8"))["event"]
        out.append((event if isinstance(event, str) else json.dumps(event)).encode("utf-8", "surrogatepass"))
    return out


def _commands() -> list[bytes]:
    out = []
    for harness in ("opencode", "claude"):
        for raw in _events(harness):
            try:
                event = json.loads(raw)
            except ValueError:
                continue
            args = event.get("args") or event.get("tool_input") if isinstance(event, dict) else None
            if isinstance(args, dict) and isinstance(args.get("command"), str):
                out.append(args["command"].encode())
    return out


def _rego() -> list[bytes]:
    files = [*REPO.glob("policies/**/*.rego"), *REPO.glob("examples/**/*.rego"), *REPO.glob("harness/*/examples/**/*.rego")]
    return [p.read_bytes() for p in sorted(files)]


def seeds(target: str) -> list[bytes]:
    if target == "rego_parser":
        return _rego()
    if target == "shell_analysis":
        return _commands()
    if target in ("opencode_event", "eval_opencode"):
        return _events("opencode")
    if target in ("claude_event", "eval_claude"):
        return _events("claude")
    return _events("opencode") + _events("claude")  # json_reader


def corpus(target: str) -> Path:
    d = FUZZ / "corpus" / target
    d.mkdir(parents=True, exist_ok=True)
    for i, data in enumerate(seeds(target)):
        p = d / f"seed-{i:04d}"
        if not p.exists():
            p.write_bytes(data)
    return d


def worker(target: str, argv: list[str]) -> None:
    import atheris

    from fuzz.targets import TARGETS

    fn = TARGETS[target]
    for p in sorted(Path(argv[0]).iterdir())[:5]:  # import what the target needs before instrumenting
        try:
            fn(p.read_bytes())
        except Exception:  # noqa: BLE001, S110 - a seed that fails is found again by the fuzzer
            pass
    atheris.instrument_all()
    atheris.Setup([sys.argv[0], *argv], fn)
    atheris.Fuzz()


def run_target(target: str, seconds: int) -> dict[str, object]:
    findings = FUZZ / "findings" / target
    findings.mkdir(parents=True, exist_ok=True)
    before = set(findings.iterdir())
    d = corpus(target)
    cmd = [sys.executable, str(Path(__file__)), "--worker", target, str(d), f"-max_total_time={seconds}",
           "-timeout=0", "-rss_limit_mb=4096", "-max_len=65536", f"-artifact_prefix={findings}/", "-print_final_stats=1"]
    t0 = time.monotonic()
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=REPO, timeout=seconds + 600)
    log = proc.stderr
    runs = re.findall(r"stat::number_of_executed_units:\s*(\d+)", log) or re.findall(r"Done (\d+) runs", log)
    found = sorted(str(p.relative_to(REPO)) for p in set(findings.iterdir()) - before)
    if proc.returncode != 0 and not found:
        found = [f"exit status {proc.returncode} without an artifact: {log.strip().splitlines()[-1:]}"]
    return {"target": target, "seconds": round(time.monotonic() - t0, 1), "executions": int(runs[-1]) if runs else 0,
            "corpus": len(list(d.iterdir())), "findings": found,
            "first error": next((line for line in log.splitlines() if "Finding" in line or "Error" in line), "")}


def main() -> int:
    if len(sys.argv) > 2 and sys.argv[1] == "--worker":
        worker(sys.argv[2], sys.argv[3:])
        return 0
    from fuzz.targets import TARGETS

    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=int, default=int(os.environ.get("FUZZ_SECONDS", "60")))
    ap.add_argument("targets", nargs="*", choices=[[], *TARGETS], default=[])
    args = ap.parse_args()
    results = [run_target(t, args.seconds) for t in (args.targets or list(TARGETS))]
    print(f"{'target':16s} {'seconds':>8s} {'executions':>11s} {'corpus':>7s}  findings")
    for r in results:
        print(f"{r['target']:16s} {r['seconds']:>8} {r['executions']:>11} {r['corpus']:>7}  "
              f"{len(r['findings'])} {' '.join(map(str, r['findings']))}")  # type: ignore[arg-type]
    return 1 if any(r["findings"] for r in results) else 0


if __name__ == "__main__":
    raise SystemExit(main())
