"""The chat-agent e2e's durations in pytest's terminal summary (its prints are captured)."""

from __future__ import annotations

import pytest

from tests.e2e_support.world import summary

from .driver import DURATIONS


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    summary(terminalreporter, "Copilot CLI / Factory Droid / Cline e2e durations (real agents + real cupcake)", DURATIONS)
