"""One analysis run: parse, walk, finish, render; every failure becomes opacity.

In: as `cupcake_py.shell.analyze`. Out: the `shell` dict. A missing parser, an exhausted
budget (`Deadline`) or any unexpected error marks the whole command opaque with the reason
(all kinds and `command`), keeping what was found before; it never raises, except that the
engine's own `CupcakeError`s raised into it (the evaluation's hard deadline alarm) pass
through.
"""

from __future__ import annotations

import os

from cupcake_py.core.errors import CupcakeError
from cupcake_py.shell.model import KINDS, Budget, Deadline, Result

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


def _all_opaque(result: Result, reason: str) -> None:
    for kind in ("command", *KINDS):
        result.mark(kind, reason, None)


def run(command: str, cwd: str, *, env: dict[str, str] | None = None, budget: Budget | None = None) -> dict[str, Any]:
    budget = budget or Budget()
    cwd_abs = os.path.normpath(os.path.abspath(cwd)) if isinstance(cwd, str) and cwd else "/"
    source = command if isinstance(command, str) else ""
    result = Result(source, cwd_abs, budget)
    try:
        _walk(result, source, cwd_abs, env)
    except Deadline as exc:
        _all_opaque(result, f"{exc} (the rest of the command line is not analysed)")
    except RecursionError:
        _all_opaque(result, "the command line nests too deeply to analyse")
    except CupcakeError:
        raise  # the engine's own stops (the hard evaluation deadline) pass through
    except Exception as exc:  # noqa: BLE001 - fail safe: an analysis bug must never pass as "fine"
        result.parsed = False
        _all_opaque(result, f"internal analysis error: {type(exc).__name__}: {exc}")
    return result.to_json()


def _walk(result: Result, source: str, cwd: str, env: dict[str, str] | None) -> None:
    from cupcake_py.shell import git
    from cupcake_py.shell.parse import parse
    from cupcake_py.shell.walker import Walker, initial_state

    if "\0" in source:
        result.parsed = False
        _all_opaque(result, "the command contains a NUL character")
        source = source.replace("\0", " ")
    # a text longer than the budget in characters is over it in bytes: no encoded copy of a huge command
    if len(source) > result.budget.max_bytes or len(source.encode("utf-8", "surrogatepass")) > result.budget.max_bytes:
        result.parsed = False
        _all_opaque(result, "the command is larger than the analysis byte budget")
        return
    src = source.encode("utf-8", "surrogatepass")
    root = parse(src)
    walker = Walker(src, result, 0, "command")
    known = dict(env) if env is not None else _default_env()
    state = initial_state(walker, cwd, known)
    try:
        walker.run(root, state)
    finally:
        git.finish(result)


def _default_env() -> dict[str, str]:
    """Without an explicit environment only HOME is taken from this process: other
    variables of the agent's shell are unknown (opaque)."""
    home = os.environ.get("HOME")
    return {"HOME": home} if home else {}
