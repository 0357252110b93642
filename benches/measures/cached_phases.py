"""Where the CPU of one cached `cupcake test` process goes (issue 32; run by measures/test_startup.py).

    python benches/measures/cached_phases.py MODULES_JSON -- TEST_ARGS...

Runs `cupcake test TEST_ARGS` in this process as cupcake_py/app/entry.py does (the lean path)
and prints, as JSON, CPU milliseconds (time.process_time) per phase: the interpreter's start
(up to this script's first line: site and the venv's .pth files included), loading
libwasmtime (ctypes and the dlopen), the imports the cached run needs (MODULES_JSON: the
cupcake_py modules a previous run of the same command loaded, imported up front so their cost
is counted here and not inside the phases), then the run itself: finding the files, the build
cache key and lookup, the custom builtin (entry point) check, the native-code load (host
module cache read and deserialize), instantiating, the tests, the report, and the rest of the
command. The process then ends as the command ends (os._exit): the caller measures the whole
process and attributes the difference (teardown, kernel) to "exit".
The phases are found by wrapping the product's functions; the run's output is discarded.
"""

from __future__ import annotations

import time

START = time.process_time()

import importlib  # noqa: E402
import json  # noqa: E402 - (the bench's own imports are charged to no phase: measured apart)
import os  # noqa: E402
import sys  # noqa: E402

_clock = time.process_time


def main() -> None:
    modules_file, args = sys.argv[1], sys.argv[3:]
    modules = json.loads(open(modules_file).read())
    phases: dict[str, float] = {"python start": START}
    capi_path = _library_path()
    t = _clock()
    import ctypes

    ctypes.CDLL(capi_path)
    phases["ctypes + dlopen libwasmtime"] = _clock() - t
    t = _clock()
    for m in modules:
        importlib.import_module(m)
    phases["imports"] = _clock() - t

    from cupcake_py.authoring import target_settings
    from cupcake_py.authoring.testing import cache, command, evaluate, output, runner
    from cupcake_py.host import policy

    spent: dict[str, float] = {}

    def wrap(owner: object, name: str, label: str) -> None:
        fn = getattr(owner, name)

        def timed(*a: object, **k: object) -> object:
            t0 = _clock()
            try:
                return fn(*a, **k)
            finally:
                spent[label] = spent.get(label, 0.0) + _clock() - t0

        setattr(owner, name, timed)

    wrap(runner, "rego_files", "files")
    wrap(runner, "load_data", "files")
    wrap(cache, "build_key", "cache key + lookup")
    wrap(cache, "load", "cache key + lookup")
    wrap(target_settings, "custom_builtins", "custom builtin check")
    wrap(policy, "load_module", "native code load")
    wrap(policy.PolicyModule, "instantiate", "instantiate")
    wrap(evaluate.Evaluator, "run", "tests")
    for name in ("text", "json_report", "phase_lines"):
        wrap(output, name, "output")

    out = os.open(os.devnull, os.O_WRONLY)
    saved = os.dup(1)
    os.dup2(out, 1)
    t = _clock()
    code = command.main(args)
    sys.stdout.flush()
    run = _clock() - t
    os.dup2(saved, 1)
    if code != 0:
        raise SystemExit(f"cupcake test exited {code}")
    phases.update(spent)
    phases["rest of the command"] = run - sum(spent.values())  # (module hash and exports, flags, progress...)
    phases["total in process"] = _clock()
    print(json.dumps({k: round(v * 1000, 3) for k, v in phases.items()}))
    sys.stdout.flush()
    os._exit(0)


def _library_path() -> str:
    """The libwasmtime capi loads (capi.library_path), found without importing the host."""
    import importlib.util

    spec = importlib.util.find_spec("wasmtime")
    assert spec is not None and spec.submodule_search_locations, "the wasmtime package is not installed"
    return os.path.join(list(spec.submodule_search_locations)[0], f"linux-{os.uname().machine}", "_libwasmtime.so")


if __name__ == "__main__":
    main()
