"""Progress display: a spinner on an interactive terminal, nothing in CI, in pipes or with
machine output."""

from __future__ import annotations

import io
import sys

import pytest

from cupcake_py.authoring import progress as P


class Tty(io.StringIO):
    def isatty(self) -> bool:
        return True


def on_a_terminal(monkeypatch: pytest.MonkeyPatch) -> Tty:
    """Not CI, a capable terminal on stderr (set inside the test: pytest's capture resets
    sys.stderr between fixture setup and the test call)."""
    for v in P.CI_VARIABLES:
        monkeypatch.delenv(v, raising=False)
    monkeypatch.setenv("TERM", "xterm")
    stream = Tty()
    monkeypatch.setattr(sys, "stderr", stream)
    return stream


def test_shown_on_a_terminal_only(monkeypatch: pytest.MonkeyPatch) -> None:
    on_a_terminal(monkeypatch)
    assert P.wanted()
    assert not P.wanted(machine_output=True)
    monkeypatch.setenv("GITHUB_ACTIONS", "true")
    assert not P.wanted()
    monkeypatch.delenv("GITHUB_ACTIONS")
    monkeypatch.setenv("TERM", "dumb")
    assert not P.wanted()
    monkeypatch.setattr(sys, "stderr", io.StringIO())
    monkeypatch.setenv("TERM", "xterm")
    assert not P.wanted()


def test_spinner_text_reaches_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    tty = on_a_terminal(monkeypatch)
    with P.progress("cupcake verify") as update:
        update("policy tests")
    assert "cupcake verify" in tty.getvalue()


def test_quiet_when_piped(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = io.StringIO()
    monkeypatch.setattr(sys, "stderr", stream)
    with P.progress("cupcake test") as update:
        update("x")
    assert stream.getvalue() == ""
