"""`cupcake eval`: one event on stdin → one JSON decision line on stdout.

Imported by `cupcake_py.entry` without typer: this module and what it imports at the
top stay lean (no typer, pydantic, YAML or compiler; those load only to rebuild a bundle
or to print --help).

Exit status: 0 decision printed; 1 decision is deny/block and --strict; 2 fail-closed
error (stdout: {"decision": "deny", "reason": "cupcake: <what failed>"}).
"""

from __future__ import annotations

import logging
import signal
import sys
from pathlib import Path
from types import FrameType

import orjson

from cupcake_py.engine.observe import Trace, append_telemetry, print_trace, write_debug_file
from cupcake_py.engine.options import EvalOptions, UsageError, parse_args
from cupcake_py.errors import CupcakeError

log = logging.getLogger("cupcake_py.engine")

GRACE_SECONDS = 0.5  # the hard alarm fires this long after the deadline (backstop only)


class HardDeadline(CupcakeError):
    pass


def _alarm(_sig: int, _frame: FrameType | None) -> None:
    raise HardDeadline("the evaluation deadline passed (hard stop)")


def _setup_logging(level: str) -> None:
    from cupcake_py import logs

    logs.setup(level)


def _show_help() -> int:
    from cupcake_py.cli import run

    sys.argv = ["cupcake", "eval", "--help"]
    try:
        run()
    except SystemExit as e:
        return int(e.code or 0)
    return 0


def _emit(obj: dict[str, object]) -> None:
    out = sys.stdout.buffer
    out.write(orjson.dumps(obj) + b"\n")
    out.flush()


def _read_stdin(limit: int) -> bytes:
    return sys.stdin.buffer.read(limit + 1)


def main(argv: list[str]) -> int:
    from cupcake_py.harness.opencode.response import failure_response, response

    trace = Trace()
    try:
        opts = parse_args(argv)
    except UsageError as e:
        sys.stderr.write(f"cupcake eval: {e}\n")
        _emit(failure_response(f"bad command line: {e}"))
        return 2
    if opts.help:
        return _show_help()
    _setup_logging(opts.log_level)
    evaluation = None
    code = 2
    try:
        from cupcake_py.engine.evaluator import Evaluation

        with trace.phase("read"):
            raw = _read_stdin(opts.max_input_bytes)
        evaluation = Evaluation(opts, trace)
        signal.signal(signal.SIGALRM, _alarm)
        evaluation.on_deadline = lambda seconds: signal.setitimer(signal.ITIMER_REAL, seconds + GRACE_SECONDS)
        final = evaluation.run(raw)
        signal.setitimer(signal.ITIMER_REAL, 0)
        resp = response(final)
        code = 1 if opts.strict and resp["decision"] in ("deny", "block") else 0
    except CupcakeError as e:
        resp = failure_response(str(e))
        trace.error = str(e)
        log.debug("fail closed", exc_info=True)
    except RecursionError:
        resp = failure_response("input too deeply nested")
        trace.error = "RecursionError"
    except Exception as e:  # noqa: BLE001 - any failure must fail closed
        resp = failure_response(f"internal error: {type(e).__name__}: {e}")
        trace.error = f"{type(e).__name__}: {e}"
        if opts.log_level == "debug":
            log.exception("internal error")
        else:
            sys.stderr.write(f"cupcake: internal error: {type(e).__name__}: {e} (--log-level debug shows details)\n")
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    trace.response = resp
    _emit(resp)
    _after(opts, trace, evaluation)
    return code


def _after(opts: EvalOptions, trace: Trace, evaluation: object) -> None:
    """Trace, debug file and telemetry; their failures never change the answer."""
    try:
        if opts.trace:
            print_trace(trace, opts.trace)
        if opts.debug_files:
            default = getattr(evaluation, "debug_dir", None) or Path.cwd() / ".cupcake" / "debug"
            path = write_debug_file(Path(opts.debug_dir) if opts.debug_dir else default, trace)
            log.info("debug trace written to %s", path)
        telemetry = getattr(evaluation, "telemetry_path", None)
        if telemetry is not None:
            append_telemetry(telemetry, trace)
    except OSError as e:
        sys.stderr.write(f"cupcake: could not write observability output: {e}\n")


def run_cli() -> None:
    raise SystemExit(main(sys.argv[1:]))


if __name__ == "__main__":
    run_cli()
