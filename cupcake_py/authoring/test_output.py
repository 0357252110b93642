"""Text and JSON output of `cupcake test`."""

from __future__ import annotations

from typing import Any

import orjson

from cupcake_py import values
from cupcake_py.authoring.testrunner import TestResult, TestRun


def _value(v: Any) -> str:
    if isinstance(v, str) and v == "<undefined>":
        return v
    try:
        return values.dump_rego(v)
    except (TypeError, ValueError):
        return repr(v)


def _ranges(rows: set[int]) -> str:
    out: list[str] = []
    for r in sorted(rows):
        if out and out[-1].split("-")[-1] == str(r - 1):
            out[-1] = f"{out[-1].split('-')[0]}-{r}"
        else:
            out.append(str(r))
    return ", ".join(out)


def _result_lines(r: TestResult, verbose: bool) -> list[str]:
    ms = f"{r.duration_s * 1000:.1f}ms"
    head = f"{r.case.full_name}: {r.status.upper()}"
    if r.status == "skip":
        return [f"{head} (todo)"] if verbose else []
    if r.status == "pass":
        return [f"{head} ({ms})"] if verbose else []
    loc = r.case.location
    lines = [f"{head} ({ms})", f"    test at {loc.file}:{loc.row}:{loc.col}: {r.message}"]
    f = r.failure
    if f is not None:
        lines.append(f"    failed at {f.location}: {f.source}")
        for i, b in enumerate(f.bindings):
            shown = ", ".join(f"{k} = {_value(v)}" for k, v in dict(b).items())
            lines.append(f"    {'locals' if i == 0 else '      or'}: {shown}")
        for i, v in enumerate(f.operands):
            lines.append(f"    operand {i + 1}: {_value(v)}")
    elif r.value is not None and r.status == "fail":
        lines.append(f"    value: {_value(r.value)}")
    lines += [f"    print: {ln}" for ln in r.output]
    return lines


def text(run: TestRun, verbose: bool = False) -> str:
    out: list[str] = []
    by_file: dict[str, list[TestResult]] = {}
    for r in run.results:
        by_file.setdefault(r.case.location.file, []).append(r)
    for file, results in by_file.items():
        lines = [ln for r in results for ln in _result_lines(r, verbose)]
        if lines:
            out.append(f"{file}:")
            out += lines
    if run.coverage is not None:
        out.append("coverage (lines of policy files whose expressions ran):")
        for file, c in run.coverage.items():
            missing = f"; not covered: {_ranges(c.not_covered)}" if c.not_covered else ""
            out.append(f"  {file}: {c.percent:.1f}% ({len(c.covered)}/{len(c.covered) + len(c.not_covered)}){missing}")
    total = len([r for r in run.results if r.status != "skip"])
    out.append("-" * 60)
    out.append(f"PASS: {run.count('pass')}/{total}")
    for status in ("fail", "error", "skip"):
        if run.count(status):  # type: ignore[arg-type]
            out.append(f"{status.upper()}: {run.count(status)}/{total}")  # type: ignore[arg-type]
    if run.wasm_size:
        out.append(f"compiled to {run.wasm_size} bytes of WASM in {run.build_s:.2f}s")
    return "\n".join(out) + "\n"


def _json_value(v: Any) -> Any:
    return orjson.loads(orjson.dumps(values.thaw(v), default=lambda x: sorted(x, key=repr) if isinstance(
        x, frozenset) else str(x)))


def json_report(run: TestRun) -> str:
    results = []
    for r in run.results:
        loc = r.case.location
        d: dict[str, Any] = {"name": r.case.full_name, "package": r.case.package, "status": r.status,
                             "location": {"file": loc.file, "row": loc.row, "col": loc.col},
                             "duration_ms": round(r.duration_s * 1000, 3), "message": r.message, "output": r.output}
        if r.failure is not None:
            f = r.failure
            d["failure"] = {"location": {"file": f.location.file, "row": f.location.row, "col": f.location.col},
                            "expression": f.source, "locals": [_json_value(dict(b)) for b in f.bindings],
                            "operands": [_json_value(v) for v in f.operands]}
        results.append(d)
    doc: dict[str, Any] = {
        "summary": {s: run.count(s) for s in ("pass", "fail", "error", "skip")},  # type: ignore[arg-type]
        "wasm_bytes": run.wasm_size, "build_seconds": round(run.build_s, 3), "results": results}
    if run.coverage is not None:
        doc["coverage"] = {f: {"percent": round(c.percent, 2), "covered": sorted(c.covered),
                               "not_covered": sorted(c.not_covered)} for f, c in run.coverage.items()}
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode() + "\n"
