"""Fixtures for the OpenCode plugin tests (node unit tests and the real-OpenCode e2e)."""

from __future__ import annotations

import shutil

import pytest

from tests.e2e_opencode.driver import DURATIONS
from tests.e2e_support.world import summary

from .paths import PLUGIN_TS


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The e2e's durations, also in a plain `make test` run (its prints are captured)."""
    summary(terminalreporter, "OpenCode e2e durations (real OpenCode + real cupcake)", DURATIONS)


@pytest.fixture(scope="session")
def npm() -> str:
    exe = shutil.which("npm")
    assert exe is not None, "npm is not on PATH: install node (>= 20)"
    assert (PLUGIN_TS / "node_modules").is_dir(), "plugin-ts/node_modules is missing: run `make node-deps`"
    return exe
