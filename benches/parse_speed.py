"""Rego parse throughput: MB/s of CPU time (best of N rounds; robust on a shared machine) over
the compliance-suite modules, each parsed as its own file.

    .venv/bin/python benches/parse_speed.py [--rounds N]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from cupcake_py.rego import parse_module
from cupcake_py.rego.lexer import tokenize

SUITE = Path(__file__).resolve().parents[1].parent / "shared" / "rego-compliance" / "v1"


def corpus() -> list[str]:
    out: list[str] = []
    for f in sorted(SUITE.rglob("*.json")):
        for case in json.loads(f.read_text())["cases"]:
            out.extend(case.get("modules") or [])
    return out


def measure(fn, modules: list[str], rounds: int) -> float:  # type: ignore[no-untyped-def]
    best = float("inf")
    for _ in range(rounds):
        t0 = time.process_time()
        for i, text in enumerate(modules):
            fn(text, f"m{i}.rego")
        best = min(best, time.process_time() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    modules = corpus()
    size = sum(len(m.encode()) for m in modules)
    lex = measure(tokenize, modules, args.rounds)
    full = measure(parse_module, modules, args.rounds)
    mb = size / 1e6
    print(f"corpus: {len(modules)} modules, {mb:.2f} MB")
    print(f"lex only:     {mb / lex:6.2f} MB/s  ({lex * 1000:.0f} ms)")
    print(f"parse_module: {mb / full:6.2f} MB/s  ({full * 1000:.0f} ms)")


if __name__ == "__main__":
    main()
