"""The build cache of `cupcake test`: one compiled test module per set of sources, reused
across runs (the native code of the module is cached by the host, host/cache.py).

In: the key (`build_key`: sha256 over the compiler's own files, every policy and data file
read, the shipped support policies, the options that change the build: --run, --coverage,
custom builtin declarations). Out: on a hit, the WASM modules (one, or several when the
build was split) and the discovered tests (no
parsing, compiling, planning or code generation); `store` writes an entry atomically under
`$XDG_CACHE_HOME/cupcake-py/tests/` (0700). A missing, truncated or corrupt entry is a miss;
cache write failures are ignored (the run does not depend on them).
"""

from __future__ import annotations

import os

from cupcake_py.core import jsonio
from cupcake_py.core.lazylog import LazyLogger
from cupcake_py.core.userdirs import atomic_write, private_dir, user_cache_dir
from cupcake_py.engine.bundle import (  # (the builtin sha256: hashlib loads OpenSSL)
    compiler_fingerprint,
    sha256,
)
from cupcake_py.engine.project import path_order, rego_paths, shipped_policies_path

TYPE_CHECKING = False
if TYPE_CHECKING:  # (typing, pathlib and json stay off a cached run's start-up)
    from collections.abc import Iterable
    from pathlib import Path
    from typing import Any

log = LazyLogger(__name__)

MAGIC = b"CUPCAKE-TESTS-2\n"


def cache_dir() -> str:
    return user_cache_dir("tests")


def _own_sources() -> list[tuple[str, os.DirEntry[str]]]:
    """The runner and its AST rewrites: the *.py files of authoring/testing/ and authoring/ (in path order)."""
    here = os.path.dirname(os.path.abspath(__file__))
    found = []
    for d in (here, os.path.dirname(here)):
        with os.scandir(d) as entries:
            found += [(os.path.basename(d), e) for e in entries if e.name.endswith(".py") and e.is_file()]
    return sorted(found, key=lambda f: path_order(f[1].path))


def _read(path: str | Path) -> bytes:
    with open(path, "rb") as f:
        return f.read()


_memo: dict[str, Any] = {}  # what every key of this process starts with (a first run makes two keys)


def _prefix() -> Any:
    """The sha256 state over the compiler's and the runner's own files (computed once a process:
    the code this process runs does not change under it)."""
    if "prefix" not in _memo:
        h = sha256(compiler_fingerprint().encode())
        for folder, e in _own_sources():
            st = e.stat()
            h.update(f"{folder}/{e.name}:{st.st_size}:{st.st_mtime_ns}\n".encode())
        _memo["prefix"] = h
    return _memo["prefix"].copy()


def _support() -> list[tuple[str, bytes]]:
    """(file, sha256) of each shipped support policy; a file whose size and mtime did not change
    since this process read it is not read again (a first run makes two keys)."""
    seen: dict[tuple[str, int, int], bytes] = _memo.setdefault("support", {})
    out = []
    for f in rego_paths(os.path.join(shipped_policies_path(), "system")):
        st = os.stat(f)
        stamp = (f, st.st_size, st.st_mtime_ns)
        if stamp not in seen:
            seen[stamp] = sha256(_read(f)).digest()
        out.append((f, seen[stamp]))
    return out


def build_key(files: Iterable[str | Path], data_files: Iterable[str | Path], options: str) -> str:
    h = _prefix()
    h.update(options.encode())
    for kind, group in (("rego", files), ("data", data_files)):
        for f in group:
            h.update(f"\n{kind} {f}\n".encode())
            h.update(sha256(_read(f)).digest())
    for f, digest in _support():
        h.update(f"\nsupport {f}\n".encode())
        h.update(digest)
    key: str = h.hexdigest()
    return key


def load(key: str) -> tuple[dict[str, Any], list[bytes]] | None:
    """(metadata, WASM modules) of the entry `key`, None when missing or damaged."""
    try:
        with open(os.path.join(cache_dir(), f"{key}.tests"), "rb") as f:
            blob = f.read()
    except OSError:
        return None
    if not blob.startswith(MAGIC):
        return None
    at = len(MAGIC)
    n = int.from_bytes(blob[at:at + 8], "big")
    header, digest, wasm = blob[at + 8:at + 8 + n], blob[at + 8 + n:at + 40 + n], blob[at + 40 + n:]
    if len(digest) != 32 or sha256(header + wasm).digest() != digest:
        return None
    try:
        meta = jsonio.loads(header)  # (the json package would import re)
    except ValueError:
        return None
    if not isinstance(meta, dict) or meta.get("key") != key or sum(meta.get("sizes") or []) != len(wasm):
        return None
    blobs, at = [], 0
    for size in meta["sizes"]:
        blobs.append(wasm[at:at + size])
        at += size
    return meta, blobs


def _keys_sorted(v: Any) -> Any:
    """`v` with every object's keys in sorted order (json.dumps' sort_keys)."""
    if isinstance(v, dict):
        return {k: _keys_sorted(v[k]) for k in sorted(v)}
    if isinstance(v, list):
        return [_keys_sorted(x) for x in v]
    return v


def store(key: str, meta: dict[str, Any], modules: list[bytes]) -> None:
    d = cache_dir()
    if not private_dir(d, "test build cache"):
        return
    wasm = b"".join(modules)
    head = {**meta, "key": key, "sizes": [len(m) for m in modules]}
    try:
        header = jsonio.dumps(_keys_sorted(head))  # (the json package would import re)
    except TypeError:  # a file name that is not UTF-8 (surrogate escapes): the json package escapes it
        import json

        header = json.dumps(head, sort_keys=True).encode()
    blob = MAGIC + len(header).to_bytes(8, "big") + header + sha256(header + wasm).digest() + wasm
    try:
        atomic_write(d, f"{key}.tests", (blob,), ".tests")
    except OSError as e:  # a cache that cannot be written only costs the next run its build
        log.debug("test build cache write failed: %s", e)
