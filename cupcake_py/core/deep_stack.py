"""Room for the compiler's recursion on deeply nested Rego (`[[[…]]]`, `f(g(h(…)))`, nested
`every` bodies, 10000-operand operator chains), which OPA compiles and Python's default limit of
1000 frames does not allow.

In: a callable (or a `with` block). Out: its result, computed
- `recursion_limit(n)`: in this thread with Python's recursion limit raised to at least `n`
  (restored afterwards). Enough for code that recurses through Python functions only, which
  since Python 3.11 use no C stack.
- `on_deep_stack(fn)`: on a thread with a 256 MiB stack (address space, used as touched) and a
  400000-frame limit, for recursion that also passes through C (comparisons, hashing, the
  planner's continuations); where no such thread can start, in this thread with 20000 frames.
Errors of `fn` propagate unchanged (a RecursionError too: callers turn it into their own
"nested too deeply" error). Deterministic: the stack changes nothing but the room.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import TypeVar

    T = TypeVar("T")

STACK_BYTES = 256 << 20
DEEP_RECURSION = 400_000
FALLBACK_RECURSION = 20_000


class recursion_limit:  # noqa: N801 - used as a `with` statement, like contextlib's helpers
    """`with recursion_limit(n):` raises the limit to at least n for the block."""

    __slots__ = ("_n", "_old")

    def __init__(self, n: int) -> None:
        self._n = n
        self._old = 0

    def __enter__(self) -> None:
        self._old = sys.getrecursionlimit()
        sys.setrecursionlimit(max(self._old, self._n))

    def __exit__(self, *_: object) -> None:
        sys.setrecursionlimit(self._old)


def on_deep_stack(fn: Callable[[], T]) -> T:
    """`fn()` on a thread with a large stack and recursion limit (see the module docstring)."""
    import _thread  # (the low-level module: threading stays off a first `cupcake test` run's imports)

    box: list[T] = []
    err: list[BaseException] = []
    done = _thread.allocate_lock()
    done.acquire()

    def run() -> None:
        try:
            box.append(fn())
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            err.append(e)
        finally:
            done.release()

    old_size, old_limit = _thread.stack_size(), sys.getrecursionlimit()
    sys.setrecursionlimit(max(old_limit, DEEP_RECURSION))
    try:
        try:
            _thread.stack_size(STACK_BYTES)
            # a thread the interpreter never waits for at exit: a signal that ends the caller (a
            # deadline) must not wait for it
            _thread.start_new_thread(run, ())
        except (RuntimeError, ValueError, MemoryError):  # no room for the stack: run here
            sys.setrecursionlimit(max(old_limit, FALLBACK_RECURSION))
            run()
        done.acquire()
    finally:
        _thread.stack_size(old_size)
        sys.setrecursionlimit(old_limit)
    if err:
        raise err[0]
    return box[0]
