from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from cupcake_py.core import cache_mac
from cupcake_py.fleet import export
from cupcake_py.governance import store
from tests.fleet.servers import fleet_env


class Machine:
    """One machine of the fleet: an org dir, private XDG dirs (set in this process too), a project."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.org = root / "org"
        self.org.mkdir()
        self.env = fleet_env(root / "home", self.org)
        self.project = root / "proj"
        (self.project / ".cupcake/policies/opencode").mkdir(parents=True)

    def fleet_yml(self, text: str) -> None:
        (self.org / "fleet.yml").write_text(text)


@pytest.fixture()
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Machine]:
    (tmp_path / "home").mkdir()
    m = Machine(tmp_path)
    for var in ("XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "CUPCAKE_ORG_CONFIG"):
        monkeypatch.setenv(var, m.env[var])
    cache_mac.forget()
    store.close_all()
    yield m
    cache_mac.forget()
    store.close_all()
    export.close_all()
