"""`cupcake test`: OPA-style policy unit tests run through OUR compile path.

Tests are the `test_*` rules of `*_test.rego` files (`todo_*` rules are reported as
skipped). Every test is one planner entrypoint (`pkg/test_x`); all of them, with every
other module under the given paths (plus the shipped system policies when the paths do
not bring their own), are compiled into ONE WASM module and evaluated by the wasmtime
host in strict mode (a builtin error is a test error, not a silent undefined). A test
passes when its rule is defined and not `false`. `with` mocks of input, data and
functions are ordinary Rego and compiled like any other expression.

For failing tests a second, diagnostic module is built (see `instrument`): it locates
the first body expression that did not hold and shows the local variables bound before
it and the values of its operands. `--coverage` runs the tests on an instrumented build
whose print marks report every executed expression and every rule head reached."""

from __future__ import annotations

import copy
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from cupcake_py.authoring import instrument
from cupcake_py.errors import CupcakeError, Location
from cupcake_py.rego import ast as A
from cupcake_py.rego import find_rego_files, parse_module, read_source
from cupcake_py.rego.errors import RegoErrors, format_text

Status = Literal["pass", "fail", "error", "skip"]
TEST_PREFIX = "test_"
TODO_PREFIX = "todo_"


class TestSetupError(CupcakeError):
    """The tests could not be loaded or compiled at all (exit status 2)."""


@dataclass
class TestCase:
    package: str
    name: str
    location: Location
    rule: A.Rule
    module_index: int

    @property
    def entrypoint(self) -> str:
        return "/".join([*self.package.split("."), self.name])

    @property
    def full_name(self) -> str:
        return f"data.{self.package}.{self.name}"


@dataclass
class Failure:
    """Where a failing test stopped: the first body expression that did not hold."""

    location: Location
    source: str
    bindings: list[Any] = field(default_factory=list)  # local variables bound before it (one per solution)
    operands: list[Any] = field(default_factory=list)  # values of its operands ("<undefined>" when none)


@dataclass
class TestResult:
    case: TestCase
    status: Status
    duration_s: float = 0.0
    message: str = ""
    value: Any = None
    failure: Failure | None = None
    output: list[str] = field(default_factory=list)


@dataclass
class FileCoverage:
    covered: set[int] = field(default_factory=set)
    not_covered: set[int] = field(default_factory=set)

    @property
    def percent(self) -> float:
        total = len(self.covered) + len(self.not_covered)
        return 100.0 * len(self.covered) / total if total else 100.0


@dataclass
class TestRun:
    results: list[TestResult] = field(default_factory=list)
    files: list[str] = field(default_factory=list)
    build_s: float = 0.0
    wasm_size: int = 0
    coverage: dict[str, FileCoverage] | None = None

    def count(self, status: Status) -> int:
        return sum(1 for r in self.results if r.status == status)

    @property
    def ok(self) -> bool:
        return self.count("fail") == 0 and self.count("error") == 0


UNDEFINED_TEXT = "<undefined>"


# ----------------------------------------------------------------------------- loading


def load_modules(paths: list[str | Path]) -> tuple[list[A.Module], dict[str, str], int]:
    """(modules incl. support modules, sources, number of modules from `paths`)."""
    from cupcake_py.authoring.validate import support_modules

    try:
        files = find_rego_files(paths)
    except RegoErrors as e:
        raise TestSetupError(format_text(e.errors)) from None
    modules: list[A.Module] = []
    sources: dict[str, str] = {}
    errors = []
    for f in files:
        try:
            sources[str(f)] = read_source(f)
            modules.append(parse_module(sources[str(f)], str(f)))
        except RegoErrors as e:
            errors.extend(e.errors)
    if errors:
        raise TestSetupError(format_text(errors, sources))
    own = len(modules)
    modules += support_modules({m.package.dotted() for m in modules})
    return modules, sources, own


def is_test_file(module: A.Module) -> bool:
    return module.package.location.file.endswith("_test.rego")


def discover(modules: list[A.Module], run: str | None) -> tuple[list[TestCase], list[TestCase]]:
    """(tests, todo tests) of the test files, filtered by the `run` regex on the full name."""
    pattern = re.compile(run) if run else None
    tests: list[TestCase] = []
    todos: list[TestCase] = []
    seen: set[tuple[str, str]] = set()
    for i, m in enumerate(modules):
        if not is_test_file(m):
            continue
        pkg = m.package.dotted()
        for r in m.rules:
            name = r.head.name
            kind = tests if name.startswith(TEST_PREFIX) else todos if name.startswith(TODO_PREFIX) else None
            if kind is None or r.head.args is not None or (pkg, name) in seen:
                continue
            seen.add((pkg, name))
            case = TestCase(pkg, name, r.head.location, r, i)
            if pattern is None or pattern.search(case.full_name):
                kind.append(case)
    return tests, todos


# ----------------------------------------------------------------------------- building


class Build:
    """One compiled WASM module for a set of entrypoints, instantiated in strict mode with a
    print hook that collects the output of the running evaluation."""

    def __init__(self, modules: list[A.Module], entrypoints: list[str], deadline: float) -> None:
        from cupcake_py.host import HostOptions, PolicyModule
        from cupcake_py.host.builtins import BuiltinContext
        from cupcake_py.plan import compile_entrypoints
        from cupcake_py.wasm import compile_policy

        t0 = time.perf_counter()
        policy = compile_entrypoints([copy.deepcopy(m) for m in modules], entrypoints)
        self.wasm = compile_policy(policy)
        self.lines: list[str] = []
        module = PolicyModule(self.wasm, HostOptions(strict=True, deadline=deadline))
        self.instance = module.instantiate(
            context_factory=lambda: BuiltinContext(strict=True, print_hook=self.lines.append))
        self.seconds = time.perf_counter() - t0

    def eval(self, entrypoint: str) -> tuple[list[dict[str, Any]], list[str]]:
        self.lines = []
        rows = self.instance.eval(entrypoint, keep_sets=True)
        return rows, self.lines


def _build_error(e: Exception) -> str:
    if isinstance(e, RegoErrors):
        return "\n".join(str(x) for x in e.errors)
    return f"{type(e).__name__}: {e}"


def _build_or_none(modules: list[A.Module], entrypoints: list[str], deadline: float) -> Build | None:
    try:
        return Build(modules, entrypoints, deadline)
    except (CupcakeError, RecursionError):
        return None


# ----------------------------------------------------------------------------- running


def _run_one(build: Build, case: TestCase, on_line: Callable[[str], bool]) -> TestResult:
    from cupcake_py.host.errors import HostError

    t0 = time.perf_counter()
    try:
        rows, lines = build.eval(case.entrypoint)
    except HostError as e:
        return TestResult(case, "error", time.perf_counter() - t0, message=str(e))
    dt = time.perf_counter() - t0
    output = [ln for ln in lines if not on_line(ln)]
    if not rows:
        return TestResult(case, "fail", dt, message="the test rule is undefined", output=output)
    value = rows[0].get("result")
    if value is False:
        return TestResult(case, "fail", dt, message="the test rule is false", value=value, output=output)
    return TestResult(case, "pass", dt, value=value, output=output)


def _source_line(sources: dict[str, str], loc: Location) -> str:
    lines = sources.get(loc.file, "").splitlines()
    return lines[loc.row - 1].strip() if 0 < loc.row <= len(lines) else ""


def diagnose(modules: list[A.Module], failed: list[TestResult], sources: dict[str, str], deadline: float) -> None:
    """Fill `failure` of each failing test (first expression that did not hold, values)."""
    work = [copy.deepcopy(m) for m in modules]
    plans = []
    entrypoints: list[str] = []
    for n, res in enumerate(failed):
        case = res.case
        module = work[case.module_index]
        plan = instrument.add_diagnosis(module, case.rule, n)
        ops = [instrument.add_operands(module, case.rule, n, k) for k in range(len(plan.exprs))]
        plans.append((res, plan, ops))
        prefix = case.package.split(".")
        entrypoints += ["/".join([*prefix, p]) for p in plan.prefixes]
        entrypoints += ["/".join([*prefix, o]) for group in ops for o in group]
    if not entrypoints:
        return
    build = _build_or_none(work, entrypoints, deadline)
    if build is None:  # an operand that cannot be evaluated on its own: retry with the prefixes only
        work = [copy.deepcopy(m) for m in modules]
        for n, res in enumerate(failed):
            instrument.add_diagnosis(work[res.case.module_index], res.case.rule, n)
        plans = [(res, plan, [[] for _ in plan.exprs]) for res, plan, _ in plans]
        entrypoints = [e for e in entrypoints if "_op" not in e.rsplit("/", 1)[-1]]
        build = _build_or_none(work, entrypoints, deadline)
        if build is None:
            return
    from cupcake_py.host.errors import HostError

    for res, plan, ops in plans:
        prefix = res.case.package.split(".")
        previous: list[Any] = []
        for k, name in enumerate(plan.prefixes):
            try:
                rows, _ = build.eval("/".join([*prefix, name]))
            except HostError:
                break
            solutions = rows[0]["result"] if rows else []
            if not solutions:
                expr = plan.exprs[k]
                values = []
                for o in ops[k]:
                    try:
                        got, _ = build.eval("/".join([*prefix, o]))
                    except HostError:
                        got = []
                    vals = got[0]["result"] if got else []
                    values.append(sorted(vals, key=repr)[0] if len(vals) == 1 else
                                  sorted(vals, key=repr) if vals else UNDEFINED_TEXT)
                res.failure = Failure(expr.location, _source_line(sources, expr.location),
                                      [b for b in sorted(previous, key=repr) if b][:5], values)
                break
            previous = list(solutions)


def run_tests(paths: list[str | Path], run: str | None = None, coverage: bool = False,
              deadline: float = 10.0) -> TestRun:
    modules, sources, own = load_modules(paths)
    tests, todos = discover(modules, run)
    out = TestRun(files=[m.package.location.file for m in modules[:own]])
    out.results += [TestResult(c, "skip", message="todo test") for c in todos]
    if not tests:
        return out
    cov = instrument.Coverable()
    build_modules = [instrument.instrument_module(m, cov) if coverage and i < own and not is_test_file(m) else m
                     for i, m in enumerate(modules)]
    hits: set[tuple[str, int]] = set()

    def on_line(line: str) -> bool:
        mark = instrument.parse_mark(line)
        if mark is not None:
            hits.add(mark)
        return mark is not None

    try:
        build: Build | None = Build(build_modules, [c.entrypoint for c in tests], deadline)
    except RegoErrors as e:
        raise TestSetupError(format_text(e.errors, sources)) from None
    except CupcakeError as e:  # a planner/codegen limit: build the tests one by one
        build, reason = None, _build_error(e)
    results: list[TestResult] = []
    if build is not None:
        out.build_s, out.wasm_size = build.seconds, len(build.wasm)
        results = [_run_one(build, c, on_line) for c in tests]
    else:
        for c in tests:
            try:
                single = Build(build_modules, [c.entrypoint], deadline)
            except CupcakeError as e:
                results.append(TestResult(c, "error", message=f"could not compile the test: {_build_error(e)}"))
                continue
            out.build_s += single.seconds
            results.append(_run_one(single, c, on_line))
        if all(r.status == "error" for r in results):
            raise TestSetupError(f"the tests could not be compiled: {reason}")
    failed = [r for r in results if r.status == "fail"]
    if failed:
        diagnose(modules, failed, sources, deadline)
    out.results = results + out.results
    if coverage:
        out.coverage = {}
        for file, rows in sorted(cov.lines.items()):
            covered = {r for r in rows if (file, r) in hits}
            out.coverage[file] = FileCoverage(covered, rows - covered)
    return out
