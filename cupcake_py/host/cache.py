"""Native-code cache: compiled modules (`capi.Module.serialize()`) on disk.

Key: BLAKE2b-256(wasm bytes) + BLAKE2b(engine fingerprint: wasmtime version, compiler,
config). Entry file: MAGIC + BLAKE2b-256(payload) + payload, written to a temp file and renamed into
place. A short, corrupt or incompatible entry is recompiled and rewritten. The cache
directory is created with mode 0700, and a directory that other users could write to is
never read (deserializing is loading native code).
"""

from __future__ import annotations

import os
import time

from cupcake_py.host import capi
from cupcake_py.host.engine import engine_fingerprint, get_engine
from cupcake_py.host.errors import ModuleError
from cupcake_py.lazylog import LazyLogger
from cupcake_py.userdirs import atomic_write, private_dir

try:  # the module behind hashlib.blake2b: importing hashlib loads OpenSSL (~10 ms of start-up)
    from _blake2 import blake2b
except ImportError:  # pragma: no cover - CPython always has it
    from hashlib import blake2b

TYPE_CHECKING = False  # (typing is not imported on the eval path)
if TYPE_CHECKING:
    from typing import Literal

    from cupcake_py.host.engine import Compiler

    CacheStatus = Literal["hit", "miss", "rebuilt", "off"]

log = LazyLogger(__name__)

MAGIC = b"CUPCAKE-CWASM-2\n"


class LoadStats:
    """How a module was obtained and what it cost (seconds): `cache` is hit, miss, rebuilt
    (a corrupt or incompatible entry was replaced) or off; compile_s is cranelift/winch
    compilation, deserialize_s reading + verifying + deserializing a cache entry, store_s
    serializing + writing a new entry."""

    __slots__ = ("cache", "compile_s", "deserialize_s", "store_s")

    def __init__(self, cache: CacheStatus, compile_s: float = 0.0, deserialize_s: float = 0.0,
                 store_s: float = 0.0) -> None:
        self.cache, self.compile_s, self.deserialize_s, self.store_s = cache, compile_s, deserialize_s, store_s

    def __repr__(self) -> str:
        return (f"LoadStats(cache={self.cache!r}, compile_s={self.compile_s:.6f}, "
                f"deserialize_s={self.deserialize_s:.6f}, store_s={self.store_s:.6f})")


def cache_key(wasm: bytes, compiler: Compiler) -> str:
    fp = _digest(engine_fingerprint(compiler).encode()).hex()[:16]
    return f"{_digest(wasm).hex()}-{fp}"


def _digest(data: bytes | memoryview) -> bytes:
    return blake2b(data, digest_size=32).digest()


def _read_entry(path: str) -> bytes | None:
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except FileNotFoundError:
        return None
    except OSError as e:
        log.debug("module cache read failed: %s", e)
        return None
    head = len(MAGIC) + 32
    if len(blob) < head or not blob.startswith(MAGIC):
        return b""
    payload = memoryview(blob)[head:]
    if _digest(payload) != blob[len(MAGIC):head]:
        return b""
    return bytes(payload)


def _compile(engine: capi.Engine, wasm: bytes) -> capi.Module:
    if not wasm.startswith(b"\0asm"):
        raise ModuleError("not a WebAssembly binary (no \\0asm header)")
    try:
        return capi.Module.compile(engine, wasm)
    except capi.WasmError as e:
        first = str(e).strip().splitlines()[0] if str(e).strip() else "invalid module"
        raise ModuleError(f"not a valid WebAssembly module: {first}") from None


def load_module(wasm: bytes, compiler: Compiler, cache_dir: str | None) -> tuple[capi.Module, LoadStats]:
    """Compiled module for `wasm`, from the cache when possible."""
    engine = get_engine(compiler)
    if cache_dir is None or not private_dir(cache_dir, "module cache"):
        t0 = time.perf_counter()
        module = _compile(engine, wasm)
        return module, LoadStats("off", compile_s=time.perf_counter() - t0)

    name = f"{cache_key(wasm, compiler)}.cwasm"
    path = os.path.join(cache_dir, name)
    t0 = time.perf_counter()
    payload = _read_entry(path)
    status: CacheStatus = "miss" if payload is None else "rebuilt"
    if payload:
        try:
            module = capi.Module.deserialize(engine, payload)
            return module, LoadStats("hit", deserialize_s=time.perf_counter() - t0)
        except capi.WasmError as e:
            log.info("module cache entry %s unusable (%s); recompiling", name, e)
    t1 = time.perf_counter()
    module = _compile(engine, wasm)
    t2 = time.perf_counter()
    try:
        payload = module.serialize()
        atomic_write(cache_dir, os.path.basename(path), (MAGIC, _digest(payload), payload), ".cwasm")
    except OSError as e:
        log.debug("module cache write failed: %s", e)
    return module, LoadStats(status, compile_s=t2 - t1, store_s=time.perf_counter() - t2)
