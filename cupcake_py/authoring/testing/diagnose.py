"""Why a test failed: the first body expression of a failing `cupcake test` test that did not
hold, the local variables bound before it and the values of its operands.

In: the parsed modules, the failing results (each with its rule), the sources and the
evaluation settings. A second, diagnostic module is built (`instrument` adds one rule per body
prefix and per operand; only the test modules that get rules are copied, the others shared)
and evaluated. Out: `failure` of each result filled in. An operand that cannot be evaluated on
its own makes a retry with the prefixes only; a diagnosis that cannot be built or evaluated
leaves `failure` None (the test still fails; the report only lacks the details).
"""

from __future__ import annotations

import copy
from typing import Any

from cupcake_py.authoring import instrument
from cupcake_py.authoring.testing.build import compile_wasm
from cupcake_py.authoring.testing.cases import UNDEFINED_TEXT, Failure, TestResult
from cupcake_py.authoring.testing.evaluate import EvalSetup, Evaluator
from cupcake_py.core.errors import CupcakeError, Location
from cupcake_py.host.errors import HostError
from cupcake_py.rego import ast as A


def _source_line(sources: dict[str, str], loc: Location) -> str:
    lines = sources.get(loc.file, "").splitlines()
    return lines[loc.row - 1].strip() if 0 < loc.row <= len(lines) else ""


def diagnose(modules: list[A.Module], failed: list[TestResult], sources: dict[str, str], setup: EvalSetup) -> None:
    """Fill `failure` of each failing test (first expression that did not hold, values).
    Only the test modules that get diagnostic rules are copied; the others are shared."""

    def work_copy() -> list[A.Module]:
        work = list(modules)
        for i in {r.case.module_index for r in failed}:
            m = copy.copy(modules[i])
            m.rules = list(m.rules)
            work[i] = m
        return work

    work = work_copy()
    plans = []
    entrypoints: list[str] = []
    for n, res in enumerate(failed):
        case = res.case
        assert case.rule is not None
        module = work[case.module_index]
        plan = instrument.add_diagnosis(module, case.rule, n)
        ops = [instrument.add_operands(module, case.rule, n, k) for k in range(len(plan.exprs))]
        plans.append((res, plan, ops))
        prefix = case.package.split(".")
        entrypoints += ["/".join([*prefix, p]) for p in plan.prefixes]
        entrypoints += ["/".join([*prefix, o]) for group in ops for o in group]
    if not entrypoints:
        return
    ev = _diagnostic_build(work, entrypoints, setup)
    if ev is None:  # an operand that cannot be evaluated on its own: retry with the prefixes only
        work = work_copy()
        for n, res in enumerate(failed):
            assert res.case.rule is not None  # as in the first round
            instrument.add_diagnosis(work[res.case.module_index], res.case.rule, n)
        plans = [(res, plan, [[] for _ in plan.exprs]) for res, plan, _ in plans]
        entrypoints = [e for e in entrypoints if "_op" not in e.rsplit("/", 1)[-1]]
        ev = _diagnostic_build(work, entrypoints, setup)
        if ev is None:
            return
    for res, plan, ops in plans:
        res.failure = _first_failure(ev, res, plan, ops, sources)


def _diagnostic_build(modules: list[A.Module], entrypoints: list[str], setup: EvalSetup) -> Evaluator | None:
    try:
        wasm = compile_wasm(modules, entrypoints, {})
        return Evaluator(setup.with_wasm(wasm))
    except (CupcakeError, RecursionError):
        return None


def _eval_or_none(ev: Evaluator, entrypoint: str) -> list[Any] | None:
    try:
        rows = ev.eval(entrypoint)
    except HostError:
        return None
    return rows[0]["result"] if rows else []


def _first_failure(ev: Evaluator, res: TestResult, plan: instrument.DiagPlan, ops: list[list[str]],
                   sources: dict[str, str]) -> Failure | None:
    prefix = res.case.package.split(".")
    previous: list[Any] = []
    for k, name in enumerate(plan.prefixes):
        solutions = _eval_or_none(ev, "/".join([*prefix, name]))
        if solutions is None:
            return None
        if not solutions:
            expr = plan.exprs[k]
            values, labels = [], []
            for o, text in zip(ops[k], instrument.operand_texts(expr), strict=False):
                vals = _eval_or_none(ev, "/".join([*prefix, o])) or []
                values.append(sorted(vals, key=repr)[0] if len(vals) == 1 else
                              sorted(vals, key=repr) if vals else UNDEFINED_TEXT)
                labels.append(text + (" (one value per solution)" if len(vals) > 1 else ""))
            return Failure(expr.location, _source_line(sources, expr.location),
                           [b for b in sorted(previous, key=repr) if b][:5], values, labels)
        previous = list(solutions)
    return None
