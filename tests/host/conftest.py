"""Keep the native-code cache of host tests out of the user's cache directory."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    cache = tmp_path_factory.getbasetemp() / "xdg-cache"
    cache.mkdir(mode=0o700, exist_ok=True)
    monkeypatch.setenv("XDG_CACHE_HOME", str(Path(cache)))
