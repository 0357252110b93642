"""The machine a run happened on: CPUs, memory, versions, load, commit."""

from __future__ import annotations

import os
import platform
import subprocess
import sys
from pathlib import Path
from typing import Any

from measures.common import REPO


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def _memory_gib() -> float | None:
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return round(int(line.split()[1]) / 1024 / 1024, 1)
    except OSError:
        pass
    return None


def _version(module: str, dist: str) -> str | None:
    try:
        from importlib.metadata import version

        __import__(module)
        return version(dist)
    except Exception:  # noqa: BLE001 - absent or broken: reported as unknown
        return None


def _cmd(*argv: str) -> str | None:
    try:
        return subprocess.run(argv, capture_output=True, text=True, timeout=10, cwd=REPO).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        return None


def describe() -> dict[str, Any]:
    dirty = _cmd("git", "status", "--porcelain", "--untracked-files=no")
    return {
        "nproc": os.cpu_count(),
        "cpu_model": _cpu_model(),
        "memory_gib": _memory_gib(),
        "os": f"{platform.system()} {platform.release()}",
        "python": sys.version.split()[0],
        "wasmtime": _version("wasmtime", "wasmtime"),
        "regorus": _version("regorus", "gordon-to-regorus"),
        "cupcake_py": _version("cupcake_py", "cupcake-py"),
        "node": _cmd("node", "--version"),
        "commit": _cmd("git", "rev-parse", "--short", "HEAD"),
        "tree_dirty": bool(dirty),
        "load_average_start": load_average(),
    }
