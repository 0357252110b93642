"""Cost of the shell analysis (input.shell, cupcake_py/shell): tree-sitter import and
parser set-up in a fresh process, the analysis package's import, and the in-process cost of
parsing and of a whole analysis per typical agent command. Reports medians, asserts nothing.

    .venv/bin/python benches/shell_analysis.py [--runs 9] [--loops 300] [--json]

Process timings are wall clock of `python -c ...` children minus a `python -c pass` child
measured interleaved (so interpreter start-up is not counted); they are noisy on a busy
machine, as all timings here are. Children run with bytecode caching on (as an installed
cupcake does).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

COMMANDS = [
    'git commit -m "fix: parser"',
    "pytest -q tests/shell",
    "rm -rf build/",
    "sed -i 's/a/b/' src/x.py",
    'for f in src/*.py; do wc -l "$f"; done',
    "cd src && ls -la | grep py > ../out.txt 2>&1",
    "npm install && npm run build",
    "bash -c 'rm -rf se\"\"crets'",
]

CHILDREN = {
    "python -c pass": "pass",
    "import tree_sitter + tree_sitter_bash + Parser": (
        "import tree_sitter, tree_sitter_bash; tree_sitter.Parser(tree_sitter.Language(tree_sitter_bash.language()))"),
    "import cupcake_py.shell + first analyze": (
        "from cupcake_py.shell import analyze; analyze('git commit -m x', '/tmp')"),
}


CHILD_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}  # as an installed cupcake


def _child_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _child_ms(code: str) -> tuple[float, float]:
    """(wall ms, CPU ms) of one child."""
    cpu0, start = _child_cpu(), time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True, cwd=REPO, env=CHILD_ENV)
    return (time.perf_counter() - start) * 1e3, (_child_cpu() - cpu0) * 1e3


def process_costs(runs: int) -> dict[str, dict[str, float]]:
    wall: dict[str, list[float]] = {k: [] for k in CHILDREN}
    cpu: dict[str, list[float]] = {k: [] for k in CHILDREN}
    for _ in range(runs):  # interleaved: load changes hit every variant alike
        for name, code in CHILDREN.items():
            w, c = _child_ms(code)
            wall[name].append(w)
            cpu[name].append(c)
    out: dict[str, dict[str, float]] = {}
    for name in CHILDREN:
        base = name != "python -c pass"
        out[name] = {
            "wall_ms": round(statistics.median(wall[name]) - (statistics.median(wall["python -c pass"]) if base else 0), 2),
            "cpu_ms": round(statistics.median(cpu[name]) - (statistics.median(cpu["python -c pass"]) if base else 0), 2),
        }
    return out


def in_process(loops: int) -> dict[str, dict[str, float]]:
    from cupcake_py.shell import analyze
    from cupcake_py.shell.parse import parse

    out: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for d in ("src", "build"):
            (Path(tmp) / d).mkdir()
        for f in ("src/x.py", "src/y.py"):
            (Path(tmp) / f).write_text("x\n")
        for command in COMMANDS:
            src = command.encode()
            start = time.perf_counter()
            for _ in range(loops):
                parse(src)
            parse_us = (time.perf_counter() - start) / loops * 1e6
            start = time.perf_counter()
            for _ in range(loops):
                analyze(command, tmp)
            analyze_us = (time.perf_counter() - start) / loops * 1e6
            out[command] = {"parse_us": round(parse_us, 1), "analyze_us": round(analyze_us, 1)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--runs", type=int, default=9, help="fresh processes per variant (default 9)")
    ap.add_argument("--loops", type=int, default=300, help="in-process repetitions per command (default 300)")
    ap.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = ap.parse_args()
    result = {"process_ms_over_python": process_costs(args.runs), "per_command": in_process(args.loops)}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print("fresh process, median ms, wall / CPU (python -c pass is absolute; the others on top of it):")
    for name, row in result["process_ms_over_python"].items():
        print(f"  {row['wall_ms']:8.2f} {row['cpu_ms']:8.2f}  {name}")
    print("in process, per command (µs): parse only / whole analysis")
    for command, row in result["per_command"].items():
        print(f"  {row['parse_us']:8.1f} {row['analyze_us']:9.1f}  {command}")


if __name__ == "__main__":
    main()
