"""Building and running a large test set on several cores (`cupcake test`, first run).

In: the parsed and compiled policy modules (compiled ONCE, in this process), the tests in
discovery order, the evaluation settings and a process count n. The tests are cut into n
contiguous chunks (a test package is never split); n - 1 processes are forked after the
compile step, so they share its result without redoing it; each process, this one included,
plans its chunk, generates its WASM module, compiles it to native code and evaluates it.
Out: the modules with their tests (for the build cache), the tests that could not be compiled,
every outcome, and the phase seconds of the slowest chunk (the chunks run at the same time).

Forking is only safe before this process has started a wasmtime engine (its threads would
not exist in the child): `workers_for_build` returns 1 otherwise, and when there are too few
tests to pay for the processes. A worker that fails makes its chunk run here; nothing is lost
or reordered. The processes belong to a pool shut down before returning: nothing is left running.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from cupcake_py.authoring.test_eval import EvalSetup, Outcome, evaluate

MIN_TESTS = 300  # below this, one process builds and runs the tests faster than several

_shared: tuple[Any, ...] | None = None  # (modules, compiled, chunks, sources, setup, tests), set before the fork

ChunkResult = tuple[list[tuple[bytes, list[int]]], list[tuple[int, str]], list[Outcome], dict[str, float], float]


def workers_for_build(n_tests: int, parallel: int) -> int:
    """How many processes build and run `n_tests` tests (1: this one only)."""
    from cupcake_py.host.engine import engines_started

    wanted = parallel if parallel > 0 else (os.cpu_count() or 1)
    if wanted <= 1 or n_tests < MIN_TESTS or not hasattr(os, "fork") or engines_started():
        return 1
    return min(wanted, n_tests // (MIN_TESTS // 2))


def chunks_of(tests: Sequence[Any], n: int) -> list[list[int]]:
    """Indices of `tests` in n contiguous chunks of about equal size, cut between packages."""
    size = -(-len(tests) // n)
    out: list[list[int]] = [[]]
    for i, case in enumerate(tests):
        if len(out[-1]) >= size and case.package != tests[i - 1].package and len(out) < n:
            out.append([])
        out[-1].append(i)
    return [c for c in out if c]


def _chunk(i: int) -> ChunkResult:
    """Build and evaluate chunk i (in a worker, or here)."""
    from cupcake_py.authoring.testrunner import build_tests

    assert _shared is not None
    modules, compiled, chunks, sources, setup, tests = _shared
    cases = [tests[k] for k in chunks[i]]
    where = {(c.package, c.name): k for c, k in zip(cases, chunks[i], strict=True)}
    phases: dict[str, float] = {}
    parts, errors = build_tests(modules, cases, sources, phases, compiled)
    outcomes: list[Outcome] = []
    native = 0.0
    t0 = time.perf_counter()
    for wasm, part in parts:
        got, native_s, _ = evaluate(replace(setup, wasm=wasm), [c.entrypoint for c in part], 1)
        outcomes += got
        native += native_s
    phases["eval"] = time.perf_counter() - t0 - native
    return ([(wasm, [where[(c.package, c.name)] for c in part]) for wasm, part in parts],
            [(where[(r.case.package, r.case.name)], r.message) for r in errors], outcomes, phases, native)


def build_in_workers(modules: list[Any], compiled: Any, tests: list[Any], sources: dict[str, str],
                     setup: EvalSetup, n: int) -> tuple[list[Any], list[Any], dict[tuple[str, str], Outcome],
                                                        dict[str, float], float] | None:
    """(parts, errors, outcome per test, phase seconds, native seconds), or None when the
    processes could not be started (the caller then builds here)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    from cupcake_py.authoring.testrunner import TestResult

    global _shared
    chunks = chunks_of(tests, n)
    if len(chunks) < 2:
        return None
    _shared = (modules, compiled, chunks, sources, setup, tests)
    try:
        # with `fork`, every worker is forked at the first submit, before this process evaluates
        # its own chunk (and starts wasmtime); a dead worker breaks the pool, never hangs it
        with ProcessPoolExecutor(len(chunks) - 1, mp_context=multiprocessing.get_context("fork")) as pool:
            try:
                pending = [pool.submit(_chunk, i) for i in range(1, len(chunks))]
            except (OSError, RuntimeError):
                return None
            results = [_chunk(0)]
            for i, job in enumerate(pending, 1):
                try:
                    results.append(job.result())
                except Exception:  # noqa: BLE001 - a failed worker: its chunk is built and run here
                    results.append(_chunk(i))
    finally:
        _shared = None
    parts = [(wasm, [tests[k] for k in idx]) for got in results for wasm, idx in got[0]]
    errors = [TestResult(tests[k], "error", message=msg) for got in results for k, msg in got[1]]
    outcomes: dict[tuple[str, str], Outcome] = {}
    for got in results:
        evaluated = [tests[k] for _, idx in got[0] for k in idx]
        outcomes.update({(c.package, c.name): o for c, o in zip(evaluated, got[2], strict=True)})
    phases = {k: max(got[3].get(k, 0.0) for got in results) for k in ("plan", "wasm", "eval")}
    return parts, errors, outcomes, phases, max(got[4] for got in results)
