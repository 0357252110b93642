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
from collections.abc import Callable, Iterator
from contextlib import contextmanager

CI_VARIABLES = ("CI", "GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "JENKINS_URL", "TF_BUILD")


def wanted(machine_output: bool = False) -> bool:
    """Whether to show progress: an interactive terminal, not CI, human output."""
    if machine_output or any(os.environ.get(v) for v in CI_VARIABLES):
        return False
    if os.environ.get("TERM") == "dumb":
        return False
    stream = sys.stderr
    return stream is not None and stream.isatty()


@contextmanager
def progress(label: str, machine_output: bool = False) -> Iterator[Callable[[str], None]]:
    if not wanted(machine_output):
        yield lambda _text: None
        return
    from rich.console import Console

    console = Console(stderr=True)
    with console.status(label) as status:
        yield lambda text: status.update(f"{label}: {text}")
