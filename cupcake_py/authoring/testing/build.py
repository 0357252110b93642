"""Compiling the tests of `cupcake test` to WASM: compile → plan → code generation.

In: the parsed modules (with the shipped support modules), the tests to build, their sources,
a dict of phase seconds to add to, and optionally the modules' compile result (reusable across
plans). Out: `build_tests` returns the compiled parts (one module for all tests; when a
planner/codegen limit stops that, one per test package, then one per test) and the tests that
could not be compiled (as error results). A compile error of the policies themselves raises
TestSetupError (exit status 1, as `opa test`), as does a build where no test compiled.
"""

from __future__ import annotations

import time

from cupcake_py.authoring.testing.cases import Part, TestCase, TestResult, TestSetupError
from cupcake_py.core.errors import CupcakeError
from cupcake_py.plan import compile_entrypoints
from cupcake_py.rego import ast as A
from cupcake_py.rego.compile import compile_modules
from cupcake_py.rego.errors import RegoErrors, format_text
from cupcake_py.wasm import compile_policy

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing stays off a first `cupcake test` run's start-up)
    from typing import Any


def compile_wasm(modules: list[A.Module], entrypoints: list[str], phases: dict[str, float],
                 compiled: Any = None) -> bytes:
    """compile (unless `compiled` is given: the modules' compile result, reusable across
    plans) → plan → WASM for `entrypoints`, adding each phase's seconds to `phases`."""
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
