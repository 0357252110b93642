"""Keep every test's global configuration (and the cache MAC key the engine creates in it on
first use) out of the real user's ~/.config, and its per-user state out of ~/.local/state:
$XDG_CONFIG_HOME points into the session's temporary directory and $XDG_STATE_HOME into the test's
own (the audit log is on by default: one test's records never reach another's history) unless a
test sets its own."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest


@pytest.fixture(scope="session", autouse=True)
def _private_state_home_for_wider_fixtures(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Module- and session-scoped fixtures run before the per-test one below: they get a session-wide
    private config and state home, never the real user's."""
    saved = {k: os.environ.get(k) for k in ("XDG_CONFIG_HOME", "XDG_STATE_HOME")}
    for key, name in (("XDG_CONFIG_HOME", "xdg-config"), ("XDG_STATE_HOME", "xdg-state-session")):
        d = tmp_path_factory.getbasetemp() / name
        d.mkdir(mode=0o700, exist_ok=True)
        os.environ[key] = str(d)
    yield
    for key, value in saved.items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


@pytest.fixture(autouse=True)
def _private_config_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path_factory.getbasetemp() / "xdg-config"
    config.mkdir(mode=0o700, exist_ok=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    # the per-user state (audit database, the sandbox's probe and profiles): one per test
    state = tmp_path_factory.mktemp("xdg-state")
    state.chmod(0o700)
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
