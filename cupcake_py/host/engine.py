"""Process-wide wasmtime engine, host options and the epoch ticker that enforces deadlines.

One `wasmtime.Engine` per compiler strategy is shared by every policy in the process:
compiled modules and the native-code cache are tied to the engine's configuration.
Deadlines use epoch interruption: a daemon thread bumps the engine epoch every
`TICK_SECONDS` while at least one call is running, and each store gets a deadline of
`ceil(deadline / TICK_SECONDS) + 1` ticks before every call into wasm.
"""

from __future__ import annotations

import math
import os
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import wasmtime

MiB = 1024 * 1024
WASM_PAGE = 65536
TICK_SECONDS = 0.01

Compiler = Literal["cranelift", "winch"]


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "cupcake-py" / "modules"


@dataclass(frozen=True)
class HostOptions:
    """How a policy runs. `cache_dir=None` disables the native-code cache."""

    deadline: float = 1.0  # seconds of wall-clock time per call into wasm
    memory_limit: int = 64 * MiB  # bytes of linear memory
    strict: bool = False  # host BuiltinError → BuiltinEvalError instead of undefined
    allow_net: bool = False  # host builtins may use the network (http.send, net.lookup_ip_addr)
    cache_dir: Path | None = field(default_factory=default_cache_dir)
    compiler: Compiler = "cranelift"

    def __post_init__(self) -> None:
        if not self.deadline > 0:
            raise ValueError("deadline must be > 0 seconds")
        if self.memory_limit < WASM_PAGE:
            raise ValueError(f"memory_limit must be at least one page ({WASM_PAGE} bytes)")

    @property
    def memory_pages(self) -> int:
        return self.memory_limit // WASM_PAGE

    @property
    def deadline_ticks(self) -> int:
        return math.ceil(self.deadline / TICK_SECONDS) + 1


def _wasmtime_version() -> str:
    """The installed wasmtime-py version, from its dist-info folder name (importing
    importlib.metadata costs ~100 ms of start-up)."""
    site = Path(wasmtime.__file__).resolve().parent.parent
    found = sorted(p.name for p in site.glob("wasmtime-*.dist-info"))
    if len(found) == 1:
        return found[0][len("wasmtime-"):-len(".dist-info")]
    import importlib.metadata

    return importlib.metadata.version("wasmtime")


WASMTIME_VERSION = _wasmtime_version()

_engines: dict[Compiler, wasmtime.Engine] = {}
_engines_lock = threading.Lock()


def engine_fingerprint(compiler: Compiler) -> str:
    """Everything that makes serialized native code incompatible, for the cache key."""
    return f"wasmtime={WASMTIME_VERSION};compiler={compiler};epoch=1;opt=speed"


def get_engine(compiler: Compiler = "cranelift") -> wasmtime.Engine:
    with _engines_lock:
        engine = _engines.get(compiler)
        if engine is None:
            config = wasmtime.Config()
            config.epoch_interruption = True
            config.strategy = compiler
            if compiler == "cranelift":
                config.cranelift_opt_level = "speed"
            engine = _engines[compiler] = wasmtime.Engine(config)
        return engine


class EpochTicker:
    """Bumps an engine's epoch every TICK_SECONDS while calls are active, and for
    IDLE_SECONDS after the last one (so back-to-back calls do not pay a thread wake-up);
    then it parks until the next call."""

    IDLE_SECONDS = 1.0

    def __init__(self, engine: wasmtime.Engine) -> None:
        self._engine = engine
        self._active = 0
        self._last_exit = 0.0
        self._lock = threading.Lock()
        self._running = threading.Event()
        self._thread: threading.Thread | None = None

    def enter(self) -> None:
        with self._lock:
            self._active += 1
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="cupcake-epoch", daemon=True)
                self._thread.start()
            if not self._running.is_set():
                self._running.set()

    def exit(self) -> None:
        with self._lock:
            self._active -= 1
            self._last_exit = time.monotonic()

    def _loop(self) -> None:
        while True:
            with self._lock:  # park only when idle; enter() sets the event under the same lock
                if self._active == 0 and time.monotonic() - self._last_exit > self.IDLE_SECONDS:
                    self._running.clear()
            self._running.wait()
            time.sleep(TICK_SECONDS)
            self._engine.increment_epoch()


_tickers: dict[int, EpochTicker] = {}


def get_ticker(engine: wasmtime.Engine) -> EpochTicker:
    with _engines_lock:
        ticker = _tickers.get(id(engine))
        if ticker is None:
            ticker = _tickers[id(engine)] = EpochTicker(engine)
        return ticker
