"""Build the C runtime into runtime.wasm with the pinned zig (PyPI `ziglang`).

Usage: python -m cupcake_py.wasm.runtime.build [--check] [--out PATH]

Every ``src/**/*.c`` file (sorted, so new builtins are picked up) is compiled
and linked in one zig invocation for wasm32-freestanding, MVP instructions
only. Exports: every symbol declared with ``OPA_EXPORT`` (default visibility,
``--export-dynamic``; everything else is compiled with hidden visibility),
plus the global ``__heap_base``. Imports: ``env.memory`` (``--import-memory``),
``env.opa_abort``, ``env.gen_eval``. The stack comes first in memory, then the
runtime's data, then the heap at ``__heap_base``.

Determinism: no debug info, source paths mapped to ``.`` with
``-ffile-prefix-map``, a fixed file order, and zig's own cache kept in a
temporary directory. ``--check`` rebuilds into a temporary directory and fails
unless the result is byte-identical to the committed ``runtime.wasm``.

Next to it, ``call_graph.py``: the function references of every runtime function body, so the
linker does not walk them in every process (``linker.call_graph_source``; checked by ``--check``
and tests/wasm/test_runtime_call_graph.py).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

RUNTIME_DIR = Path(__file__).resolve().parent
SRC_DIR = RUNTIME_DIR / "src"
OUTPUT = RUNTIME_DIR / "runtime.wasm"
CALL_GRAPH = RUNTIME_DIR / "call_graph.py"
ZIG_VERSION = "0.17.0"
STACK_SIZE = 256 * 1024

COMPILE_FLAGS = [
    "-target", "wasm32-freestanding",
    "-mcpu=mvp",
    "-std=c11",
    "-O2",
    "-g0",
    "-ffreestanding",
    "-fno-stack-protector",
    "-fvisibility=hidden",
    "-Wall", "-Wextra", "-Werror",
    "-Wno-unused-parameter",
]

LINK_FLAGS = [
    "--no-entry",
    "--export-dynamic",
    "--export=__heap_base",
    "--import-memory",
    "--stack-first",
    "-z", f"stack-size={STACK_SIZE}",
]


class BuildError(Exception):
    """The zig build failed or the rebuild differs from the committed file."""


def sources() -> list[Path]:
    return sorted(SRC_DIR.rglob("*.c"), key=lambda p: p.relative_to(SRC_DIR).as_posix())


def zig_version() -> str:
    out = subprocess.run([sys.executable, "-m", "ziglang", "version"], capture_output=True, text=True)
    return out.stdout.strip()


def _run(cmd: list[str], env: dict[str, str]) -> None:
    res = subprocess.run(cmd, cwd=RUNTIME_DIR, env=env, capture_output=True, text=True)
    if res.returncode != 0:
        raise BuildError(f"{' '.join(cmd[2:4])} failed ({res.returncode}):\n{res.stderr}{res.stdout}")


def build(out: Path) -> None:
    version = zig_version()
    if version != ZIG_VERSION:
        raise BuildError(f"zig {ZIG_VERSION} required (pip install ziglang=={ZIG_VERSION}), found {version!r}")
    root = RUNTIME_DIR.as_posix()
    zig = [sys.executable, "-m", "ziglang"]
    with tempfile.TemporaryDirectory(prefix="cupcake-zig-") as tmp:
        env = dict(os.environ, ZIG_LOCAL_CACHE_DIR=tmp, ZIG_GLOBAL_CACHE_DIR=tmp)
        objects = []
        for i, src in enumerate(sources()):
            obj = Path(tmp) / f"{i:03d}.o"
            rel = src.relative_to(RUNTIME_DIR).as_posix()
            _run([*zig, "cc", *COMPILE_FLAGS, f"-ffile-prefix-map={root}=.", "-I", "include",
                  "-c", rel, "-o", str(obj)], env)
            objects.append(str(obj))
        # zig cc cannot pass --stack-first to the linker: link with zig's wasm-ld.
        # The name section records the output's file name: always link as runtime.wasm.
        linked = Path(tmp) / "runtime.wasm"
        _run([*zig, "wasm-ld", *LINK_FLAGS, "-o", str(linked), *objects], env)
        shutil.copyfile(linked, out)
    if out == OUTPUT:
        write_call_graph()


def write_call_graph() -> None:
    from cupcake_py.wasm.linker import call_graph_source

    CALL_GRAPH.write_text(call_graph_source(OUTPUT.read_bytes()))


def check() -> None:
    if not OUTPUT.exists():
        raise BuildError(f"{OUTPUT} is missing; run `make runtime`")
    with tempfile.TemporaryDirectory(prefix="cupcake-runtime-") as tmp:
        fresh = Path(tmp) / "runtime.wasm"
        build(fresh)
        if fresh.read_bytes() != OUTPUT.read_bytes():
            raise BuildError(f"{OUTPUT} is stale: rebuilding gives different bytes; run `make runtime`")
    from cupcake_py.wasm.linker import call_graph_source

    if not CALL_GRAPH.exists() or CALL_GRAPH.read_text() != call_graph_source(OUTPUT.read_bytes()):
        raise BuildError(f"{CALL_GRAPH} is stale; run `make runtime`")


def report(action: Callable[[], str]) -> int:
    """Run one build step of a `python -m ….build` command: print what it did, or its BuildError as
    `error: …` on stderr with exit status 1 (also used by sandbox/mounter/build.py)."""
    try:
        print(action())
    except BuildError as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="verify runtime.wasm is reproducible")
    ap.add_argument("--out", type=Path, default=OUTPUT, help="output path (default: runtime.wasm)")
    args = ap.parse_args(argv)

    def checked() -> str:
        check()
        return f"runtime.wasm is up to date ({OUTPUT.stat().st_size} bytes)"

    def built() -> str:
        build(args.out)
        return f"wrote {args.out} ({args.out.stat().st_size} bytes)"

    return report(checked if args.check else built)


if __name__ == "__main__":
    sys.exit(main())
