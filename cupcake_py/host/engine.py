"""Process-wide wasmtime engine, host options and the epoch ticker that enforces deadlines.

One wasmtime engine (`capi.Engine`) per compiler strategy is shared by every policy in the process:
compiled modules and the native-code cache are tied to the engine's configuration.
Deadlines use epoch interruption: a daemon thread bumps the engine epoch every
`TICK_SECONDS` while at least one call is running, and each store gets a deadline of
`ceil(deadline / TICK_SECONDS) + 1` ticks before every call into wasm.
"""

from __future__ import annotations

import math
import os
import time

from cupcake_py.core.userdirs import user_cache_dir
from cupcake_py.host import capi

TYPE_CHECKING = False  # (typing and pathlib are not imported on the eval path)
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, Literal

    Compiler = Literal["cranelift", "winch"]

if TYPE_CHECKING:
    from _thread import allocate_lock as _new_lock
    from _thread import start_new_thread as _start_thread
else:
    try:  # (not threading: it and the collections/functools it imports stay off every start-up)
        from _thread import allocate_lock as _new_lock
        from _thread import start_new_thread as _start_thread
    except ImportError:  # a Python without the low-level module: threading's equivalents
        import threading

        _new_lock = threading.Lock

        def _start_thread(function, args):
            threading.Thread(target=function, args=args, daemon=True).start()

MiB = 1024 * 1024
WASM_PAGE = 65536
TICK_SECONDS = 0.01


def default_cache_dir() -> str:
    return user_cache_dir("modules")


_DEFAULT_DIR: Any = object()


class HostOptions:
    """How a policy runs (immutable). `cache_dir=None` disables the native-code cache; by
    default it is `default_cache_dir()`. The directory is kept as a str path (`cache_path`);
    the `cache_dir` property gives it as a pathlib.Path.

    deadline: seconds of wall-clock time per call into wasm; memory_limit: bytes of linear
    memory; strict: host BuiltinError → BuiltinEvalError instead of undefined; allow_net:
    host builtins may use the network (http.send, net.lookup_ip_addr); compiler: cranelift
    or winch. (A plain class, not a dataclass: it is on the start-up path of every eval.)"""

    __slots__ = ("deadline", "memory_limit", "strict", "allow_net", "cache_path", "compiler")
    deadline: float
    memory_limit: int
    strict: bool
    allow_net: bool
    cache_path: str | None
    compiler: Compiler

    def __init__(self, deadline: float = 1.0, memory_limit: int = 64 * MiB, strict: bool = False,
                 allow_net: bool = False, cache_dir: str | os.PathLike[str] | None = _DEFAULT_DIR,
                 compiler: Compiler = "cranelift") -> None:
        if not deadline > 0:
            raise ValueError("deadline must be > 0 seconds")
        if memory_limit < WASM_PAGE:
            raise ValueError(f"memory_limit must be at least one page ({WASM_PAGE} bytes)")
        for name, value in (("deadline", deadline), ("memory_limit", memory_limit), ("strict", strict),
                            ("allow_net", allow_net),
                            ("cache_path", default_cache_dir() if cache_dir is _DEFAULT_DIR else
                             None if cache_dir is None else os.fspath(cache_dir)),
                            ("compiler", compiler)):
            object.__setattr__(self, name, value)

    def _fields(self) -> tuple[Any, ...]:
        return tuple(getattr(self, n) for n in self.__slots__)

    def with_deadline(self, deadline: float) -> HostOptions:
        """These options with another per-call deadline (a warm instance serves many requests)."""
        return HostOptions(deadline, self.memory_limit, self.strict, self.allow_net, self.cache_path, self.compiler)

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"HostOptions is immutable (cannot set {name})")

    def __eq__(self, other: object) -> bool:
        return self._fields() == other._fields() if isinstance(other, HostOptions) else NotImplemented

    def __hash__(self) -> int:
        return hash(self._fields())

    def __repr__(self) -> str:
        return "HostOptions(" + ", ".join(f"{n}={getattr(self, n)!r}" for n in self.__slots__) + ")"

    @property
    def cache_dir(self) -> Path | None:
        if self.cache_path is None:
            return None
        from pathlib import Path

        return Path(self.cache_path)

    @property
    def memory_pages(self) -> int:
        return self.memory_limit // WASM_PAGE

    @property
    def deadline_ticks(self) -> int:
        return math.ceil(self.deadline / TICK_SECONDS) + 1


_version: list[str] = []


def wasmtime_version() -> str:
    """The installed wasmtime package's version, from its dist-info folder name next to the
    package (importing importlib.metadata costs tens of ms of start-up)."""
    if not _version:
        site = os.path.dirname(os.path.dirname(os.path.dirname(capi.library_path())))
        found = sorted(n for n in os.listdir(site) if n.startswith("wasmtime-") and n.endswith(".dist-info"))
        if len(found) == 1:
            _version.append(found[0][len("wasmtime-"):-len(".dist-info")])
        else:
            import importlib.metadata

            _version.append(importlib.metadata.version("wasmtime"))
    return _version[0]


_engines: dict[str, capi.Engine] = {}
_engines_lock = _new_lock()


def engine_fingerprint(compiler: Compiler) -> str:
    """Everything that makes serialized native code incompatible, for the cache key."""
    return f"wasmtime={wasmtime_version()};compiler={compiler};epoch=1;opt=speed"


def check_wasmtime_version() -> None:
    """The C API binding (capi) is written for one wasmtime major version: refuse others
    (struct layouts and signatures change between majors) instead of crashing."""
    version = wasmtime_version()
    if version.split(".")[0] != str(capi.SUPPORTED_MAJOR):
        from cupcake_py.host.errors import HostError

        raise HostError(f"wasmtime {version} is installed; this cupcake-py needs wasmtime "
                        f"{capi.SUPPORTED_MAJOR}.x (pip install 'wasmtime=={capi.SUPPORTED_MAJOR}.*')")


def engines_started() -> bool:
    """Whether this process created a wasmtime engine (its threads do not survive a fork)."""
    return bool(_engines)


def get_engine(compiler: Compiler = "cranelift") -> capi.Engine:
    with _engines_lock:
        engine = _engines.get(compiler)
        if engine is None:
            if compiler not in capi.STRATEGY:
                raise ValueError(f"unknown compiler {compiler!r} (cranelift or winch)")
            check_wasmtime_version()
            engine = _engines[compiler] = capi.Engine(compiler)
        return engine


class EpochTicker:
    """Bumps an engine's epoch every TICK_SECONDS while calls are active, and for
    IDLE_SECONDS after the last one (so back-to-back calls do not pay a thread wake-up);
    then it parks until the next call."""

    IDLE_SECONDS = 1.0

    def __init__(self, engine: capi.Engine) -> None:
        self._engine = engine
        self._active = 0
        self._last_exit = 0.0
        self._lock = _new_lock()
        # Parked: `_parked` is True and the ticker holds `_gate` (an event, cleared); enter() releases
        # it. Both change only under `_lock`; the ticker waits by taking and giving back the gate.
        self._gate = _new_lock()
        self._parked = False
        self._started = False

    def enter(self) -> None:
        with self._lock:
            self._active += 1
            if not self._started:  # a daemon thread (the process never waits for it at exit)
                _start_thread(self._loop, ())
                self._started = True
            if self._parked:
                self._parked = False
                self._gate.release()

    def exit(self) -> None:
        with self._lock:
            self._active -= 1
            self._last_exit = time.monotonic()

    def _loop(self) -> None:
        while True:
            with self._lock:  # park only when idle; enter() unparks under the same lock
                if not self._parked and self._active == 0 and time.monotonic() - self._last_exit > self.IDLE_SECONDS:
                    self._gate.acquire()  # (free: only this thread takes it, and gives it back below)
                    self._parked = True
            self._gate.acquire()  # parked: blocks until enter() releases it
            self._gate.release()
            time.sleep(TICK_SECONDS)
            self._engine.increment_epoch()


_tickers: dict[int, EpochTicker] = {}


def get_ticker(engine: capi.Engine) -> EpochTicker:
    with _engines_lock:
        ticker = _tickers.get(id(engine))
        if ticker is None:
            ticker = _tickers[id(engine)] = EpochTicker(engine)
        return ticker
