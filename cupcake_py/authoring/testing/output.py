"""Text and JSON output of `cupcake test`, in `opa test`'s formats (docs/testing.md).

Text (OPA's "pretty" reporter): every test that did not pass (every test with --verbose) as
`file:row:` then `data.pkg.test_x: PASS|FAIL|ERROR|SKIPPED (duration)` (Go duration format),
its error indented on the next line, its print output indented between blank lines; then a
line of 80 dashes and the counts `PASS: n/total`, `FAIL:`, `SKIPPED:`, `ERROR:` (non-zero
ones; total counts skipped tests). Cupcake adds, indented under a failing test, where it
stopped (expression, local variables, operand values).

JSON (OPA's JSON reporter): an array with one object per test: `location`, `package`
(`data.pkg`), `name`, `fail`/`error`/`skip` when set, `duration` (ns), `output` (base64 of the
printed text, when any); cupcake adds `failure` for diagnosed failing tests.

Coverage (`--coverage`, as OPA: a JSON report whatever --format says): `files` -> per file
`covered` / `not_covered` line ranges and `coverage` percent, plus the overall numbers.
"""

from __future__ import annotations

from cupcake_py.authoring.testing.cases import PHASES, UNDEFINED_TEXT, FileCoverage, TestResult, TestRun

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays off a cached run's start-up)
    from typing import Any

RULE = "-" * 80
OUTCOME = {"pass": "PASS", "fail": "FAIL", "error": "ERROR", "skip": "SKIPPED"}


def go_duration(seconds: float) -> str:
    """A duration as Go's time.Duration prints it (1.417µs, 12.5ms, 1.2s)."""
    ns = round(seconds * 1e9)
    if ns < 1000:
        return f"{ns}ns"
    for unit, size in (("µs", 1000), ("ms", 1_000_000), ("s", 1_000_000_000)):
        if ns < size * 1000 or unit == "s":
            whole, frac = divmod(ns, size)
            digits = len(str(size)) - 1
            text = f"{whole}.{frac:0{digits}d}".rstrip("0").rstrip(".")
            return f"{text}{unit}"
    return f"{ns}ns"  # (unreachable)


VALUE_RECURSION = 10_000
TOO_DEEP_TEXT = "<a value nested too deeply to show>"


def _value(v: Any) -> str:
    from cupcake_py.core import (
        values,  # (failing tests only, as orjson below: JSON and coverage reports only)
    )
    from cupcake_py.core.deep_stack import recursion_limit

    if isinstance(v, str) and v == UNDEFINED_TEXT:
        return v
    try:
        with recursion_limit(VALUE_RECURSION):  # values as deep as the parser allows (MAX_NESTING)
            return values.dump_rego(v)
    except (TypeError, ValueError):
        return repr(v)
    except RecursionError:
        return TOO_DEEP_TEXT


def _details(r: TestResult) -> list[str]:
    """Cupcake's diagnosis of a failing test (indented under its line)."""
    f = r.failure
    if f is None:
        if r.value is not None and r.status == "fail":
            return [f"  value: {_value(r.value)}"]
        return [f"  {r.message}"] if r.status == "fail" else []
    lines = [f"  failed at {f.location}: {f.source}"]
    for i, b in enumerate(f.bindings):
        shown = ", ".join(f"{k} = {_value(v)}" for k, v in dict(b).items())
        lines.append(f"  {'locals' if i == 0 else '    or'}: {shown}")
    labels = f.labels if len(f.labels) == len(f.operands) else [f"operand {i + 1}" for i in range(len(f.operands))]
    values = [(label, _value(v)) for label, v in zip(labels, f.operands, strict=True)]
    lines += [f"  {label}: {text}" for label, text in values if label != text]  # (not constants: `5: 5`)
    return lines


def _result_lines(r: TestResult, last_file: str) -> list[str]:
    loc = r.case.location
    out = [""] if last_file and last_file != loc.file else []
    out.append(f"{loc.file}:{loc.row}:")
    out.append(f"{r.case.full_name}: {OUTCOME[r.status]} ({go_duration(r.duration_s)})")
    out += _details(r)
    if r.output:
        out += ["", *(f"  {ln}" for ln in "\n".join(r.output).strip().splitlines()), ""]
    if r.status == "error":
        out.append(f"  {r.message}")
    return out


def _failures(run: TestRun) -> list[str]:
    """OPA's FAILURES section (`opa test --var-values`): each failing test again, then the
    location and text of the expression that failed, then (cupcake) its values."""
    out = [RULE, "FAILURES", RULE]
    for r in run.results:
        if r.status != "fail":
            continue
        out += [f"{r.case.full_name}: {OUTCOME[r.status]} ({go_duration(r.duration_s)})", ""]
        f = r.failure
        if f is not None:
            out += [f"  {f.location.file}:{f.location.row}:", f"    {f.source}"]
            out += [f"  {line}" for line in _details(r)[1:]]
        else:
            out += [f"  {line}" for line in _details(r)]
        out.append("")
    return out


def text(run: TestRun, verbose: bool = False, var_values: bool = False) -> str:
    out: list[str] = []
    last = ""
    for r in run.results:
        if verbose or r.status != "pass":
            out += _result_lines(r, last)
            last = r.case.location.file
    if var_values and run.count("fail"):
        out += _failures(run)
    if out:
        out.append(RULE)
    total = len(run.results)
    for status in ("pass", "fail", "skip", "error"):
        n = run.count(status)
        if n:
            out.append(f"{OUTCOME[status]}: {n}/{total}")
    return "\n".join(out) + "\n" if out else ""


def phase_lines(run: TestRun) -> str:
    """Per-phase seconds (stderr with --verbose)."""
    shown = ", ".join(f"{p} {run.phases.get(p, 0.0):.3f}s" for p in PHASES)
    origin = "build cache hit" if run.cached else f"{run.wasm_size} bytes of WASM"
    return (f"cupcake test: {len(run.files)} policy files, {len(run.data_files)} data files, {origin}, "
            f"{run.workers} process(es); {shown}\n")


def _json_value(v: Any) -> Any:
    import orjson

    from cupcake_py.core import values
    from cupcake_py.core.deep_stack import recursion_limit

    try:  # orjson nests at most 254 levels (the report adds 4 around a value)
        with recursion_limit(VALUE_RECURSION):
            return orjson.loads(orjson.dumps(values.thaw(v), default=lambda x: sorted(x, key=repr) if isinstance(
                x, frozenset) else str(x)))
    except (TypeError, RecursionError):  # (orjson.JSONEncodeError is a TypeError)
        return TOO_DEEP_TEXT


def _loc(loc: Any) -> dict[str, Any]:
    return {"file": loc.file, "row": loc.row, "col": loc.col}


def json_report(run: TestRun) -> str:
    import base64

    import orjson

    results = []
    for r in run.results:
        d: dict[str, Any] = {"location": _loc(r.case.location), "package": f"data.{r.case.package}",
                             "name": r.case.name}
        if r.status == "fail":
            d["fail"] = True
        elif r.status == "error":
            code, _, message = r.message.partition(": ")
            d["error"] = {"code": code, "message": message} if code.startswith("eval_") else \
                {"code": "eval_internal_error", "message": r.message}
        elif r.status == "skip":
            d["skip"] = True
        d["duration"] = round(r.duration_s * 1e9)
        if r.output:
            d["output"] = base64.b64encode(("\n".join(r.output) + "\n").encode()).decode()
        if r.failure is not None:
            f = r.failure
            d["failure"] = {"location": _loc(f.location), "expression": f.source,
                            "locals": [_json_value(dict(b)) for b in f.bindings],
                            "operands": [_json_value(v) for v in f.operands], "operand_texts": list(f.labels)}
        results.append(d)
    return orjson.dumps(results, option=orjson.OPT_INDENT_2).decode() + "\n"


def _ranges(rows: set[int]) -> list[dict[str, Any]]:
    out: list[list[int]] = []
    for r in sorted(rows):
        if out and out[-1][1] == r - 1:
            out[-1][1] = r
        else:
            out.append([r, r])
    return [{"start": {"row": a}, "end": {"row": b}} for a, b in out]


def _percent(covered: int, total: int) -> float:
    return round(100.0 * covered / total, 2) if total else 100.0


def total_coverage(coverage: dict[str, FileCoverage]) -> float:
    covered = sum(len(c.covered) for c in coverage.values())
    return _percent(covered, covered + sum(len(c.not_covered) for c in coverage.values()))


def coverage_report(coverage: dict[str, FileCoverage]) -> str:
    import orjson

    files: dict[str, Any] = {}
    covered = total = 0
    for name, c in coverage.items():
        n = len(c.covered) + len(c.not_covered)
        covered, total = covered + len(c.covered), total + n
        entry: dict[str, Any] = {"covered_lines": len(c.covered), "not_covered_lines": len(c.not_covered),
                                 "coverage": _percent(len(c.covered), n)}
        if c.covered:
            entry["covered"] = _ranges(c.covered)
        if c.not_covered:
            entry["not_covered"] = _ranges(c.not_covered)
        files[name] = entry
    doc = {"files": files, "covered_lines": covered, "not_covered_lines": total - covered,
           "coverage": _percent(covered, total)}
    return orjson.dumps(doc, option=orjson.OPT_INDENT_2).decode() + "\n"
