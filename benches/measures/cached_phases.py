"""Where the CPU of one cached `cupcake test` process goes (issue 32; run by measures/test_startup.py).

    python benches/measures/cached_phases.py MODULES_FILE -- TEST_ARGS...

Runs `cupcake test TEST_ARGS` in this process as cupcake_py/app/entry.py does (the lean path)
and prints, as JSON, CPU milliseconds (time.process_time) per phase: the interpreter's start
(up to this script's first line: site and the venv's .pth files included), loading
libwasmtime (ctypes and the dlopen), the imports the cached run needs (MODULES_FILE, one name a
line: the cupcake_py modules a previous run of the same command loaded, imported up front so
their cost is counted here and not inside the phases), then the run itself: finding the files, the build
cache key and lookup, the custom builtin (entry point) check, the native-code load (host
module cache read and deserialize), instantiating, the tests, the report, and the rest of the
command. The process then ends as the command ends (os._exit): the caller measures the whole
process and attributes the difference (teardown, kernel) to "exit".
The phases are found by wrapping the product's functions; the run's output is discarded. The
script itself imports nothing beyond what the interpreter has loaded at start (its JSON is
written by hand), so the phases add up to the process.
"""

from __future__ import annotations

import time

START = time.process_time()

import os  # noqa: E402 - (loaded by the interpreter's start already)
import sys  # noqa: E402

_clock = time.process_time


def main() -> None:
    modules_file, args = sys.argv[1], sys.argv[3:]
    with open(modules_file) as f:
        modules = f.read().split()
    phases: dict[str, float] = {"python start": START}
    capi_path = _library_path()
    t = _clock()
    import ctypes

    ctypes.CDLL(capi_path)
    phases["ctypes + dlopen libwasmtime"] = _clock() - t
    t = _clock()
    for m in modules:
        __import__(m)
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
    total = _clock()
    phases["unattributed (this script)"] = total - sum(phases.values())
    phases["total in process"] = total
    print("{" + ", ".join(f'"{k}": {v * 1000:.3f}' for k, v in phases.items()) + "}")
    sys.stdout.flush()
    os._exit(0)


def _library_path() -> str:
    """The libwasmtime capi loads (capi.library_path, Linux), found without importing the host."""
    for entry in sys.path:
        candidate = os.path.join(entry or os.curdir, "wasmtime", f"linux-{os.uname().machine}", "_libwasmtime.so")
        if os.path.isfile(candidate):
            return candidate
    raise SystemExit("the wasmtime package is not installed")


if __name__ == "__main__":
    main()
