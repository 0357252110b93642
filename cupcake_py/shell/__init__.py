"""Static analysis of shell commands: `input.shell` (docs/shell-analysis.md).

In: the raw command string, the directory it starts in, optionally the environment it runs
with and a `Budget`. Out: the `shell` object of the contract (notes: SHELL_CONTRACT.md),
plain JSON values. Never raises: a parse failure, an exhausted budget or an internal error
yields a result whose unknown parts are listed in `opaque` (fail safe: policies decide).
tree-sitter is imported on the first call only.
"""

from __future__ import annotations

import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cupcake_py.shell.memo import AnalysisMemo
    from cupcake_py.shell.model import Budget

VERSION = 1


def analyze(command: str, cwd: str, *, env: dict[str, str] | None = None,
            budget: Budget | None = None) -> dict[str, Any]:
    """The analysis; from `cupcake serve`'s memo (shell/memo.py) when one is enabled and the call
    is the plain one (no explicit environment or budget)."""
    from cupcake_py.shell.analysis import run

    memo = _memo()
    if memo is not None and env is None and budget is None:
        return memo.analyze(command, cwd, run)
    return run(command, cwd, env=env, budget=budget)


def _memo() -> AnalysisMemo | None:
    module = sys.modules.get("cupcake_py.shell.memo")  # only a server imports it (and enables it)
    return None if module is None else module.active()
