"""Building and running a large test set on several cores (`cupcake test`, first run).

In: the parsed and compiled policy modules (compiled ONCE, in this process), the tests in
discovery order, the evaluation settings and a process count n. The tests are cut into n
contiguous chunks of at most about CHUNK_TESTS tests, at least n (a test package is never
split); n processes are forked after the compile step, so they share its result without
redoing it; each chunk is planned, generated as one WASM module, compiled to native code and
evaluated by one of them (or reused from an earlier run: `parts`). Out: the modules with
their tests (for the build cache), the tests that could not be compiled, every outcome, and
the phase seconds summed over the chunks and divided by n (the processes run at the same time).

Forking is only safe before this process has started a wasmtime engine (its threads would
not exist in the child): `workers_for_build` returns 1 otherwise, and when there are too few
tests to pay for the processes. A worker that fails makes its chunk run here; nothing is lost
or reordered. The processes belong to a pool shut down before returning: nothing is left running.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence

from cupcake_py.authoring.testing.cases import TestResult
from cupcake_py.authoring.testing.evaluate import EvalSetup, Outcome, evaluate
from cupcake_py.authoring.testing.parts import build_or_reuse

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays off a first `cupcake test` run's start-up)
    from typing import Any

MIN_TESTS = 300  # below this, one process builds and runs the tests faster than several
CHUNK_TESTS = 300  # at most about this many tests per chunk: an edit rebuilds only the chunks that depend on it

_shared: tuple[Any, ...] | None = None  # (modules, compiled, chunks, sources, setup, tests, base), set before the fork

ChunkResult = tuple[list[tuple[bytes, list[int]]], list[tuple[int, str]], list[Outcome], dict[str, float], float]


def workers_for_build(n_tests: int, parallel: int) -> int:
    """How many processes build and run `n_tests` tests (1: this one only)."""
    from cupcake_py.host.engine import engines_started

    wanted = parallel if parallel > 0 else (os.cpu_count() or 1)
    if wanted <= 1 or n_tests < MIN_TESTS or not hasattr(os, "fork") or engines_started():
        return 1
    return min(wanted, n_tests // (MIN_TESTS // 2))


def chunk_count(n_tests: int, processes: int) -> int:
    """How many chunks `n_tests` tests are built in: at least one per process, and small
    enough (CHUNK_TESTS) that editing one policy rebuilds little (`parts`).
    Depends only on the counts, so unchanged tests keep their chunks from run to run."""
    return max(processes, -(-n_tests // CHUNK_TESTS), 1)


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
    assert _shared is not None
    modules, compiled, chunks, sources, setup, tests, base = _shared
    cases = [tests[k] for k in chunks[i]]
    where = {(c.package, c.name): k for c, k in zip(cases, chunks[i], strict=True)}
    phases: dict[str, float] = {}
    parts, errors = build_or_reuse(modules, compiled, cases, sources, phases, base)
    outcomes: list[Outcome] = []
    native = 0.0
    t0 = time.perf_counter()
    for wasm, part in parts:
        got, native_s, _ = evaluate(setup.with_wasm(wasm), [c.entrypoint for c in part], 1)
        outcomes += got
        native += native_s
    phases["eval"] = time.perf_counter() - t0 - native
    return ([(wasm, [where[(c.package, c.name)] for c in part]) for wasm, part in parts],
            [(where[(r.case.package, r.case.name)], r.message) for r in errors], outcomes, phases, native)


def build_in_workers(modules: list[Any], compiled: Any, tests: list[Any], sources: dict[str, str],
                     setup: EvalSetup, n: int, base: str = "") -> tuple[list[Any], list[Any], dict[tuple[str, str], Outcome],
                                                        dict[str, float], float] | None:
    """(parts, errors, outcome per test, phase seconds, native seconds), or None when the
    processes could not be started (the caller then builds here)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    global _shared
    chunks = chunks_of(tests, chunk_count(len(tests), n))
    if len(chunks) < 2:
        return None
    _shared = (modules, compiled, chunks, sources, setup, tests, base)
    try:
        # with `fork`, the n workers are forked at the first submit; this process only waits
        # (it starts wasmtime only to run the chunk of a worker that failed); a dead worker
        # breaks the pool, never hangs it
        with ProcessPoolExecutor(min(n, len(chunks)), mp_context=multiprocessing.get_context("fork")) as pool:
            try:
                pending = [pool.submit(_chunk, i) for i in range(len(chunks))]
            except (OSError, RuntimeError):
                return None
            results = []
            for i, job in enumerate(pending):
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
    share = min(n, len(chunks))  # the chunks' seconds spread over the processes (an estimate of the wall time)
    phases = {k: sum(got[3].get(k, 0.0) for got in results) / share for k in ("plan", "wasm", "eval")}
    return parts, errors, outcomes, phases, sum(got[4] for got in results) / share
