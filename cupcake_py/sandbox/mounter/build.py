"""Build cupcake's mounter (mounter.c) for every machine it ships for, with the pinned zig (PyPI `ziglang`).

Usage: python -m cupcake_py.sandbox.mounter.build [--check]

One static executable per machine (`mounter-x86_64`, `mounter-aarch64`: musl, stripped, no build id),
committed next to the source and shipped in the wheel. Determinism: the same zig and source give the
same bytes (zig's caches kept in a temporary directory, the source path mapped to `.`). `--check`
rebuilds into a temporary directory and fails unless every result is byte-identical to the committed
file (tests/sandbox/test_mounter.py runs it).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from cupcake_py.sandbox.bwrap import MOUNTER_MACHINES as MACHINES
from cupcake_py.wasm.runtime.build import ZIG_VERSION, BuildError, report, zig_version

DIR = Path(__file__).resolve().parent
SOURCE = DIR / "mounter.c"

FLAGS = ["-O2", "-static", "-s", "-std=gnu11", "-Wall", "-Wextra", "-Werror", "-Wl,--build-id=none"]


def build(out_dir: Path) -> list[Path]:
    version = zig_version()
    if version != ZIG_VERSION:
        raise BuildError(f"zig {ZIG_VERSION} required (pip install ziglang=={ZIG_VERSION}), found {version!r}")
    written = []
    with tempfile.TemporaryDirectory(prefix="cupcake-zig-") as tmp:
        env = dict(os.environ, ZIG_LOCAL_CACHE_DIR=tmp, ZIG_GLOBAL_CACHE_DIR=tmp)
        for machine in MACHINES:
            out = out_dir / f"mounter-{machine}"
            cmd = [sys.executable, "-m", "ziglang", "cc", "-target", f"{machine}-linux-musl", *FLAGS,
                   f"-ffile-prefix-map={DIR.as_posix()}=.", SOURCE.name, "-o", str(out)]
            res = subprocess.run(cmd, cwd=DIR, env=env, capture_output=True, text=True)
            if res.returncode != 0:
                raise BuildError(f"zig cc for {machine} failed ({res.returncode}):\n{res.stderr}{res.stdout}")
            out.chmod(0o755)
            written.append(out)
    return written


def check() -> None:
    with tempfile.TemporaryDirectory(prefix="cupcake-mounter-") as tmp:
        for fresh in build(Path(tmp)):
            committed = DIR / fresh.name
            if not committed.exists():
                raise BuildError(f"{committed} is missing; run `make mounter`")
            if fresh.read_bytes() != committed.read_bytes():
                raise BuildError(f"{committed} is stale: rebuilding gives different bytes; run `make mounter`")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="verify the committed executables are reproducible")
    args = ap.parse_args(argv)

    def checked() -> str:
        check()
        return "the mounter executables are up to date"

    def built() -> str:
        return "\n".join(f"wrote {out} ({out.stat().st_size} bytes)" for out in build(DIR))

    return report(checked if args.check else built)


if __name__ == "__main__":
    raise SystemExit(main())
