"""Keep every test's global configuration (and the cache MAC key the engine creates in it on
first use) out of the real user's ~/.config, and its per-user state out of ~/.local/state:
$XDG_CONFIG_HOME and $XDG_STATE_HOME point into the session's temporary directory unless a test
sets its own."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def _private_config_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    config = tmp_path_factory.getbasetemp() / "xdg-config"
    config.mkdir(mode=0o700, exist_ok=True)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    # the per-user state (audit database, the sandbox's probe and profiles) likewise
    state = tmp_path_factory.getbasetemp() / "xdg-state"
    state.mkdir(mode=0o700, exist_ok=True)
    monkeypatch.setenv("XDG_STATE_HOME", str(state))
