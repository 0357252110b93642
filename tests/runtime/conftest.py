"""Fixtures: a fresh runtime.wasm instance per test (tests/runtime/runtime_host.py)."""

from __future__ import annotations

import pytest

from tests.runtime.runtime_host import Runtime


@pytest.fixture
def rt() -> Runtime:
    return Runtime()
