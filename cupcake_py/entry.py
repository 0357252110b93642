"""Console entry point.

Kept tiny on purpose: `cupcake eval` is on the hot path of every agent tool call, so it
must not pay for importing typer/pydantic. Every other command goes through the typer app.
"""

from __future__ import annotations

import sys


def main() -> None:
    argv = sys.argv[1:]
    if argv and argv[0] == "eval":
        try:
            from cupcake_py.engine.fast_eval import main as eval_main
        except ImportError:
            pass
        else:
            raise SystemExit(eval_main(argv[1:]))
    from cupcake_py.cli import run

    run()


if __name__ == "__main__":
    main()
