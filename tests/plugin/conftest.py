"""Fixtures for the OpenCode plugin tests (node unit tests and the real-OpenCode e2e)."""

from __future__ import annotations

import shutil

import pytest

from .paths import PLUGIN_TS


@pytest.fixture(scope="session")
def npm() -> str:
    exe = shutil.which("npm")
    assert exe is not None, "npm is not on PATH: install node (>= 20)"
    assert (PLUGIN_TS / "node_modules").is_dir(), "plugin-ts/node_modules is missing: run `make node-deps`"
    return exe
