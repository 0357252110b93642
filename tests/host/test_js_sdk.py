"""Cross-check: modules compiled by our backend give the same results in OPA's official
JavaScript SDK (@open-policy-agent/opa-wasm, pinned in tests/js/package.json, installed by
`make node-deps`) as in our wasmtime host.

Cases: compliance plans that call only builtins native to our runtime (the JS SDK would
need host builtins supplied otherwise), chosen so every IR statement type that such plans
use is covered, then topped up to SAMPLE cases spread over the suite.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
import wasmtime

from cupcake_py.core import values
from cupcake_py.host import UNDEFINED, HostOptions, PolicyModule
from cupcake_py.host import errors as host_errors
from tests.compliance.suite import DEFAULT_SUITE

REPO = Path(__file__).resolve().parents[2]
JS_DIR = REPO / "tests" / "js"
SUITE = DEFAULT_SUITE  # $CUPCAKE_COMPLIANCE_SUITE or <repo>/../shared/rego-compliance/v1
SAMPLE = 90
MIN_COMPARED = 50
JS_SAFE_INT = 2**53

pytestmark = pytest.mark.skipif(not SUITE.is_dir(), reason=f"compliance suite not found at {SUITE}")


def _stmt_types(node: Any, out: set[str]) -> set[str]:
    if isinstance(node, dict):
        t = node.get("type")
        if isinstance(t, str) and t.endswith("Stmt"):
            out.add(t)
        for v in node.values():
            _stmt_types(v, out)
    elif isinstance(node, list):
        for v in node:
            _stmt_types(v, out)
    return out


def _native_exports() -> set[str]:
    from cupcake_py.wasm.runtime import load_runtime_bytes

    module = wasmtime.Module(wasmtime.Engine(), load_runtime_bytes())
    return {e.name for e in module.exports}


def _eligible() -> list[tuple[dict[str, Any], set[str]]]:
    exports = _native_exports()
    skip_notes = {"functions/default", "data/toplevel integer", "data/nested integer"}
    out = []
    for path in sorted(SUITE.rglob("*.json")):
        for case in values.parse_json(path.read_bytes())["cases"]:
            names = [b["name"] for b in case["plan"]["static"].get("builtin_funcs") or []]
            if case["note"] in skip_notes or "withkeyword" in case["note"] and "needs eval" in case["note"]:
                continue
            if all("opa_bi_" + n.replace(".", "_") in exports for n in names):
                out.append((case, _stmt_types(case["plan"], set())))
    return out


def _select(eligible: list[tuple[dict[str, Any], set[str]]]) -> tuple[list[dict[str, Any]], set[str]]:
    all_types = set().union(*(t for _, t in eligible))
    chosen: dict[str, dict[str, Any]] = {}
    covered: set[str] = set()
    for stmt in sorted(all_types):  # greedy: one case for each type not covered yet
        if stmt in covered:
            continue
        case, types = next((c, t) for c, t in eligible if stmt in t)
        chosen[case["note"]] = case
        covered |= types
    step = max(1, len(eligible) // SAMPLE)
    for case, _ in eligible[::step]:
        if len(chosen) >= SAMPLE:
            break
        chosen.setdefault(case["note"], case)
    return list(chosen.values()), all_types


def _js_safe(v: Any) -> bool:
    if isinstance(v, bool) or v is None or isinstance(v, str):
        return True
    if isinstance(v, int):
        return abs(v) < JS_SAFE_INT
    if isinstance(v, Decimal):
        return len(v.as_tuple().digits) <= 15 and abs(v.adjusted()) < 300
    if isinstance(v, list):
        return all(_js_safe(x) for x in v)
    if isinstance(v, dict):
        return all(_js_safe(x) for x in v.values())
    return True


def _ours(case: dict[str, Any], wasm: bytes) -> tuple[str, Any]:
    policy = PolicyModule(wasm, HostOptions(cache_dir=None, deadline=5.0)).instantiate(
        data_json=values.dump_json(case.get("data", {})).encode())
    if "input_term" in case:
        inp = values.parse_rego(case["input_term"])
    else:
        inp = case.get("input", UNDEFINED)
    try:
        return "result", values.parse_json(policy.eval_raw("eval", inp))
    except host_errors.AbortError as e:
        return "error", e.message


def test_js_sdk_agrees_with_our_host(tmp_path: Path) -> None:
    from cupcake_py import ir
    from cupcake_py.wasm import compile_policy

    node = shutil.which("node")
    assert node, "node is required (make test installs the JS SDK through `make node-deps`)"
    assert (JS_DIR / "node_modules" / "@open-policy-agent" / "opa-wasm").is_dir(), "run `make node-deps` first"

    cases, all_types = _select(_eligible())
    jobs, expected, covered = [], {}, set()
    for i, case in enumerate(cases):
        wasm = compile_policy(ir.load(case["plan"]))
        kind, got = _ours(case, wasm)
        if kind == "result" and not _js_safe(got):
            continue  # JS numbers are doubles: such results cannot round-trip through the SDK
        path = tmp_path / f"case{i}.wasm"
        path.write_bytes(wasm)
        mem_min = next(t.type.limits.min for t in wasmtime.Module(wasmtime.Engine(), wasm).imports
                       if t.name == "memory")
        if "input_term" in case:
            text: str | None = values.dump_rego(values.parse_rego(case["input_term"]))
        else:
            text = values.dump_json(case["input"]) if "input" in case else None
        jobs.append({"name": case["note"], "wasm": str(path), "data": values.dump_json(case.get("data", {})),
                     "input": text, "entrypoint": "eval", "memory": max(mem_min, 5)})
        expected[case["note"]] = (kind, got)
        covered |= _stmt_types(case["plan"], set())
    assert len(jobs) >= MIN_COMPARED, f"only {len(jobs)} comparable cases"
    assert covered == all_types, f"statement types not covered: {sorted(all_types - covered)}"

    jobs_file = tmp_path / "jobs.json"
    jobs_file.write_text(json.dumps(jobs))
    proc = subprocess.run([node, str(JS_DIR / "run_policies.cjs"), str(jobs_file)], cwd=JS_DIR,
                          capture_output=True, text=True, timeout=300, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    mismatches = []
    for row in json.loads(proc.stdout):
        kind, ours = expected[row["name"]]
        if kind == "error":
            if "error" not in row or ours not in row["error"]:
                mismatches.append((row["name"], f"ours: error {ours!r}", row))
            continue
        theirs = values.parse_json(json.dumps(row.get("result")))
        if "error" in row or len(theirs) != len(ours) or \
                any(values.compare(a, b) != 0 for a, b in zip(ours, theirs, strict=True)):
            mismatches.append((row["name"], f"ours: {values.dump_json(ours)[:200]}", row))
    assert not mismatches, f"{len(mismatches)} of {len(jobs)} differ: {mismatches[:5]}"
