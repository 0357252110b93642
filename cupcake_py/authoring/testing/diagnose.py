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
    for n, res in enumerate(failed):
        f = res.failure
        if f is not None and f.every is not None:  # OPA's failure line: the expression inside `every`
            res.failure = _inside_every(modules, res, f, sources, setup, n) or f


EVERY_KEY = "cupcakediagkey"  # the element key of an `every` without one


def _inside_every(modules: list[A.Module], res: TestResult, f: Failure, sources: dict[str, str], setup: EvalSetup,
                  n: int) -> Failure | None:
    """The first expression of a failing `every` body that some element does not pass: the test's
    body up to the `every`, then `some key, value in domain` and the `every` body (under the
    `every`'s `with` modifiers) as prefix rules; the first prefix that loses an element fails."""
    from cupcake_py.rego.parse_nodes import call_term

    case, (k, expr) = res.case, f.every
    assert case.rule is not None and isinstance(expr.terms, A.Every)
    every, loc = expr.terms, expr.location
    key = every.key or A.var_term(EVERY_KEY, loc)
    some = A.Expr(A.SomeDecl([call_term("in3", [key, every.value, every.domain], loc)], loc),
                  with_=copy.deepcopy(expr.with_), location=loc)
    inner = [A.Expr(e.terms, e.negated, [*e.with_, *copy.deepcopy(expr.with_)], location=e.location)
             for e in every.body if not e.generated]
    body = [*[e for e in case.rule.body if not e.generated][:k], some, *inner]
    rule = A.Rule(copy.deepcopy(case.rule.head), copy.deepcopy(body), location=case.rule.location)
    work = list(modules)
    module = copy.copy(modules[case.module_index])
    module.rules = list(module.rules)
    work[case.module_index] = module
    tag = len(modules[case.module_index].rules) + n  # (distinct from the first round's rules)
    plan = instrument.add_diagnosis(module, rule, tag)
    ops = [instrument.add_operands(module, rule, tag, j) for j in range(len(plan.exprs))]
    prefix = case.package.split(".")
    ev = _diagnostic_build(work, ["/".join([*prefix, p]) for p in plan.prefixes]
                           + ["/".join([*prefix, o]) for group in ops for o in group], setup)
    if ev is None:
        return None
    name = key.value.name if isinstance(key.value, A.Var) else EVERY_KEY

    def elements(rows: Any) -> dict[str, dict[str, Any]]:  # (binding objects arrive as FrozenObjects)
        objects = [dict(r.items()) for r in rows if hasattr(r, "items")]
        return {repr(r.get(name)): r for r in objects}

    before = elements(_eval_or_none(ev, "/".join([*prefix, plan.prefixes[k]])) or [])
    for j in range(k + 1, len(plan.prefixes)):
        rows = _eval_or_none(ev, "/".join([*prefix, plan.prefixes[j]]))
        if rows is None:
            return None
        now = elements(rows)
        lost = [before[e] for e in sorted(before) if e not in now]
        if lost:
            e = plan.exprs[j]
            values, labels = [], []
            for o, text in zip(ops[j], instrument.operand_texts(e), strict=False):
                vals = _eval_or_none(ev, "/".join([*prefix, o])) or []
                if len(vals) == 1:  # (several: those of the passing elements too, which would mislead)
                    values.append(next(iter(vals)))
                    labels.append(text)
            shown = [{a: b for a, b in r.items() if a != EVERY_KEY} for r in lost]
            return Failure(e.location, _source_line(sources, e.location), shown[:5], values, labels)
        before = now
    return None


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
            failure = Failure(expr.location, _source_line(sources, expr.location),
                              [b for b in sorted(previous, key=repr) if b][:5], values, labels)
            if isinstance(expr.terms, A.Every):
                failure.every = (k, expr)
            return failure
        previous = list(solutions)
    return None
