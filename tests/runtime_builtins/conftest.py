"""Fixtures: one runtime.wasm instance shared by the tests of this folder."""

from __future__ import annotations

import pytest

from .harness import RUNTIME_WASM, Runtime


@pytest.fixture(scope="session")
def rt() -> Runtime:
    if not RUNTIME_WASM.exists():
        pytest.fail(f"{RUNTIME_WASM} is missing: run `make runtime`")
    return Runtime()
