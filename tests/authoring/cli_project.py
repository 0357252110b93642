"""A temporary project driven through the real `cupcake` executable (a subprocess, as a user runs
it), with its own $HOME, $XDG_* directories: never the real user's."""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from cupcake_py.harness.examples import cupcake_command


@dataclass
class Run:
    code: int
    out: str
    err: str


def env_for(tmp: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "CUPCAKE_"))}
    for name in ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"):
        (tmp / name.lower()).mkdir(exist_ok=True)
        env[name] = str(tmp / name.lower())
    return env


def cupcake(args: list[str], cwd: Path, env: dict[str, str], stdin: str | None = None, timeout: float = 300) -> Run:
    p = subprocess.run([*cupcake_command(), *args], cwd=cwd, env=env, input=stdin, capture_output=True, text=True,
                       timeout=timeout)
    return Run(p.returncode, p.stdout, p.stderr)
