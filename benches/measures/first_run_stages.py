"""(issue 32) Where the CPU of a first `cupcake test` run goes, stage by stage.

In: a directory of policies and tests (and `--v0-compatible`). Each round is a new interpreter
with an empty cache (XDG_CACHE_HOME) that runs the steps of a first `cupcake test` run one
after the other, through the same functions the runner uses, and reports the CPU seconds
(user + system, `time.process_time`) of each: the command's own modules (with the standard
library modules it needs: the script imports nothing else before), its build-cache key, the installed
custom-builtin entry-point scan (the installed distributions' entry_points.txt, read
directly: extensions/entry_points.py), the compiler's
imports, the host's, parse (the files under the paths and, when they can reach them, the
shipped support policies), compile, plan, WASM code generation and linking, the native
compile (wasmtime's baseline compiler, winch, as test runs use it; engine creation and the
write to the native-code cache included) and evaluating the tests. The interpreter's own start is `python -c pass`, measured apart.
Out: {stage: summary of the CPU ms over the rounds}.

    python benches/measures/first_run_stages.py [--v0-compatible] PATH...   # one round, JSON
"""

from __future__ import annotations

import sys
import time

TYPE_CHECKING = False
if TYPE_CHECKING:  # (the child process times its imports from the start: nothing else before them)
    from pathlib import Path

STAGES = ("command modules", "cache key", "entry-point scan", "compiler imports", "host import", "parse", "compile", "plan",
          "codegen + link", "native compile (winch)", "evaluate")


def one_round(paths: list[str], v0: bool) -> dict[str, float]:
    """The CPU ms of each stage in this (fresh) process."""
    out: dict[str, float] = {}
    t = [time.process_time()]

    def lap(name: str) -> None:
        now = time.process_time()
        out[name] = 1000 * (now - t[0])
        t[0] = now

    import cupcake_py.app.entry
    import cupcake_py.authoring.testing.command
    import cupcake_py.authoring.testing.output
    import cupcake_py.authoring.testing.runner  # noqa: F401
    lap("command modules")
    from cupcake_py.authoring.testing import cache
    from cupcake_py.authoring.testing.files import rego_files

    cache.build_key(rego_files(list(paths)), [], "")
    lap("cache key")
    from cupcake_py.authoring.target_settings import custom_builtins

    custom_builtins([])
    lap("entry-point scan")
    import cupcake_py.authoring.testing.build
    import cupcake_py.rego.compile.compiler
    import cupcake_py.rego.parser
    import cupcake_py.wasm.linker  # noqa: F401
    lap("compiler imports")
    import cupcake_py.host.policy  # noqa: F401
    from cupcake_py.authoring.testing.evaluate import NATIVE_COMPILER

    lap("host import")
    from cupcake_py.authoring.testing.loading import discover, load_modules
    from cupcake_py.plan import compile_entrypoints
    from cupcake_py.rego import versions
    from cupcake_py.rego.compile import compile_modules
    from cupcake_py.wasm import compile_policy

    with versions.use(versions.flag(v0)):
        modules, _, own = load_modules(list(paths))
        tests = [c.entrypoint for c in discover(modules, None, own)[0]]
        lap("parse")
        compiled = compile_modules(modules)
        lap("compile")
        policy = compile_entrypoints(modules, tests, compiled=compiled)
        lap("plan")
        wasm = compile_policy(policy)
        lap("codegen + link")
    from cupcake_py.host import HostOptions, PolicyModule
    from cupcake_py.host.builtins import BuiltinContext

    module = PolicyModule(wasm, HostOptions(compiler=NATIVE_COMPILER))  # as authoring/testing/evaluate.py
    lap("native compile (winch)")
    instance = module.instantiate(None, builtins={}, context_factory=lambda: BuiltinContext(strict=False))
    results = [instance.eval(ep, keep_sets=True) for ep in tests]
    lap("evaluate")
    if not all(rows and rows[0].get("result") is not False for rows in results):
        raise SystemExit(f"a test did not pass: {results}")
    return out


def measure(python: str, paths: list[str], cwd: Path, env: dict[str, str], v0: bool, rounds: int) -> dict[str, list[float]]:
    """`rounds` fresh processes; each stage's CPU ms per round."""
    import json
    import shutil
    import subprocess
    import tempfile

    got: dict[str, list[float]] = {s: [] for s in STAGES}
    for _ in range(rounds):
        cache = tempfile.mkdtemp(prefix="cupcake-stages-")
        try:
            cmd = [python, __file__, *(["--v0-compatible"] if v0 else []), *paths]
            proc = subprocess.run(cmd, cwd=cwd, env={**env, "XDG_CACHE_HOME": cache}, capture_output=True, text=True,
                                  timeout=300, check=True)
        finally:
            shutil.rmtree(cache, ignore_errors=True)
        for k, v in json.loads(proc.stdout).items():
            got[k].append(v)
    return got


if __name__ == "__main__":
    args = sys.argv[1:]
    v0 = "--v0-compatible" in args
    got = one_round([a for a in args if a != "--v0-compatible"], v0)
    import json

    print(json.dumps(got))
