"""Progress display for the long authoring commands (`test`, `build`, `verify`).

In: a label and whether the command's output is for machines. Out: a context manager
yielding `update(text)`; on an interactive terminal it shows a rich spinner with the text on
stderr (erased when done), otherwise it prints nothing at all: not a terminal, CI set (any
CI environment variable GitHub, GitLab and most CI systems export), NO_COLOR-style
TERM=dumb, or machine output (--format json / sarif / github, --coverage). rich is imported
only when the spinner is shown, never on the `cupcake eval` path."""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing and contextlib stay off a `cupcake test` start-up)
    from collections.abc import Callable
    from contextlib import AbstractContextManager
    from typing import Any

CI_VARIABLES = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "JENKINS_URL", "TF_BUILD")


def wanted(machine_output: bool = False) -> bool:
    """Whether to show progress: an interactive terminal, not CI, human output."""
    if machine_output or any(os.environ.get(v) for v in CI_VARIABLES):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    stream = sys.stderr
    return stream is not None and stream.isatty()


def _quiet(_text: str) -> None:
    pass


class progress:  # noqa: N801 - a context manager used as a function (contextlib stays off a start-up)
    """`with progress(label, machine_output) as update:` (see the module docstring)."""

    __slots__ = ("label", "machine_output", "status")

    def __init__(self, label: str, machine_output: bool = False) -> None:
        self.label, self.machine_output = label, machine_output
        self.status: AbstractContextManager[Any] | None = None

    def __enter__(self) -> Callable[[str], None]:
        if not wanted(self.machine_output):
            return _quiet
        from rich.console import Console

        self.status = Console(stderr=True).status(self.label)
        status = self.status.__enter__()
        label = self.label
        return lambda text: status.update(f"{label}: {text}")

    def __exit__(self, *exc: Any) -> bool | None:
        return self.status.__exit__(*exc) if self.status is not None else None
