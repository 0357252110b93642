"""`cupcake test`: OPA-style policy unit tests (`opa test` semantics, docs/testing.md) run
through OUR compile path.

In: paths (files or directories). Tests are the `test_*` rules (without arguments) of every
loaded module (`todo_*` rules are skipped); the modules under the paths, the shipped system
policies when the paths do not bring their own, and the data files under the paths
(`test_data`, mounted as OPA mounts them) make up the one program all tests run against.
The modules are parsed and compiled once; all tests are planned into ONE WASM module (when
that fails, one module per test package, then per test), or into one module per chunk of
tests when forked workers share the work of a large first run (`test_workers`). The build is
cached across runs (`test_cache`) and evaluated by the wasmtime host (`test_eval`, which also
spreads slow tests over processes). As with `opa test`, a builtin error makes the call
undefined (so `not object.subset(input.s, ["a"])` holds for a string `input.s`);
`strict=True` (`--strict-builtin-errors`) turns it into a test error instead.

Out: a TestRun: one TestResult per test (pass / fail / error / skip, in discovery order),
per-phase seconds, coverage when asked. For failing tests a second, diagnostic module is
built (see `instrument`): the first body expression that did not hold, the local variables
bound before it and the values of its operands. Load and compile failures raise
TestSetupError (exit status 1, as `opa test`)."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from cupcake_py.authoring import instrument
from cupcake_py.authoring.test_eval import EvalSetup, Evaluator, Outcome, evaluate
from cupcake_py.errors import CupcakeError, Location
from cupcake_py.gc_pause import gc_paused
from cupcake_py.rego import ast as A
from cupcake_py.rego import find_rego_files, parse_module, read_source
from cupcake_py.rego.errors import RegoErrors, format_text

Status = Literal["pass", "fail", "error", "skip"]
TEST_PREFIX = "test_"
TODO_PREFIX = "todo_"
PHASES = ("parse", "compile", "plan", "wasm", "native", "eval", "diagnose")


class TestSetupError(CupcakeError):
    """The tests could not be loaded or compiled at all (exit status 1, as `opa test`)."""


@dataclass
class TestCase:
    package: str
    name: str
    location: Location
    rule: A.Rule | None  # None when the build came from the cache (re-parsed for a diagnosis)
    module_index: int

    @property
    def entrypoint(self) -> str:
        return "/".join([*self.package.split("."), self.name])

    @property
    def full_name(self) -> str:
        return f"data.{self.package}.{self.name}"

    def to_json(self) -> list[Any]:
        loc = self.location
        return [self.package, self.name, loc.file, loc.row, loc.col, self.module_index]

    @classmethod
    def from_json(cls, row: list[Any]) -> TestCase:
        pkg, name, file, line, col, index = row
        return cls(pkg, name, Location(file, line, col), None, index)


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
    data_files: list[str] = field(default_factory=list)
    build_s: float = 0.0
    wasm_size: int = 0
    cached: bool = False  # the test module came from the build cache
    workers: int = 1
    phases: dict[str, float] = field(default_factory=dict)
    coverage: dict[str, FileCoverage] | None = None

    def count(self, status: Status) -> int:
        return sum(1 for r in self.results if r.status == status)

    @property
    def ok(self) -> bool:
        return self.count("fail") == 0 and self.count("error") == 0


@dataclass
class TestOptions:
    """What `cupcake test` flags change (docs/testing.md)."""

    run: str | None = None  # --run/-r: regex over data.pkg.test_name
    coverage: bool = False
    strict: bool = False  # --strict-builtin-errors
    deadline: float = 5.0  # --timeout, per test
    parallel: int = 0  # --parallel/-p: worker processes (0: one per CPU)
    cache: bool = True
    builtins: Any = None  # cupcake_py.custom_builtins.CustomBuiltins
    ignore: list[str] = field(default_factory=list)  # --ignore: fnmatch patterns of file/dir names

    def key_text(self) -> str:
        from cupcake_py.rego import versions

        fp = self.builtins.fingerprint() if self.builtins else ""
        return f"run={self.run!r}\ncoverage={self.coverage}\nbuiltins={fp}\nrego={versions.current()!r}\n"


UNDEFINED_TEXT = "<undefined>"


# ----------------------------------------------------------------------------- loading


def load_modules(paths: list[str | Path], files: list[Path] | None = None
                 ) -> tuple[list[A.Module], dict[str, str], int]:
    """(modules incl. support modules, sources, number of modules from `paths`)."""
    from cupcake_py.authoring.validate import support_modules

    files = rego_files(paths) if files is None else files
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


def rego_files(paths: list[str | Path]) -> list[Path]:
    """The Rego modules of `paths`; a .json/.yaml/.yml file named on the command line is data
    (test_data), not a module, as OPA's loader decides by extension."""
    from cupcake_py.authoring.test_data import DATA_SUFFIXES

    try:
        return [f for f in find_rego_files(paths) if f.suffix not in DATA_SUFFIXES]
    except RegoErrors as e:
        raise TestSetupError(format_text(e.errors)) from None


def is_test_file(module: A.Module) -> bool:
    return module.package.location.file.endswith("_test.rego")


def discover(modules: list[A.Module], run: str | None, own: int | None = None
             ) -> tuple[list[TestCase], list[TestCase]]:
    """(tests, todo tests): the `test_*` / `todo_*` rules without arguments of the first `own`
    modules (any file, as `opa test`), filtered by the `run` regex on the full name."""
    try:
        pattern = re.compile(run) if run else None
    except re.error as e:
        raise TestSetupError(f"--run: {run!r} is not a regular expression: {e}") from None
    tests: list[TestCase] = []
    todos: list[TestCase] = []
    seen: set[tuple[str, str]] = set()
    for i, m in enumerate(modules[:own]):
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


def compile_wasm(modules: list[A.Module], entrypoints: list[str], phases: dict[str, float],
                 compiled: Any = None) -> bytes:
    """compile (unless `compiled` is given: the modules' compile result, reusable across
    plans) → plan → WASM for `entrypoints`, adding each phase's seconds to `phases`."""
    from cupcake_py.plan import compile_entrypoints
    from cupcake_py.rego.compile import compile_modules
    from cupcake_py.wasm import compile_policy

    t0 = time.perf_counter()
    compiled = compile_modules(modules) if compiled is None else compiled
    t1 = time.perf_counter()
    policy = compile_entrypoints(modules, entrypoints, compiled=compiled)
    t2 = time.perf_counter()
    wasm = compile_policy(policy)
    t3 = time.perf_counter()
    for name, dt in (("compile", t1 - t0), ("plan", t2 - t1), ("wasm", t3 - t2)):
        phases[name] = phases.get(name, 0.0) + dt
    return wasm


def _build_error(e: Exception) -> str:
    if isinstance(e, RegoErrors):
        return "\n".join(str(x) for x in e.errors)
    return f"{type(e).__name__}: {e}"


Part = tuple[bytes, list[TestCase]]  # one compiled module and the tests it holds


def build_tests(modules: list[A.Module], tests: list[TestCase], sources: dict[str, str],
                phases: dict[str, float], compiled: Any = None) -> tuple[list[Part], list[TestResult]]:
    """One module for all tests; when a planner/codegen limit stops that, one per test package
    (each package compiled once), then one per test of a package that still fails. Returns
    the modules and the tests that could not be compiled (as errors)."""
    try:
        return [(compile_wasm(modules, [c.entrypoint for c in tests], phases, compiled), tests)], []
    except RegoErrors as e:
        raise TestSetupError(format_text(e.errors, sources)) from None
    except (CupcakeError, RecursionError) as e:
        reason = _build_error(e)
    groups: dict[str, list[TestCase]] = {}
    for c in tests:
        groups.setdefault(c.package, []).append(c)
    parts: list[Part] = []
    errors: list[TestResult] = []
    for group in groups.values():
        try:
            parts.append((compile_wasm(modules, [c.entrypoint for c in group], phases, compiled), group))
            continue
        except (CupcakeError, RecursionError):
            pass  # a test of this package hits the limit: compile its tests one by one
        for c in group:
            try:
                parts.append((compile_wasm(modules, [c.entrypoint], phases, compiled), [c]))
            except (CupcakeError, RecursionError) as e:
                errors.append(TestResult(c, "error", message=f"could not compile the test: {_build_error(e)}"))
    if not parts:
        raise TestSetupError(f"the tests could not be compiled: {reason}")
    return parts, errors


# ----------------------------------------------------------------------------- diagnosis


def _source_line(sources: dict[str, str], loc: Location) -> str:
    lines = sources.get(loc.file, "").splitlines()
    return lines[loc.row - 1].strip() if 0 < loc.row <= len(lines) else ""


def diagnose(modules: list[A.Module], failed: list[TestResult], sources: dict[str, str], setup: EvalSetup) -> None:
    """Fill `failure` of each failing test (first expression that did not hold, values).
    Only the test modules that get diagnostic rules are copied; the others are shared."""
    import copy

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
        return Evaluator(EvalSetup(wasm, setup.data, setup.strict, setup.deadline, setup.builtin_specs))
    except (CupcakeError, RecursionError):
        return None


def _eval_or_none(ev: Evaluator, entrypoint: str) -> list[Any] | None:
    from cupcake_py.host.errors import HostError

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
            values = []
            for o in ops[k]:
                vals = _eval_or_none(ev, "/".join([*prefix, o])) or []
                values.append(sorted(vals, key=repr)[0] if len(vals) == 1 else
                              sorted(vals, key=repr) if vals else UNDEFINED_TEXT)
            return Failure(expr.location, _source_line(sources, expr.location),
                           [b for b in sorted(previous, key=repr) if b][:5], values)
        previous = list(solutions)
    return None


# ----------------------------------------------------------------------------- running


def _lap(phases: dict[str, float], name: str, t0: float) -> float:
    now = time.perf_counter()
    phases[name] = phases.get(name, 0.0) + now - t0
    return now


def run_tests(paths: list[str | Path], options: TestOptions | None = None, **kw: Any) -> TestRun:
    """Run the tests under `paths` (keyword arguments: fields of TestOptions)."""
    from contextlib import nullcontext

    opts = options or TestOptions(**kw)
    scope = opts.builtins.declared() if opts.builtins else nullcontext()
    with scope, gc_paused():
        return _run(paths, opts)


@dataclass
class _Work:
    """What one run builds or loads: the compiled parts, the tests, and what is known so far."""

    tests: list[TestCase]
    todos: list[TestCase]
    parts: list[Part] = field(default_factory=list)
    errors: list[TestResult] = field(default_factory=list)
    outcomes: dict[tuple[str, str], Outcome] = field(default_factory=dict)  # evaluated by build workers
    native_s: float = 0.0
    workers: int = 1
    modules: list[A.Module] | None = None
    sources: dict[str, str] = field(default_factory=dict)
    cov: instrument.Coverable = field(default_factory=instrument.Coverable)


def _from_cache(hit: tuple[dict[str, Any], list[bytes]]) -> _Work:
    meta, blobs = hit
    tests = [TestCase.from_json(r) for r in meta["tests"]]
    work = _Work(tests, [TestCase.from_json(r) for r in meta["todos"]])
    work.parts = [(wasm, [tests[i] for i in idx]) for wasm, idx in zip(blobs, meta["parts"], strict=True)]
    work.cov.lines = {f: set(rows) for f, rows in meta["coverage"].items()}
    return work


def _build(paths: list[str | Path], files: list[Path], data: Any, opts: TestOptions, setup: EvalSetup,
           phases: dict[str, float], base: str) -> _Work:
    """Parse and compile everything; plan, generate and evaluate the tests in chunks (a chunk
    whose dependencies did not change since a previous run reuses its modules: test_parts;
    `base` is the key of what every chunk depends on, "" without the cache)."""
    from cupcake_py.authoring.test_data import DataError, check_conflicts
    from cupcake_py.authoring.test_parts import build_or_reuse
    from cupcake_py.authoring.test_workers import build_in_workers, chunk_count, chunks_of, workers_for_build
    from cupcake_py.rego.compile import compile_modules

    t = time.perf_counter()
    modules, sources, own = load_modules(paths, files)
    try:
        check_conflicts(data, modules[:own])
    except DataError as e:
        raise TestSetupError(str(e)) from None
    tests, todos = discover(modules, opts.run, own)
    work = _Work(tests, todos, modules=modules, sources=sources)
    t = _lap(phases, "parse", t)
    if not tests:
        return work
    built = [instrument.instrument_module(m, work.cov) if opts.coverage and i < own and not is_test_file(m) else m
             for i, m in enumerate(modules)]
    try:
        compiled = compile_modules(built)
    except RegoErrors as e:
        raise TestSetupError(format_text(e.errors, sources)) from None
    _lap(phases, "compile", t)
    n = workers_for_build(len(tests), opts.parallel)
    if n > 1:
        got = build_in_workers(built, compiled, tests, sources, setup, n, base)
        if got is not None:
            work.parts, work.errors, work.outcomes, worker_phases, work.native_s = got
            for k, v in worker_phases.items():
                phases[k] = phases.get(k, 0.0) + v
            work.workers = n
            return work
    for idx in chunks_of(tests, chunk_count(len(tests), 1)):
        parts, errors = build_or_reuse(built, compiled, [tests[k] for k in idx], sources, phases, base)
        work.parts += parts
        work.errors += errors
    return work


def _run(paths: list[str | Path], opts: TestOptions) -> TestRun:
    from cupcake_py.authoring import test_cache
    from cupcake_py.authoring.test_data import DataError, ignored, load_data

    phases: dict[str, float] = {}
    t = time.perf_counter()
    files = [f for f in rego_files(paths) if not ignored(f, opts.ignore, paths)]
    try:
        data, data_paths = load_data(paths, opts.ignore)
    except (DataError, OSError) as e:
        raise TestSetupError(str(e)) from None
    out = TestRun(files=[str(f) for f in files], data_files=[str(f) for f in data_paths], phases=phases)
    specs = list(opts.builtins.sources) if opts.builtins else []
    setup = EvalSetup(b"", data, opts.strict, opts.deadline, specs)
    key = test_cache.build_key(files, data_paths, opts.key_text()) if opts.cache else ""
    hit = test_cache.load(key) if key else None
    if hit is not None:
        work = _from_cache(hit)
        out.cached = True
        _lap(phases, "parse", t)
    else:
        base = test_cache.build_key([], data_paths, opts.key_text()) if key else ""
        work = _build(paths, files, data, opts, setup, phases, base)
        if key and work.parts and not work.errors:
            index = {(c.package, c.name): i for i, c in enumerate(work.tests)}
            test_cache.store(key, {"tests": [c.to_json() for c in work.tests],
                                   "todos": [c.to_json() for c in work.todos],
                                   "parts": [[index[(c.package, c.name)] for c in cases] for _, cases in work.parts],
                                   "coverage": {f: sorted(r) for f, r in work.cov.lines.items()}},
                             [w for w, _ in work.parts])
    out.results = [TestResult(c, "skip", message="todo test") for c in work.todos]
    if not work.parts:
        out.results = work.errors + out.results
        return out
    out.build_s = sum(phases.get(p, 0.0) for p in ("compile", "plan", "wasm"))
    out.wasm_size = sum(len(w) for w, _ in work.parts)
    hits: set[tuple[str, int]] = set()
    results = _evaluate(work, setup, opts, phases, hits)
    out.workers = work.workers
    t = time.perf_counter()
    ordered = [results[(c.package, c.name)] for c in work.tests if (c.package, c.name) in results]
    failed = [r for r in ordered if r.status == "fail"]
    if failed:
        if work.modules is None:  # built from the cache: parse again to find the failing rules
            work.modules, work.sources, own = load_modules(paths, files)
            again = {(c.package, c.name): c for c in discover(work.modules, opts.run, own)[0]}
            for r in failed:
                r.case = again.get((r.case.package, r.case.name), r.case)
            failed = [r for r in failed if r.case.rule is not None]
        diagnose(work.modules, failed, work.sources, setup)
        _lap(phases, "diagnose", t)
    out.results = ordered + out.results
    if opts.coverage:
        out.coverage = {}
        for file, rows in sorted(work.cov.lines.items()):
            covered = {r for r in rows if (file, r) in hits}
            out.coverage[file] = FileCoverage(covered, rows - covered)
    return out


def _evaluate(work: _Work, setup: EvalSetup, opts: TestOptions, phases: dict[str, float],
              hits: set[tuple[str, int]]) -> dict[tuple[str, str], TestResult]:
    """Every test's result: those the build workers evaluated, the others evaluated here."""
    results = {(r.case.package, r.case.name): r for r in work.errors}
    t = time.perf_counter()
    native = work.native_s
    for wasm, cases in work.parts:
        todo = [c for c in cases if (c.package, c.name) not in work.outcomes]
        if todo:
            setup.wasm = wasm
            outcomes, native_s, used = evaluate(setup, [c.entrypoint for c in todo], opts.parallel)
            work.outcomes.update({(c.package, c.name): o for c, o in zip(todo, outcomes, strict=True)})
            native += native_s
            work.workers = max(work.workers, used)
        for c in cases:
            results[(c.package, c.name)] = _result(c, work.outcomes[(c.package, c.name)], hits)
    here = time.perf_counter() - t
    phases["native"] = native
    phases["eval"] = phases.get("eval", 0.0) + max(0.0, here - (native - work.native_s))
    return results


def _result(case: TestCase, o: Outcome, hits: set[tuple[str, int]]) -> TestResult:
    output = []
    for line in o.lines:
        mark = instrument.parse_mark(line)
        if mark is None:
            output.append(line)
        else:
            hits.add(mark)
    return TestResult(case, o.status, o.duration_s, o.message, o.value, output=output)
