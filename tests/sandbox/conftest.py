"""The fixtures of the sandbox-floor tests: `bwrap` (the bubblewrap these tests need: tests.sandbox.floor's
require_bwrap) and `project` (a fresh floor project per test, tests.sandbox.floor.Project)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.sandbox.floor import Project, require_bwrap


@pytest.fixture(scope="module")
def bwrap() -> str:
    return require_bwrap()


@pytest.fixture
def project(tmp_path: Path, bwrap: str) -> Project:
    return Project(tmp_path)
