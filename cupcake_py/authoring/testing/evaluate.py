"""Evaluation of compiled test entrypoints for `cupcake test`, in this process or spread over
worker processes.

In: the WASM module of a test build, the data document, the entrypoints (one per test), the
host settings (strict builtin errors, per-test deadline, custom builtin implementations) and a
worker count. Out: one `Outcome` per entrypoint, in the order given (deterministic, whatever
the number of workers): status pass/fail/error, duration, message, value, printed lines.

A test passes when its rule is `true` (OPA: `passes`); undefined or any other value fails; a host error
(builtin error in strict mode, conflict, timeout, memory cap) is an error. Tests start in this
process; when they turn out slow (after PROBE_S seconds of this process's CPU time the rest is
projected to take more than WORTH_S; CPU time, so that a loaded machine does not make a small run
pay for worker processes) and more than one process is allowed, the remaining tests are split into contiguous
slices evaluated by spawned worker processes (each loads the module once: the host's
native-code cache makes that a file read). A worker that dies makes its slice run here.
"""

from __future__ import annotations

import os
import time

from cupcake_py.core.record import Record

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing and dataclasses stay off a cached run's start-up: Record classes)
    from collections.abc import Callable, Mapping, Sequence
    from typing import Any, Literal

# Test modules are large and each test runs once: wasmtime's baseline compiler (winch) makes
# native code ~5x faster than cranelift (0.5 s vs 3.3 s for 1,800 tests over 1,151 files,
# measured) and the tests run about as fast.
NATIVE_COMPILER: Literal["winch"] = "winch"
PROBE_S = 0.5  # evaluate this long in-process before deciding on workers
WORTH_S = 1.5  # ... and spawn them only when the rest would take longer than this here


class Outcome(Record):
    __slots__ = ("status", "duration_s", "message", "value", "lines")

    def __init__(self, status: Literal["pass", "fail", "error"], duration_s: float = 0.0, message: str = "",
                 value: Any = None, lines: list[str] | None = None) -> None:
        self._fill(status, duration_s, message, value, [] if lines is None else lines)

    status: Literal["pass", "fail", "error"]
    duration_s: float
    message: str
    value: Any
    lines: list[str]


class EvalSetup(Record):
    __slots__ = ("wasm", "data", "strict", "deadline", "builtin_specs")

    def __init__(self, wasm: bytes, data: Any, strict: bool, deadline: float,
                 builtin_specs: list[str] | None = None) -> None:
        # builtin_specs: custom builtin modules (cupcake_py.extensions.builtins)
        self._fill(wasm, data, strict, deadline, [] if builtin_specs is None else builtin_specs)

    wasm: bytes
    data: Any
    strict: bool
    deadline: float
    builtin_specs: list[str]

    def with_wasm(self, wasm: bytes) -> EvalSetup:
        return EvalSetup(wasm, self.data, self.strict, self.deadline, self.builtin_specs)


class Evaluator:
    """One instance of a test module; `run(entrypoint)` evaluates one test."""

    def __init__(self, setup: EvalSetup) -> None:
        from cupcake_py.host import HostOptions, PolicyModule

        self.lines: list[str] = []
        t0 = time.perf_counter()
        module = PolicyModule(setup.wasm, HostOptions(strict=setup.strict, deadline=setup.deadline,
                                                      compiler=NATIVE_COMPILER))
        self.native_s = time.perf_counter() - t0
        self.strict = setup.strict
        self.instance = module.instantiate(setup.data, builtins=_implementations(setup.builtin_specs),
                                           context_factory=self._context)

    def _context(self) -> Any:
        """The BuiltinContext of an evaluation that calls a host builtin (the host's builtin
        library is imported then: a test run whose policies call none never loads it)."""
        from cupcake_py.host.builtins import BuiltinContext

        return BuiltinContext(strict=self.strict, print_hook=self.lines.append)

    def eval(self, entrypoint: str) -> list[dict[str, Any]]:
        self.lines = []
        return self.instance.eval(entrypoint, keep_sets=True)

    def run(self, entrypoint: str) -> Outcome:
        from cupcake_py.host.errors import HostError

        t0 = time.perf_counter()
        try:
            rows = self.eval(entrypoint)
        except HostError as e:
            return Outcome("error", time.perf_counter() - t0, error_text(e), lines=self.lines)
        dt = time.perf_counter() - t0
        if not rows:
            return Outcome("fail", dt, "the test rule is undefined", lines=self.lines)
        value = rows[0].get("result")
        if value is False:
            return Outcome("fail", dt, "the test rule is false", value, self.lines)
        if not passes(value):
            return Outcome("fail", dt, "the test rule is not true", value, self.lines)
        return Outcome("pass", dt, value=value, lines=self.lines)


def error_text(e: Exception) -> str:
    """`code: message` of a failed evaluation, with OPA's error codes (topdown): a builtin's
    `eval_builtin_error`/`eval_type_error` (strict mode), `eval_conflict_error`, `eval_cancel_error`
    (the --timeout deadline), else `eval_internal_error`."""
    from cupcake_py.host import errors

    code = getattr(e, "code", None)
    if code is None:
        if isinstance(e, errors.AbortError) and e.is_conflict:
            code = "eval_conflict_error"
        elif isinstance(e, errors.DeadlineExceeded):
            code = "eval_cancel_error"
        else:
            code = "eval_internal_error"
    return f"{code}: {e}"


def passes(value: Any) -> bool:
    """OPA's verdict on a test rule's value: `true`, or an object (a partial-object test such as
    `test_cases[name] := ...`) whose values are all `true` or such objects; any other value
    (a number, a set, null) fails."""
    if isinstance(value, dict):
        return all(passes(v) for v in value.values())
    return value is True


def _implementations(specs: list[str]) -> Mapping[str, Callable[..., Any]]:
    if not specs:
        return {}
    from cupcake_py.extensions.builtins import load

    return load(specs, entry_points=False).implementations()


_worker: Evaluator | None = None


def _init_worker(setup: EvalSetup) -> None:
    global _worker
    _worker = Evaluator(setup)


def _run_slice(entrypoints: list[str]) -> list[Outcome]:
    assert _worker is not None
    return [_worker.run(ep) for ep in entrypoints]


def evaluate(setup: EvalSetup, entrypoints: Sequence[str], parallel: int) -> tuple[list[Outcome], float, int]:
    """(outcome per entrypoint in order, seconds spent loading the module's native code,
    number of processes that evaluated)."""
    ev = Evaluator(setup)
    wanted = parallel if parallel > 0 else (os.cpu_count() or 1)
    out: list[Outcome] = []
    t0 = time.process_time()  # CPU, not wall time: a loaded machine must not make tiny runs spawn workers
    for i, ep in enumerate(entrypoints):
        out.append(ev.run(ep))
        spent = time.process_time() - t0
        left = len(entrypoints) - i - 1
        if wanted > 1 and left > 1 and spent > PROBE_S and spent / (i + 1) * left > WORTH_S:
            rest = list(entrypoints[i + 1:])
            n = min(wanted, left)
            return out + _shared(ev, setup, rest, n), ev.native_s, n
    return out, ev.native_s, 1


def _shared(ev: Evaluator, setup: EvalSetup, entrypoints: list[str], n: int) -> list[Outcome]:
    """`entrypoints` split into n contiguous slices: the first evaluated here, the others by
    n - 1 spawned workers meanwhile; a slice whose worker failed is evaluated here after."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    size = -(-len(entrypoints) // n)
    slices = [entrypoints[i:i + size] for i in range(0, len(entrypoints), size)]
    try:
        pool = ProcessPoolExecutor(len(slices) - 1, mp_context=multiprocessing.get_context("spawn"),
                                   initializer=_init_worker, initargs=(setup,))
    except OSError:
        return [ev.run(x) for x in entrypoints]
    with pool:
        futures = [pool.submit(_run_slice, part) for part in slices[1:]]
        out = [ev.run(x) for x in slices[0]]
        for part, fut in zip(slices[1:], futures, strict=True):
            try:
                out += fut.result()
            except Exception:  # noqa: BLE001 - a dead or failing worker: its tests run here instead
                out += [ev.run(x) for x in part]
    return out
