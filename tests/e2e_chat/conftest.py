"""The chat-agent e2e's durations in pytest's terminal summary (its prints are captured)."""

from __future__ import annotations

import pytest

from .driver import DURATIONS


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if DURATIONS:
        terminalreporter.write_sep("-", "Copilot CLI / Factory Droid / Cline e2e durations (real agents + real cupcake)")
        for line in DURATIONS:
            terminalreporter.write_line(line)
