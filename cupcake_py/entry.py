"""Console entry point.

Kept tiny on purpose: `cupcake eval` is on the hot path of every agent tool call, so it
must not pay for importing typer/pydantic. Every other command goes through the typer app.
"""

from __future__ import annotations

import os
import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv and argv[0] == "eval":
        # One short-lived process per tool call: the cyclic GC would run ~15 young-generation
        # passes over the objects that imports create (~4 ms) and find next to nothing. A high
        # threshold keeps it for the rare evaluation that really churns cyclic garbage.
        import gc

        gc.set_threshold(100_000, 50, 100)
        try:
            from cupcake_py.fast_eval import main as eval_main
        except ImportError:
            pass
        else:
            try:
                rc = eval_main(argv[1:])
            except BaseException:  # noqa: BLE001 - e.g. the hard-deadline alarm inside a failure handler
                # Never exit 1 or with a traceback (Claude Code would run the tool): exit 2 blocks.
                try:
                    sys.stderr.write("cupcake: the evaluation failed while answering; blocked (fail closed)\n")
                except (OSError, ValueError):
                    pass
                rc = 2
            # Skip interpreter teardown (GC over wasmtime's ctypes objects costs tens of ms
            # on every agent tool call). Every output of the evaluation is already written
            # and closed by now; only the standard streams need flushing.
            for stream in (sys.stdout, sys.stderr):
                try:
                    if stream is not None:
                        stream.flush()
                except (OSError, ValueError):
                    rc = rc or 2  # the answer could not be delivered: fail closed
            os._exit(rc)
    if argv and argv[0] == "serve" and "--help" not in argv and "-h" not in argv:
        from cupcake_py.serve import main as serve_main

        raise SystemExit(serve_main(argv[1:]))
    from cupcake_py.cli.app import run

    run()


if __name__ == "__main__":
    main()
