"""Native-code cache: compiled modules (`capi.Module.serialize()`) on disk.

Key: BLAKE2b-256(wasm bytes) + BLAKE2b(engine fingerprint: wasmtime version, compiler,
config). Entry file: MAGIC + MAC(entry name + payload) + payload, written to a temp file and
renamed into place. The MAC is keyed by the per-user secret of `cupcake_py.core.cache_mac`: wasmtime
deserializes the payload as trusted machine code, so an entry that fails the MAC (rewritten,
copied from another entry, corrupt) is never deserialized: it is recompiled, rewritten, and a
warning goes to stderr. Without a usable key nothing is read from or written to the cache.
The cache directory is created with mode 0700, and a directory that other users could write to
is never read.
"""

from __future__ import annotations

import os
import time

from cupcake_py.core import cache_mac
from cupcake_py.core.lazylog import LazyLogger
from cupcake_py.core.userdirs import atomic_write, private_dir, warn
from cupcake_py.host import capi
from cupcake_py.host.engine import engine_fingerprint, get_engine
from cupcake_py.host.errors import ModuleError

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

MAGIC = b"CUPCAKE-CWASM-3\n"


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


def _read_entry(path: str, key: bytes) -> bytes | None:
    """The payload of a cache entry; None when there is none, b"" when it exists but must not be
    loaded (unreadable, short, another layout, MAC mismatch): a warning, then it is rebuilt."""
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except FileNotFoundError:
        return None
    except OSError as e:
        warn(f"native-code cache entry {path} cannot be read ({e.strerror}); recompiling")
        return b""
    head = len(MAGIC) + 32
    if len(blob) < head or not blob.startswith(MAGIC):
        warn(f"native-code cache entry {path} is corrupt or of another version; recompiling")
        return b""
    payload = memoryview(blob)[head:]
    if not cache_mac.same(cache_mac.tag(key, os.path.basename(path).encode(), payload), blob[len(MAGIC):head]):
        warn(f"native-code cache entry {path} was modified, or written under another cache key than "
             f"{cache_mac.key_path()} (MAC mismatch); not loading it, recompiling")
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
    key = None if cache_dir is None else cache_mac.key()
    if cache_dir is None or key is None or not private_dir(cache_dir, "module cache"):
        t0 = time.perf_counter()
        module = _compile(engine, wasm)
        return module, LoadStats("off", compile_s=time.perf_counter() - t0)

    name = f"{cache_key(wasm, compiler)}.cwasm"
    path = os.path.join(cache_dir, name)
    t0 = time.perf_counter()
    payload = _read_entry(path, key)
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
        mac = cache_mac.tag(key, name.encode(), payload)
        atomic_write(cache_dir, name, (MAGIC, mac, payload), ".cwasm")
    except OSError as e:
        log.debug("module cache write failed: %s", e)
    return module, LoadStats(status, compile_s=t2 - t1, store_s=time.perf_counter() - t2)
