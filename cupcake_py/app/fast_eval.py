"""`cupcake eval`: one event on stdin → one answer on stdout, in the format of the harness
chosen by `--harness` (cupcake_py/harness/: opencode, claude), which this module hands to the
engine (cupcake_py/engine/evaluator.py imports no harness).

Imported by `cupcake_py.app.entry` without typer: this module and what it imports at the
top stay lean (no typer, pydantic, YAML or compiler; those load only to rebuild a bundle
or to print --help).

Exit status (opencode): 0 decision printed; 1 decision is deny/block and --strict; 2 fail-closed
error (stdout: {"decision": "deny", "reason": "cupcake: <what failed>"}). claude: 0 decision
printed (Claude Code's JSON), 2 fail-closed error (reason on stderr; Claude Code blocks).
`--hard-timeout` bounds the whole process (bundle builds included): past it, the answer is the
harness's fail-closed one. So does a termination signal (SIGTERM, SIGINT, SIGHUP, ...; see
cupcake_py/core/termination.py, armed by app/entry.py before this module is imported): the answer is the
harness's fail-closed one with the reason "stopped by SIGTERM ...", and exit status 2.
"""

from __future__ import annotations

import os
import sys

from cupcake_py.core import jsonio, termination
from cupcake_py.core.errors import CupcakeError
from cupcake_py.core.lazylog import LazyLogger
from cupcake_py.engine.observe import Trace, append_telemetry, print_trace, write_debug_file
from cupcake_py.engine.options import EvalOptions, UsageError, parse_args
from cupcake_py.harness import UnknownHarness, get

TYPE_CHECKING = False
if TYPE_CHECKING:  # `_signal` has no stubs; `signal` re-exports its functions
    import signal
else:
    try:
        import _signal as signal  # the C module behind `signal` (same calls, plain ints; `signal` also imports enum)
    except ImportError:  # not a CPython private module everywhere: the public one has the same functions
        import signal

if TYPE_CHECKING:
    from collections.abc import Callable
    from types import FrameType

    from cupcake_py.engine.evaluator import Evaluation
    from cupcake_py.engine.harness_api import Answer, Harness
    from cupcake_py.engine.synthesis import FinalDecision

log = LazyLogger("cupcake_py.engine")

GRACE_SECONDS = 0.5  # the hard alarm fires this long after the deadline (backstop only)


class HardDeadline(CupcakeError):
    pass


def _alarm(_sig: int, _frame: FrameType | None) -> None:
    raise HardDeadline("the evaluation deadline passed (hard stop)")


def _setup_logging(level: str) -> None:
    from cupcake_py.core import logs

    logs.setup(level)


def _show_help() -> int:
    """The help text as written (one option list, from engine/options.py's table)."""
    from cupcake_py.cli.help_texts import EVAL_HELP

    sys.stdout.write(f"Usage: cupcake eval [OPTIONS] < EVENT.json\n\n{EVAL_HELP}")
    return 0


def _emit(answer: Answer) -> bool:
    """Write the answer (stderr text, then the one stdout line); False when stdout is gone
    (nothing else can be reported)."""
    if answer.stderr:
        try:
            sys.stderr.write(answer.stderr if answer.stderr.endswith("\n") else answer.stderr + "\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
    if answer.stdout is None:
        return True
    try:
        out = sys.stdout.buffer
        out.write(jsonio.dumps(answer.stdout) + b"\n")
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
    started = _monotonic()
    trace = Trace()
    opts = EvalOptions()
    evaluation = None
    harness: Harness | None = None
    answer: Answer | None = None
    failure: str | None = None
    hard_end: float | None = None
    try:
        try:
            try:
                opts = parse_args(argv)
                harness = get(opts.harness)
            except (UsageError, UnknownHarness) as e:
                sys.stderr.write(f"cupcake eval: {e}\n")
                harness = _harness_named_in(argv)
                raise UsageError(str(e)) from None
            if opts.help:
                return _show_help()
            signal.signal(signal.SIGALRM, _alarm)
            if opts.hard_timeout is not None:
                hard_end = started + opts.hard_timeout
            # the whole process, reading the event included, is bounded from here on (evaluate() keeps it)
            signal.setitimer(signal.ITIMER_REAL, _alarm_in(started + opts.timeout, hard_end))
            _setup_logging(opts.log_level)
            from cupcake_py.engine import reaper
            from cupcake_py.engine.evaluator import Evaluation

            reaper.arm()  # signal daemons are re-parented to this process and killed by _reap

            with trace.phase("read"):
                raw = _read_stdin(opts.max_input_bytes)
            evaluation = Evaluation(opts, trace, harness, started=started)
        except UsageError as e:
            failure = f"bad command line: {e}"
            trace.error = str(e)
        except BaseException as e:  # noqa: BLE001 - anything at all must fail closed
            failure = _failure_text(opts, trace, e)
        else:
            pending = [raw]  # the evaluation takes the bytes out and frees them once decoded
            del raw
            answer = evaluate(opts, trace, evaluation, lambda: evaluation.run(pending), hard_end)
        finally:
            if answer is None:
                signal.setitimer(signal.ITIMER_REAL, 0)
                _reap()
    except BaseException as e:  # noqa: BLE001 - stopped (a signal, the hard alarm) while answering
        termination.answering()
        signal.setitimer(signal.ITIMER_REAL, 0)
        answer = None
        failure = failure or _failure_text(opts, trace, e)
        _reap()
    termination.answering()
    if answer is None:
        if harness is None:  # stopped before the command line was read: its --harness still picks the form
            harness = _harness_named_in(argv)
        answer = _failure_answer(harness, failure or "no answer", evaluation)
    trace.response = answer.stdout
    if not _emit(answer):
        termination.answered(2)
        return 2
    termination.answered(answer.exit)
    _after(opts, trace, evaluation)
    return answer.exit


def evaluate(opts: EvalOptions, trace: Trace, evaluation: Evaluation, run: Callable[[], FinalDecision],
             hard_end: float | None = None) -> Answer:
    """The harness's answer to one evaluation run under the hard alarm; every failure is the
    harness's fail-closed answer. The audit record (when enabled) is written before it is
    returned. Shared by `cupcake eval` and `cupcake serve`."""
    harness = evaluation.harness
    final = None
    answer: Answer | None = None
    failure: str | None = None
    try:
        signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, _alarm_in(evaluation.deadline, hard_end))
        final = run()
        signal.setitimer(signal.ITIMER_REAL, 0)
        answer = harness.respond(final, evaluation.event or {}, opts.strict)
    except BaseException as e:  # noqa: BLE001 - anything at all (also KeyboardInterrupt) must fail closed
        signal.setitimer(signal.ITIMER_REAL, 0)
        failure = _failure_text(opts, trace, e)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _reap()
    if answer is None:
        answer = _failure_answer(harness, failure or "no answer", evaluation)
    elif final is not None and evaluation.governance is not None:
        answer = _audited(evaluation, trace, answer, final.kind, list(final.rule_ids), final.reason)
    if failure is not None and evaluation.governance is not None:
        answer = _audited(evaluation, trace, answer, "deny", [], failure)
    trace.response = answer.stdout
    return answer


def _failure_text(opts: EvalOptions, trace: Trace, e: BaseException) -> str:
    """The fail-closed reason for an exception (a CupcakeError's message is meant for users)."""
    if isinstance(e, CupcakeError | termination.Stopped):
        text = str(e) if isinstance(e, CupcakeError) else f"{e}; blocked (fail closed)"
        if opts.harness is None and isinstance(e, CupcakeError) and text.startswith("invalid ") and " event" in text:
            from cupcake_py.harness import DEFAULT, NAMES

            text += (f" (no --harness given, so the event was read as {DEFAULT}'s; pass --harness NAME, one of "
                     f"{', '.join(NAMES)}: Claude Code's hooks run `cupcake eval --harness claude`)")
        trace.error = text if isinstance(e, CupcakeError) else str(e)
        log.debug("fail closed", exc_info=True)
        return text
    if isinstance(e, RecursionError):
        trace.error = "RecursionError"
        return "input too deeply nested"
    trace.error = f"{type(e).__name__}: {e}"
    if opts.log_level == "debug":
        log.exception("internal error")
    else:
        sys.stderr.write(f"cupcake: internal error: {type(e).__name__}: {e} (--log-level debug shows details)\n")
    return f"internal error: {type(e).__name__}: {e}"


def _audited(evaluation: Evaluation, trace: Trace, answer: Answer, kind: str, rule_ids: list[str],
             reason: str | None) -> Answer:
    """`answer` once the audit record is written: a failed write is a warning, or the
    fail-closed answer under `audit: required`."""
    settings = evaluation.governance
    assert settings is not None
    failure = _audit(evaluation, trace, kind, rule_ids, reason)
    if failure is None:
        return answer
    if settings["mode"] == "required":
        trace.error = failure
        return _failure_answer(evaluation.harness, "the audit log could not be written and the rulebook says "
                               f"`audit: required` (fail closed): {failure}", evaluation)
    sys.stderr.write(f"cupcake: warning: the audit record was not written ({failure}); the decision stands\n")
    return answer


def _audit(evaluation: Evaluation, trace: Trace, kind: str, rule_ids: list[str], reason: str | None) -> str | None:
    """Append the evaluation's audit record (cupcake_py/governance); the failure text, or None."""
    try:
        from cupcake_py.governance.audit import evaluation_row, write_evaluation

        event = evaluation.audit_event()
        if event is None:
            return None  # the event itself was invalid: nothing to attribute a record to
        assert evaluation.governance is not None
        row = evaluation_row(event, evaluation.harness.name, evaluation.project_root or "", kind, rule_ids, reason,
                             trace.error, trace.timing_dict(), ",".join(evaluation.bundle_keys), evaluation.now)
        write_evaluation(evaluation.governance, row, evaluation.now)
    except Exception as e:  # noqa: BLE001 - reported by the caller (warning, or fail closed when required)
        return f"{type(e).__name__}: {e}" if not isinstance(e, CupcakeError) else str(e)
    return None


def _harness_named_in(argv: list[str]) -> Harness | None:
    """The harness a bad command line asked for (its failure format), when it names a known one."""
    for i, arg in enumerate(argv):
        if arg == "--harness" and i + 1 < len(argv):
            name = argv[i + 1]
        elif arg.startswith("--harness="):
            name = arg.partition("=")[2]
        else:
            continue
        try:
            return get(name)
        except UnknownHarness:
            return None
    return None


def _alarm_in(deadline: float, hard_end: float | None) -> float:
    """Seconds until the hard alarm: GRACE_SECONDS after the evaluation deadline, or the
    --hard-timeout when that comes first (never 0, which would disarm the timer)."""
    end = deadline + GRACE_SECONDS if hard_end is None else min(deadline + GRACE_SECONDS, hard_end)
    return max(0.001, end - _monotonic())


def _monotonic() -> float:
    import time

    return time.monotonic()


def _failure_answer(harness: Harness | None, message: str, evaluation: object) -> Answer:
    """The harness's fail-closed answer (the default harness's when --harness itself was bad).
    A failure while formatting it falls back to the plainest blocking answer."""
    event = getattr(evaluation, "event", None) or getattr(evaluation, "decoded", None)
    try:
        return (harness or get(None)).fail(message, event)
    except BaseException as e:  # noqa: BLE001 - the answer must still block
        from cupcake_py.engine.harness_api import Answer

        text = message if message.startswith("cupcake:") else f"cupcake: {message}"
        return Answer({"decision": "deny", "reason": text}, 2, f"{text} ({type(e).__name__} while answering)")


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
