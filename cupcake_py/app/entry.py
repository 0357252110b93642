"""Console entry point.

Kept tiny on purpose: `cupcake eval` is on the hot path of every agent tool call, so it
must not pay for importing typer/pydantic; nor does `cupcake test PATHS` (one process per
template directory in a library's CI) nor `cupcake serve`. Every other command, and those
three when they need help or usage errors, goes through the typer app.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv and argv[0] == "eval":
        # First: a termination signal from here on ends in the harness's fail-closed answer
        # (cupcake_py/core/termination.py), not in exit 143 with no answer.
        from cupcake_py.core import termination

        rc: int | None = None
        try:
            termination.arm()
            # One short-lived process per tool call: the cyclic GC would run ~15 young-generation
            # passes over the objects that imports create (~4 ms) and find next to nothing. A high
            # threshold keeps it for the rare evaluation that really churns cyclic garbage.
            import gc

            gc.set_threshold(100_000, 50, 100)
            try:
                from cupcake_py.app.fast_eval import main as eval_main
            except ImportError:
                pass  # a broken install: the typer app below reports it
            else:
                rc = eval_main(argv[1:])
        except BaseException:  # noqa: BLE001 - stopped by a signal while importing, or a failure while answering
            # Never exit 1 or with a traceback (Claude Code would run the tool): exit 2 blocks.
            rc = _last_resort_answer(argv[1:])
        if rc is not None:
            # Skip interpreter teardown (GC over wasmtime's ctypes objects costs tens of ms
            # on every agent tool call). Every output of the evaluation is already written
            # and closed by now; only the standard streams need flushing.
            for stream in (sys.stdout, sys.stderr):
                try:
                    if stream is not None:
                        stream.flush()
                except (OSError, ValueError):
                    rc = rc or 2  # the answer could not be delivered: fail closed
            termination.answered(rc)
            os._exit(rc)
    if argv and argv[0] == "test":
        # One process per template directory in a policy library's CI: the plain command lines
        # run without typer/pydantic (authoring/testing/command.py); --help, --watch, no PATHS
        # and anything unusual go to the typer command below, the source of truth. As for eval,
        # no cyclic GC passes over what the imports create (the run itself pauses it: gc_pause).
        import gc

        thresholds = gc.get_threshold()
        gc.set_threshold(100_000, 50, 100)
        from cupcake_py.authoring.testing.command import main as test_main

        code = test_main(argv[1:])
        gc.set_threshold(*thresholds)  # (typer's commands, --watch among them, run with the usual GC)
        if code is not None:
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
            if "multiprocessing" not in sys.modules:
                # Every output is written and flushed: skip the interpreter's teardown (module
                # and GC passes over the host's ctypes objects, a few ms per process) unless a
                # worker pool ran (multiprocessing's exit hooks clean up after it).
                os._exit(code)
            raise SystemExit(code)
    if argv and argv[0] == "serve" and "--help" not in argv and "-h" not in argv:
        from cupcake_py.app.serve import main as serve_main

        raise SystemExit(serve_main(argv[1:]))
    from cupcake_py.cli.app import run

    run()


def _last_resort_answer(args: list[str]) -> int:
    """When `cupcake eval` itself could not answer (stopped while importing, or a failure inside
    its failure handling): the harness's fail-closed answer, or a plain deny; exit status 2.
    Never exit 1 or with a traceback (Claude Code would run the tool)."""
    from cupcake_py.core import termination

    termination.answering()
    text = "cupcake: the evaluation failed while answering; blocked (fail closed)"
    if termination.stopped():
        text = f"cupcake: stopped by {termination.stopped()} before the evaluation finished; blocked (fail closed)"
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    try:
        from cupcake_py.core import jsonio
        from cupcake_py.harness import get

        name = next((args[i + 1] for i, a in enumerate(args[:-1]) if a == "--harness"), None)
        name = next((a.partition("=")[2] for a in args if a.startswith("--harness=")), name)
        answer = get(name).fail(text, None)
        out, status, err = jsonio.dumps(answer.stdout) if answer.stdout is not None else b"", answer.exit, answer.stderr
    except BaseException:  # noqa: BLE001 - an unknown harness, a broken install: the plainest deny
        out, status, err = b'{"decision":"deny","reason":"' + text.encode() + b'"}', 2, text
    try:
        if out:
            os.write(1, out + b"\n")
        os.write(2, ((err or text) + "\n").encode())
    except OSError:
        pass
    return status


if __name__ == "__main__":
    main()
