"""`cupcake test`: OPA-style policy unit tests (`opa test` semantics, docs/testing.md) run
through OUR compile path; this module orchestrates the steps of this package.

In: paths (files or directories) and TestOptions. Tests are the `test_*` rules (without
arguments) of every loaded module (`todo_test_*` rules are skipped); the modules under the paths,
the shipped system policies when the paths do not bring their own, and the data files under
the paths (`data`, mounted as OPA mounts them) make up the one program all tests run against.
The modules are parsed and compiled once (`loading`, `build`); all tests are planned into ONE
WASM module (when that fails, one module per test package, then per test), or into one module
per chunk of tests when forked workers share the work of a large first run (`workers`). The
build is cached across runs (`cache`, `parts`) and evaluated by the wasmtime host (`evaluate`,
which also spreads slow tests over processes). As with `opa test`, a builtin error makes the
call undefined (so `not object.subset(input.s, ["a"])` holds for a string `input.s`);
`strict=True` (`--strict-builtin-errors`) turns it into a test error instead.

Out: a TestRun: one TestResult per test (pass / fail / error / skip, in discovery order),
per-phase seconds, coverage when asked. Failing tests are diagnosed (`diagnose`). Load and
compile failures raise TestSetupError (exit status 1, as `opa test`).

Start-up: a run served from the build cache reads files, hashes them and evaluates; it never
imports the parser, compiler, planner or code generator (the steps that need them are
imported where a build or a diagnosis happens).
"""

from __future__ import annotations

import time

from cupcake_py.authoring.testing import cache
from cupcake_py.authoring.testing.cases import (
    FileCoverage,
    Part,
    TestCase,
    TestOptions,
    TestResult,
    TestRun,
    TestSetupError,
)
from cupcake_py.authoring.testing.data import DataError, ignored, load_data
from cupcake_py.authoring.testing.evaluate import EvalSetup, Outcome, evaluate
from cupcake_py.authoring.testing.files import rego_files
from cupcake_py.authoring.testing.marks import Coverable, parse_mark
from cupcake_py.core.gc_pause import gc_paused

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays off a cached run's start-up)
    from pathlib import Path
    from typing import Any

    from cupcake_py.rego import ast as A


# ----------------------------------------------------------------------------- running


def _lap(phases: dict[str, float], name: str, t0: float) -> float:
    now = time.perf_counter()
    phases[name] = phases.get(name, 0.0) + now - t0
    return now


def run_tests(paths: list[str | Path], options: TestOptions | None = None, **kw: Any) -> TestRun:
    """Run the tests under `paths` (keyword arguments: fields of TestOptions)."""
    opts = options or TestOptions(**kw)
    if opts.builtins:
        with opts.builtins.declared(), gc_paused():
            return _run(paths, opts)
    with gc_paused():
        return _run(paths, opts)


class _Work:
    """What one run builds or loads: the compiled parts, the tests, and what is known so far."""

    def __init__(self, tests: list[TestCase], todos: list[TestCase], modules: list[A.Module] | None = None,
                 sources: dict[str, str] | None = None) -> None:
        self.tests, self.todos, self.modules = tests, todos, modules
        self.sources: dict[str, str] = {} if sources is None else sources
        self.parts: list[Part] = []
        self.errors: list[TestResult] = []
        self.outcomes: dict[tuple[str, str], Outcome] = {}  # evaluated by build workers
        self.native_s = 0.0
        self.workers = 1
        self.cov = Coverable()


def _from_cache(hit: tuple[dict[str, Any], list[bytes]]) -> _Work:
    meta, blobs = hit
    tests = [TestCase.from_json(r) for r in meta["tests"]]
    work = _Work(tests, [TestCase.from_json(r) for r in meta["todos"]])
    work.parts = [(wasm, [tests[i] for i in idx]) for wasm, idx in zip(blobs, meta["parts"], strict=True)]
    work.cov.lines = {f: set(rows) for f, rows in meta["coverage"].items()}
    return work


def _build(paths: list[str | Path], files: list[str], data: Any, opts: TestOptions, setup: EvalSetup,
           phases: dict[str, float], base: str) -> _Work:
    """Parse and compile everything; plan, generate and evaluate the tests in chunks (a chunk
    whose dependencies did not change since a previous run reuses its modules: `parts`;
    `base` is the key of what every chunk depends on, "" without the cache)."""
    # the compiler's modules load here, where a build happens (a cached run never imports them)
    from cupcake_py.authoring.testing.data import check_conflicts
    from cupcake_py.authoring.testing.loading import discover, is_test_file, load_modules
    from cupcake_py.authoring.testing.parts import build_or_reuse
    from cupcake_py.authoring.testing.workers import (
        build_in_workers,
        chunk_count,
        chunks_of,
        workers_for_build,
    )
    from cupcake_py.rego.compile import compile_modules
    from cupcake_py.rego.errors import RegoErrors, format_text

    t = time.perf_counter()
    modules, sources, own = load_modules(paths, files)
    try:
        check_conflicts(data, modules[:own])
    except DataError as e:
        raise TestSetupError(str(e)) from None
    tests, todos = discover(modules, opts.run, own)
    work = _Work(tests, todos, modules=modules, sources=sources)
    t = _lap(phases, "parse", t)
    if not tests:  # nothing to run, but (as `opa test`) a policy that does not compile fails the run
        try:
            compile_modules(modules)
        except RegoErrors as e:
            raise TestSetupError(format_text(e.errors, sources)) from None
        return work
    built = modules
    if opts.coverage:
        from cupcake_py.authoring import instrument

        built = [instrument.instrument_module(m, work.cov) if i < own and not is_test_file(m) else m
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
    key = cache.build_key(files, data_paths, opts.key_text()) if opts.cache else ""
    hit = cache.load(key) if key else None
    work = None
    if hit is not None:
        try:
            work = _from_cache(hit)
        except (ValueError, TypeError, KeyError, IndexError):  # an entry of another layout: a miss
            work = None
    if work is not None:
        out.cached = True
        _lap(phases, "parse", t)
    else:
        base = cache.build_key([], data_paths, opts.key_text()) if key else ""
        from cupcake_py.core.deep_stack import on_deep_stack  # (deeply nested terms: the compiler recurses)

        with opts.rego_scope():
            work = on_deep_stack(lambda: _build(paths, files, data, opts, setup, phases, base))
        if key and work.parts and not work.errors:
            index = {(c.package, c.name): i for i, c in enumerate(work.tests)}
            cache.store(key, {"tests": [c.to_json() for c in work.tests],
                                   "todos": [c.to_json() for c in work.todos],
                                   "parts": [[index[(c.package, c.name)] for c in cases] for _, cases in work.parts],
                                   "coverage": {f: sorted(r) for f, r in work.cov.lines.items()}},
                             [w for w, _ in work.parts])
    out.results = [TestResult(c, "skip", message="todo test") for c in work.todos]
    if not work.parts:
        out.results = _in_file_order(work.errors + out.results)
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
        from cupcake_py.authoring.testing.diagnose import diagnose  # (builds a diagnostic module)
        from cupcake_py.authoring.testing.loading import discover, load_modules

        with opts.rego_scope():
            if work.modules is None:  # built from the cache: parse again to find the failing rules
                work.modules, work.sources, own = load_modules(paths, files)
                again = {(c.package, c.name): c for c in discover(work.modules, opts.run, own)[0]}
                for r in failed:
                    r.case = again.get((r.case.package, r.case.name), r.case)
                failed = [r for r in failed if r.case.rule is not None]
            from cupcake_py.core.deep_stack import on_deep_stack

            modules, sources = work.modules, work.sources
            on_deep_stack(lambda: diagnose(modules, failed, sources, setup))
        _lap(phases, "diagnose", t)
    out.results = _in_file_order(ordered + out.results)
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


def _in_file_order(results: list[TestResult]) -> list[TestResult]:
    """Tests and skipped `todo_test_*` rules together in the order of their files and rules, as
    OPA's runner reports each module's rules."""
    return sorted(results, key=lambda r: (r.case.module_index, r.case.location.row, r.case.location.col))


def _result(case: TestCase, o: Outcome, hits: set[tuple[str, int]]) -> TestResult:
    output = []
    for line in o.lines:
        mark = parse_mark(line)
        if mark is None:
            output.append(line)
        else:
            hits.add(mark)
    status, message = o.status, o.message
    if status == "pass" and not case.partial and o.value is not True:  # OPA: only `true` passes a test
        status, message = "fail", "the test rule is not true"  # (an object passes a partial-object test only)
    return TestResult(case, status, o.duration_s, message, o.value, output=output)
