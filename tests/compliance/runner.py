"""Running one compliance case through our pipeline: plan (OPA's IR from the case, or our
front end + planner in source mode) → compile_policy → wasmtime host → judge."""

from __future__ import annotations

import os
import re
import time
import traceback
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from cupcake_py.core import values
from cupcake_py.host import UNDEFINED, HostOptions, PolicyModule
from cupcake_py.host import errors as host_errors
from cupcake_py.rego.errors import RegoErrors

from .judge import judge, judge_compile_errors, judge_strict
from .suite import OPA_EXCEPTIONS

Mode = Literal["plan", "source"]

# No native-code cache (every case is a new module); OPA's runner gives no deadline, ours is generous.
# Compiling each case's module is most of a run's time; Winch (wasmtime's baseline compiler)
# compiles ~6x faster than Cranelift and gives the same results on the whole suite (measured
# with --compiler both ways). CUPCAKE_COMPLIANCE_COMPILER=cranelift runs what `cupcake eval` uses.
COMPILER = os.environ.get("CUPCAKE_COMPLIANCE_COMPILER", "winch")
OPTIONS = HostOptions(cache_dir=None, deadline=5.0, compiler=COMPILER)  # type: ignore[arg-type]
# --strict: OPA's StrictBuiltinErrors (`opa eval --strict-builtin-errors`); judged by judge_strict.
STRICT_OPTIONS = HostOptions(cache_dir=None, deadline=5.0, compiler=COMPILER, strict=True)  # type: ignore[arg-type]

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
_UNIT_S = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def _test_sleep(ctx: Any, duration: Any) -> None:
    """`test.sleep(duration)`: the custom builtin OPA's Wasm runner registers."""
    total = sum(float(n) * _UNIT_S[u] for n, u in _DURATION.findall(str(duration)))
    time.sleep(min(total, 1.0))
    return None


def _opa_runtime(ctx: Any) -> dict[str, Any]:
    """`opa.runtime()` as in OPA's test harness, which configures no runtime: `{}`."""
    return {}


RUNNER_BUILTINS = {"test.sleep": _test_sleep, "opa.runtime": _opa_runtime}


@dataclass
class CaseResult:
    note: str
    status: Literal["passed", "failed", "skipped"]
    category: str
    reason: str = ""
    file: str = ""
    seconds: float = 0.0
    missing_builtins: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class SourceModeUnavailable(Exception):
    """The planner entry point (`cupcake_py.plan.compile_query`) does not exist yet."""


def source_compiler() -> Any:
    try:
        from cupcake_py.plan import compile_query
    except ImportError as e:
        raise SourceModeUnavailable(
            f"source mode needs cupcake_py.plan.compile_query(modules, query, entrypoint=...) ({e})") from None
    return compile_query


def _policy(case: dict[str, Any], mode: Mode) -> Any:
    from cupcake_py import ir

    if mode == "plan":
        return ir.load(case["plan"])
    modules: list[Any] = list(case.get("modules") or [])
    if case.get("rego_version") == 0:  # our own cases: OPA's --v0-compatible syntax
        from cupcake_py.rego import parse_module

        modules = [parse_module(m, f"module-{i}.rego", "v0") for i, m in enumerate(modules)]
    return source_compiler()(modules, case["query"], entrypoint="eval")


def _input(case: dict[str, Any]) -> Any:
    if "input_term" in case:
        return values.parse_rego(case["input_term"])
    return case["input"] if "input" in case else UNDEFINED


def run_case(case: dict[str, Any], mode: Mode, strict: bool = False) -> CaseResult:
    note = case.get("note", "?")
    t0 = time.perf_counter()

    def done(status: Literal["passed", "failed", "skipped"], category: str, reason: str = "",
             missing: list[str] | None = None) -> CaseResult:
        return CaseResult(note, status, category, reason[:2000], case.get("_file", ""),
                          round(time.perf_counter() - t0, 4), missing or [])

    result = _run(case, mode, done, strict)
    if note in OPA_EXCEPTIONS and result.status == "failed":
        # OPA's own Wasm run skips these; we run them and report a failure as such a skip.
        result.status, result.category = "skipped", "opa-exception"
        result.reason = f"in OPA's exceptions ({OPA_EXCEPTIONS[note]}); here: {result.reason}"
    return result


def _run(case: dict[str, Any], mode: Mode, done: Callable[..., CaseResult], strict: bool = False) -> CaseResult:
    from cupcake_py.wasm import compile_policy

    stage = "plan" if mode == "plan" else "source-compile"
    try:
        policy = _policy(case, mode)
        stage = "codegen"
        wasm = compile_policy(policy)
        stage = "module"
        module = PolicyModule(wasm, STRICT_OPTIONS if strict else OPTIONS)
        instance = module.instantiate(case["data"] if "data" in case else UNDEFINED, builtins=RUNNER_BUILTINS)
    except SourceModeUnavailable:
        raise
    except RegoErrors as e:
        if stage == "source-compile" and str(case.get("want_error_code", "")).startswith("rego_"):
            verdict = judge_compile_errors(case, e)
            return done("passed" if verdict.ok else "failed", verdict.category, verdict.reason)
        return done("failed", stage, f"{type(e).__name__}: {e}")
    except host_errors.MissingBuiltinError as e:
        return done("failed", "needs-host-builtin", str(e), e.names)
    except Exception as e:  # noqa: BLE001 - one broken case must not stop the run
        return done("failed", stage, f"{type(e).__name__}: {e}")
    rows: list[Any] | None = None
    error: BaseException | None = None
    try:
        rows = instance.eval("eval", _input(case), keep_sets=True)
    except host_errors.HostError as e:
        error = e
    except Exception as e:  # noqa: BLE001
        return done("failed", "crash", "".join(traceback.format_exception_only(e)).strip())
    verdict = judge_strict(case, rows, error) if strict else judge(case, rows, error)
    return done("passed" if verdict.ok else "failed", verdict.category, verdict.reason)
