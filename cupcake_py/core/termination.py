"""Termination signals on the `cupcake eval` path end in the harness's fail-closed answer.

Claude Code runs the tool when its hook exits with anything but 2, and a process killed by
SIGTERM exits 143 with no answer at all. So `cupcake eval` catches every signal whose default
action ends the process and that can be caught safely:

In: `arm()`, called first thing by `cupcake eval` (app/entry.py) and by `cupcake serve`, before any
heavy import. Out, in three states:
- running (after `arm()`): the first such signal raises `Stopped` (a BaseException, so no
  `except Exception` of the engine swallows it) wherever the main thread is; the eval driver
  answers it like every failure: the harness's fail-closed answer, exit status 2.
- answering (`answering()`, and by itself once `Stopped` was raised): the answer is being made
  and written; one more signal is remembered and ignored, a second one ends the process at once
  with exit status 2 (writing may be stuck on a pipe nobody reads).
- answered (`answered(status)`): the answer is out; any signal ends the process at once with
  that status.
`stopped()`: the signal that stopped the process, or None.

Not covered, by nature: the interpreter's start-up before `arm()` (the Claude Code hook's
`sh -c` wrapper turns the resulting 143/130 into 2), SIGKILL and SIGSTOP (cannot be caught),
faults (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT: not safe to continue), SIGALRM (the hard
deadline, app/fast_eval.py). Python runs handlers between bytecodes of the main thread: a WASM
evaluation in progress sees the signal when it returns (its deadline bounds it).
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:  # `_signal` has no stubs; `signal` re-exports its functions and constants
    import signal
    from types import FrameType
else:
    try:
        import _signal as signal  # the C module behind `signal` (which also imports enum)
    except ImportError:  # not a CPython private module everywhere: the public one has the same calls
        import signal

# name -> number for the signals whose default action ends the process and that are safe to catch
SIGNALS: dict[str, int] = {name: getattr(signal, name) for name in (
    "SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF",
) if hasattr(signal, name)}
_NAMES = {num: name for name, num in SIGNALS.items()}

RUNNING, ANSWERING, ANSWERED = "running", "answering", "answered"
_state: dict[str, str | int] = {"state": RUNNING, "status": 2, "ignored": 0}
_seen: list[int] = []  # signals received, in order


class Stopped(BaseException):
    """The process was asked to stop (a termination signal) before its answer was made."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(f"stopped by {_NAMES.get(signum, f'signal {signum}')} before the evaluation finished")


def _handler(signum: int, _frame: FrameType | None) -> None:
    _seen.append(signum)
    state = _state["state"]
    if state == RUNNING:
        _state["state"] = ANSWERING
        raise Stopped(signum)
    if state == ANSWERING and _state["ignored"] == 0:
        _state["ignored"] = 1
        return  # the answer is being written: let it finish
    os._exit(int(_state["status"]))


def arm() -> None:
    """Catch the termination signals (see the module docstring); safe to call again."""
    _state.update(state=RUNNING, status=2, ignored=0)
    for num in SIGNALS.values():
        try:
            signal.signal(num, _handler)
        except (OSError, ValueError):  # not the main thread, or a signal this system does not allow
            pass


def answering() -> None:
    """The answer is being made from here on: signals no longer interrupt it."""
    if _state["state"] == RUNNING:
        _state["state"] = ANSWERING


def answered(status: int) -> None:
    """The answer is out; a signal now ends the process with `status` at once."""
    _state["state"], _state["status"] = ANSWERED, status


def stopped() -> str | None:
    """The name of the first signal received, or None."""
    return _NAMES.get(_seen[0], f"signal {_seen[0]}") if _seen else None
