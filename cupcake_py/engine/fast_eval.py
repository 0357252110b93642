"""`cupcake eval`: one event on stdin → one JSON decision line on stdout.

Imported by `cupcake_py.entry` without typer: this module and what it imports at the
top stay lean (no typer, pydantic, YAML or compiler; those load only to rebuild a bundle
or to print --help).

Exit status: 0 decision printed; 1 decision is deny/block and --strict; 2 fail-closed
error (stdout: {"decision": "deny", "reason": "cupcake: <what failed>"}).
"""

from __future__ import annotations

import os
import sys

from cupcake_py import jsonio
from cupcake_py.engine.observe import Trace, append_telemetry, print_trace, write_debug_file
from cupcake_py.engine.options import EvalOptions, UsageError, parse_args
from cupcake_py.errors import CupcakeError
from cupcake_py.harness.opencode.response import failure_response
from cupcake_py.lazylog import LazyLogger

try:
    import _signal as signal  # the C module behind `signal` (same calls, plain ints; `signal` also imports enum)
except ImportError:  # not a CPython private module everywhere: the public one has the same functions
    import signal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import FrameType
    from typing import Any

    from cupcake_py.engine.evaluator import Evaluation
    from cupcake_py.engine.synthesis import FinalDecision

log = LazyLogger("cupcake_py.engine")

GRACE_SECONDS = 0.5  # the hard alarm fires this long after the deadline (backstop only)


class HardDeadline(CupcakeError):
    pass


def _alarm(_sig: int, _frame: FrameType | None) -> None:
    raise HardDeadline("the evaluation deadline passed (hard stop)")


def _setup_logging(level: str) -> None:
    from cupcake_py import logs

    logs.setup(level)


def _show_help() -> int:
    """The help text as written (one option list, from engine/options.py's table)."""
    from cupcake_py.engine.commands import EVAL_HELP

    sys.stdout.write(f"Usage: cupcake eval [OPTIONS] < EVENT.json\n\n{EVAL_HELP}")
    return 0


def _emit(obj: dict[str, Any]) -> bool:
    """Write the one answer line; False when stdout is gone (nothing else can be reported)."""
    try:
        out = sys.stdout.buffer
        out.write(jsonio.dumps(obj) + b"\n")
        out.flush()
    except Exception:  # noqa: BLE001 - closed, broken or missing stdout
        try:  # nothing more can be written; keep the interpreter from complaining at exit
            os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
        except OSError:
            pass
        return False
    return True


def _read_stdin(limit: int) -> bytes:
    return sys.stdin.buffer.read(limit + 1)


def main(argv: list[str]) -> int:
    """Evaluate one event; every failure (any exception, the hard deadline, a signal crash, a
    corrupt cache, a malformed decision) prints the fail-closed deny and returns 2."""
    trace = Trace()
    opts = EvalOptions()
    evaluation = None
    resp: dict[str, Any]
    try:
        try:
            opts = parse_args(argv)
        except UsageError as e:
            sys.stderr.write(f"cupcake eval: {e}\n")
            raise
        if opts.help:
            return _show_help()
        _setup_logging(opts.log_level)
        from cupcake_py.engine import reaper
        from cupcake_py.engine.evaluator import Evaluation

        reaper.arm()  # signal daemons are re-parented to this process and killed by _reap

        with trace.phase("read"):
            raw = _read_stdin(opts.max_input_bytes)
        evaluation = Evaluation(opts, trace)
    except UsageError as e:
        resp = failure_response(f"bad command line: {e}")
        trace.error = str(e)
        code = 2
    except BaseException as e:  # noqa: BLE001 - anything at all must fail closed
        resp, code = _failure(opts, trace, e)
    else:
        resp, code = answer(opts, trace, evaluation, lambda: evaluation.run(raw))
    trace.response = resp
    if not _emit(resp):
        return 2
    _after(opts, trace, evaluation)
    return code


def answer(opts: EvalOptions, trace: Trace, evaluation: Evaluation,
           run: Callable[[], FinalDecision]) -> tuple[dict[str, Any], int]:
    """(response, exit code) of one evaluation run under the hard alarm; every failure is the
    fail-closed deny with code 2. Shared by `cupcake eval` and `cupcake serve`."""
    from cupcake_py.harness.opencode.response import response

    final = None
    try:
        signal.signal(signal.SIGALRM, _alarm)
        evaluation.on_deadline = lambda seconds: signal.setitimer(signal.ITIMER_REAL, seconds + GRACE_SECONDS)
        final = run()
        signal.setitimer(signal.ITIMER_REAL, 0)
        resp = response(final)
        code = 1 if opts.strict and resp["decision"] in ("deny", "block") else 0
    except BaseException as e:  # noqa: BLE001 - anything at all (also KeyboardInterrupt) must fail closed
        signal.setitimer(signal.ITIMER_REAL, 0)
        resp, code = _failure(opts, trace, e)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _reap()
    resp, code = _audited(evaluation, trace, resp, code, None if trace.error else getattr(final, "kind", None))
    trace.response = resp
    return resp, code


def _audited(evaluation: Evaluation, trace: Trace, resp: dict[str, Any], code: int,
             kind: str | None) -> tuple[dict[str, Any], int]:
    """(response, code) after the audit record is written (when the rulebook enables the audit
    log): a failed write is a warning, or the fail-closed deny under `audit: required`."""
    settings = getattr(evaluation, "governance", None)
    if settings is None:
        return resp, code
    failure = _audit(evaluation, trace, resp, kind)
    if failure is None:
        return resp, code
    if settings["mode"] == "required":
        trace.error = failure
        return failure_response(f"the audit log could not be written and the rulebook says `audit: required` "
                                f"(fail closed): {failure}"), 2
    sys.stderr.write(f"cupcake: warning: the audit record was not written ({failure}); the decision stands\n")
    return resp, code


def _failure(opts: EvalOptions, trace: Trace, e: BaseException) -> tuple[dict[str, Any], int]:
    """The fail-closed answer to an exception (a CupcakeError's message is meant for users)."""
    if isinstance(e, CupcakeError):
        trace.error = str(e)
        log.debug("fail closed", exc_info=True)
        return failure_response(str(e)), 2
    if isinstance(e, RecursionError):
        trace.error = "RecursionError"
        return failure_response("input too deeply nested"), 2
    trace.error = f"{type(e).__name__}: {e}"
    if opts.log_level == "debug":
        log.exception("internal error")
    else:
        sys.stderr.write(f"cupcake: internal error: {type(e).__name__}: {e} (--log-level debug shows details)\n")
    return failure_response(f"internal error: {type(e).__name__}: {e}"), 2


def _audit(evaluation: Any, trace: Trace, resp: dict[str, Any], kind: str | None) -> str | None:
    """Append the evaluation's audit record (cupcake_py/governance); the failure text, or None."""
    try:
        from cupcake_py.governance.audit import evaluation_row, write_evaluation

        event = evaluation.audit_event()
        if event is None:
            return None  # the event itself was invalid: nothing to attribute a record to
        row = evaluation_row(event, evaluation.opts.harness, evaluation.project_root or "", kind or resp["decision"],
                             list(resp.get("rule_ids") or ()), resp.get("reason"), trace.error, trace.timing_dict(),
                             ",".join(evaluation.bundle_keys), evaluation.now)
        write_evaluation(evaluation.governance, row, evaluation.now)
    except Exception as e:  # noqa: BLE001 - reported by the caller (warning, or fail closed when required)
        return f"{type(e).__name__}: {e}" if not isinstance(e, CupcakeError) else str(e)
    return None


def _reap() -> None:
    """Backstop for "nothing keeps running after exit": kill any child process still alive
    (shell signals are reaped by run_signals; this catches e.g. a git process of a native signal
    interrupted by the hard deadline)."""
    try:
        from cupcake_py.engine.reaper import kill_children

        kill_children()
    except Exception as e:  # noqa: BLE001 - cleanup never changes the answer
        log.debug("reaping children failed: %s", e)


def _after(opts: EvalOptions, trace: Trace, evaluation: object) -> None:
    """Trace, debug file and telemetry; their failures never change the answer."""
    try:
        if opts.trace:
            print_trace(trace, opts.trace)
        if opts.debug_files:
            default = getattr(evaluation, "debug_dir", None) or os.path.join(os.getcwd(), ".cupcake", "debug")
            path = write_debug_file(opts.debug_dir or default, trace)
            log.info("debug trace written to %s", path)
        telemetry = getattr(evaluation, "telemetry_path", None)
        if telemetry is not None:
            append_telemetry(telemetry, trace)
    except Exception as e:  # noqa: BLE001 - observability never changes the answer
        try:
            sys.stderr.write(f"cupcake: could not write observability output: {type(e).__name__}: {e}\n")
        except OSError:
            pass


def run_cli() -> None:
    raise SystemExit(main(sys.argv[1:]))


if __name__ == "__main__":
    run_cli()
