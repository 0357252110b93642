from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cupcake_py.governance import store


@pytest.fixture
def db(tmp_path: Path) -> Iterator[str]:
    """A fresh governance database in a private state dir; connections closed afterwards."""
    state = tmp_path / "state"
    state.mkdir(mode=0o700)
    yield str(state / "governance.sqlite3")
    store.close_all()
