"""Native-code cache: hit/miss, corrupt entries, atomic files, private directory."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from cupcake_py.host import HostOptions, PolicyModule
from cupcake_py.host.cache import MAGIC, cache_key

from .abi_mock import mock_module


def _entry(cache: Path) -> Path:
    (entry,) = [p for p in cache.iterdir() if p.suffix == ".cwasm"]
    return entry


def test_miss_then_hit(tmp_path: Path) -> None:
    cache = tmp_path / "c" / "modules"
    wasm = mock_module()
    opts = HostOptions(cache_dir=cache)
    first = PolicyModule(wasm, opts)
    assert first.load_stats.cache == "miss"
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    entry = _entry(cache)
    assert entry.name == cache_key(wasm, "cranelift") + ".cwasm"
    assert entry.read_bytes().startswith(MAGIC)
    assert not [p for p in cache.iterdir() if p.name.startswith(".tmp-")]
    second = PolicyModule(wasm, opts)
    assert second.load_stats.cache == "hit" and second.load_stats.compile_s == 0
    assert second.instantiate().eval("echo", 5) == [{"result": 5}]
    other = PolicyModule(mock_module(minor=2), opts)  # different bytes, different entry
    assert other.load_stats.cache == "miss"


def test_corrupt_entry_is_rebuilt(tmp_path: Path) -> None:
    wasm = mock_module()
    opts = HostOptions(cache_dir=tmp_path)
    PolicyModule(wasm, opts)
    entry = _entry(tmp_path)
    blob = bytearray(entry.read_bytes())
    blob[len(blob) // 2] ^= 0xFF  # flipped byte: checksum mismatch
    entry.write_bytes(bytes(blob))
    m = PolicyModule(wasm, opts)
    assert m.load_stats.cache == "rebuilt"
    assert m.instantiate().eval("echo", 1) == [{"result": 1}]
    assert PolicyModule(wasm, opts).load_stats.cache == "hit"
    entry.write_bytes(b"short")
    assert PolicyModule(wasm, opts).load_stats.cache == "rebuilt"


def test_shared_directory_is_not_trusted(tmp_path: Path) -> None:
    tmp_path.chmod(0o777)
    try:
        m = PolicyModule(mock_module(), HostOptions(cache_dir=tmp_path))
        assert m.load_stats.cache == "off"
        assert not any(p.suffix == ".cwasm" for p in tmp_path.iterdir())
    finally:
        tmp_path.chmod(0o700)


def test_default_dir_follows_xdg(tmp_path: Path, monkeypatch: object) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))  # type: ignore[attr-defined]
    assert HostOptions().cache_dir == tmp_path / "cupcake-py" / "modules"
    assert os.environ["XDG_CACHE_HOME"] == str(tmp_path)
