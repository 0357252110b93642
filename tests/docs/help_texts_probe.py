"""Run by the Python of an installed cupcake (the wheel's venv): every command's `--help` (through
`cupcake_py.cli.app.run`, the entry point's typer path, one command line after the other in this
process) and every lint rule's `validate --explain` page, printed as one JSON object
{"cupcake eval --help": text, …} on stdout. `cupcake eval --help` / `cupcake serve --help` print
without typer (cupcake_py/cli/help_texts.py) and are run by the test as their own processes."""

from __future__ import annotations

import contextlib
import io
import json
import sys
from typing import Any

import typer.main

from cupcake_py.authoring.findings import RULES
from cupcake_py.cli.app import build_app, run

FAST_PATHS = {("eval",), ("serve",)}  # cupcake_py.app.entry answers these without typer


def _commands(command: Any, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [path]
    for name, sub in sorted(getattr(command, "commands", {}).items()):
        found += _commands(sub, (*path, name))
    return found


def _output(argv: list[str]) -> str:
    out = io.StringIO()
    sys.argv = ["cupcake", *argv]
    with contextlib.redirect_stdout(out):
        try:
            run()
        except SystemExit as e:
            if e.code not in (0, None):
                raise RuntimeError(f"cupcake {' '.join(argv)} exited {e.code}") from e
    return out.getvalue()


def main() -> None:
    texts: dict[str, str] = {}
    for path in _commands(typer.main.get_command(build_app())):
        if path not in FAST_PATHS:
            texts[" ".join(("cupcake", *path, "--help"))] = _output([*path, "--help"])
    for rule in sorted(RULES):
        texts[f"cupcake validate --explain {rule}"] = _output(["validate", "--explain", rule])
    sys.stdout.write(json.dumps(texts))


if __name__ == "__main__":
    main()
