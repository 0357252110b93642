"""Static analysis of shell commands: `input.shell` (docs/shell-analysis.md).

In: the raw command string, the directory it starts in, optionally the environment it runs
with and a `Budget`. Out: the `shell` object of the contract (notes: SHELL_CONTRACT.md),
plain JSON values. Never raises: a parse failure, an exhausted budget or an internal error
yields a result whose unknown parts are listed in `opaque` (fail safe: policies decide).
tree-sitter is imported on the first call only.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cupcake_py.shell.model import Budget

VERSION = 1


def analyze(command: str, cwd: str, *, env: dict[str, str] | None = None,
            budget: Budget | None = None) -> dict[str, Any]:
    from cupcake_py.shell.analysis import run

    return run(command, cwd, env=env, budget=budget)
