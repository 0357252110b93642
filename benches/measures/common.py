"""What every measure shares: the run context, timing of alternated commands, statistics,
goals, and the "not available" signal.

A measure is a function `run(ctx) -> dict` registered in measures/__init__.py. It raises `Unavailable(reason)`
when a piece of the product it needs is missing; it never invents numbers.
"""

from __future__ import annotations

import contextlib
import math
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
BENCHES = REPO / "benches"


class Unavailable(Exception):
    """The product piece a measure needs is not there (yet); the reason goes into the results."""


@dataclass
class Context:
    quick: bool
    work: Path  # private temp dir of this run
    python: str = sys.executable
    env: dict[str, str] = field(default_factory=dict)  # isolated XDG dirs for child processes
    log: Callable[[str], None] = print
    setups: dict[Any, Any] = field(default_factory=dict)  # bench projects shared between measures

    def pick(self, quick: Any, full: Any) -> Any:
        return quick if self.quick else full


def isolated_env(work: Path) -> dict[str, str]:
    """Child-process environment with its own cache and config dirs (no global config unless a
    measure writes one)."""
    env = dict(os.environ)
    env.update(XDG_CACHE_HOME=str(work / "cache"), XDG_CONFIG_HOME=str(work / "config"),
               XDG_STATE_HOME=str(work / "state"))  # the audit db (on by default): never the user's
    # An installed cupcake has its bytecode cached: without this, a shell that exports
    # PYTHONDONTWRITEBYTECODE would make every measured process recompile each module whose
    # .pyc is missing or stale (after an edit), which is start-up work no user pays.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    return env


# ----------------------------------------------------------------------------- statistics


def percentile(xs: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (q in 0..100)."""
    s = sorted(xs)
    if len(s) == 1:
        return s[0]
    k = (len(s) - 1) * q / 100
    lo, hi = math.floor(k), math.ceil(k)
    return s[lo] + (s[hi] - s[lo]) * (k - lo)


def summary(xs: Sequence[float], unit: str = "ms") -> dict[str, Any]:
    """Median, p90, min, max and count of samples given in seconds, converted to `unit`."""
    scale = {"s": 1.0, "ms": 1e3, "us": 1e6}[unit]
    return {"unit": unit, "n": len(xs), "median": round(statistics.median(xs) * scale, 3),
            "p90": round(percentile(xs, 90) * scale, 3), "min": round(min(xs) * scale, 3),
            "max": round(max(xs) * scale, 3)}


def ratio(a: dict[str, Any], b: dict[str, Any]) -> float:
    return round(a["median"] / b["median"], 3) if b["median"] else float("nan")


# ----------------------------------------------------------------------------- timing


def children_cpu() -> float:
    """User + system CPU seconds of the finished child processes so far."""
    import resource

    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def alternate(variants: dict[str, Callable[[], None]], rounds: int, warmup: int = 1,
              budget_s: float | None = None, min_rounds: int = 3,
              cpu: dict[str, list[float]] | None = None,
              cpu_clock: Callable[[], float] = children_cpu) -> dict[str, list[float]]:
    """Run every variant once per round, rotating the order each round so no variant always runs
    right after another (page cache, CPU frequency and load drift hit all of them alike).
    Stops early once `budget_s` seconds have passed and `min_rounds` rounds are done.
    Returns seconds per call, per variant; `cpu` (if given) receives the CPU seconds each call
    used by `cpu_clock`: by default those of the child processes it ran, `time.thread_time`
    for work done in this thread (steadier than wall time on a busy machine)."""
    names = list(variants)
    for _ in range(warmup):
        for n in names:
            variants[n]()
    out: dict[str, list[float]] = {n: [] for n in names}
    if cpu is not None:
        cpu.update({n: [] for n in names})
    start = time.perf_counter()
    for r in range(rounds):
        if budget_s is not None and r >= min_rounds and time.perf_counter() - start > budget_s:
            break
        order = names[r % len(names):] + names[:r % len(names)]
        for n in order:
            c0 = cpu_clock() if cpu is not None else 0.0
            t0 = time.perf_counter()
            variants[n]()
            out[n].append(time.perf_counter() - t0)
            if cpu is not None:
                cpu[n].append(cpu_clock() - c0)
    return out


def process(cmd: list[str], stdin: bytes = b"", cwd: Path | None = None, env: dict[str, str] | None = None,
            ok: Sequence[int] = (0,)) -> Callable[[], None]:
    """A variant that runs `cmd` as a new process and checks its exit status."""

    def call() -> None:
        proc = subprocess.run(cmd, input=stdin, capture_output=True, cwd=cwd, env=env, timeout=120)
        if proc.returncode not in ok:
            raise RuntimeError(f"{' '.join(cmd[:4])} exited {proc.returncode}: {proc.stdout[-300:]!r} "
                               f"{proc.stderr[-500:]!r}")

    return call


def run_json(cmd: list[str], stdin: bytes, cwd: Path, env: dict[str, str]) -> Any:
    """Run once and return the parsed JSON stdout (for checking a command answers correctly)."""
    import json

    proc = subprocess.run(cmd, input=stdin, capture_output=True, cwd=cwd, env=env, timeout=600)
    try:
        return json.loads(proc.stdout)
    except ValueError:
        raise RuntimeError(f"{' '.join(cmd[:4])} exited {proc.returncode} without JSON: {proc.stdout[-300:]!r} "
                           f"{proc.stderr[-800:]!r}") from None


def best_of(fn: Callable[[], None], number: int, repeat: int) -> float:
    """Seconds per call: the best of `repeat` batches of `number` calls."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        best = min(best, (time.perf_counter() - t0) / number)
    return best


def per_call(fn: Callable[[], None], calls: int) -> list[float]:
    """Seconds of each of `calls` calls (for median/p90 of a warm operation)."""
    out = []
    for _ in range(calls):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


# ----------------------------------------------------------------------------- goals


def goal(issue: int, text: str, measured: str, met: bool | None) -> dict[str, Any]:
    """One issue goal next to the measured value; met None = reported, no numeric goal."""
    return {"issue": issue, "goal": text, "measured": measured, "met": met}


def product_import(what: str, fn: Callable[[], Any]) -> Any:
    """Import a product piece, turning its absence into Unavailable."""
    try:
        return fn()
    except ImportError as e:
        raise Unavailable(f"{what} cannot be imported: {e}") from None


def cupcake_cmd() -> list[str]:
    exe = Path(sys.executable).parent / "cupcake"
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "cupcake_py"]


@contextlib.contextmanager
def environ(env: dict[str, str]) -> Iterator[None]:
    """Run in-process product code with the isolated XDG dirs of the child processes.

    The cache MAC key (`cupcake_py.core.cache_mac`, in the config home) is memoised per process, so it
    is dropped on the way in and out: otherwise product code run after this block would MAC the
    caches of one config home with the key of another (every entry "modified", rewritten with
    the wrong key)."""
    from cupcake_py.core import cache_mac

    keys = ("XDG_CACHE_HOME", "XDG_CONFIG_HOME")
    saved = {k: os.environ.get(k) for k in keys}
    os.environ.update({k: env[k] for k in keys})
    cache_mac.forget()
    try:
        yield
    finally:
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        cache_mac.forget()


def config_home_env(ctx_env: dict[str, str], home: Path) -> dict[str, str]:
    """Child env with its own config home `home` AND its own cache home next to it: the caches are
    MAC'd with the key in the config home, so two config homes must never share one cache dir."""
    return {**ctx_env, "XDG_CONFIG_HOME": str(home), "XDG_CACHE_HOME": str(home.with_name(home.name + "-cache"))}
