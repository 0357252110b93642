"""The root `cupcake` typer app: global options (--log-level, --version) and every command
group of this package, registered when this module is imported.

In: argv (through `run()`, called by `cupcake_py.entry` for every command but the fast
`cupcake eval` / `cupcake serve` paths). Out: the command's output and exit status; usage
errors exit 2 with click's message, never a traceback (pretty exceptions off)."""

from __future__ import annotations

import typer

from cupcake_py import __version__, logs
from cupcake_py.cli import audit, authoring, build, eval_serve, fleet, rego, schema, wasm

app = typer.Typer(
    name="cupcake",
    help=(
        "cupcake-py: make AI coding agents follow rules.\n\n"
        "Rego policies are compiled to WebAssembly (OPA's WASM ABI) by cupcake-py itself "
        "and evaluated under wasmtime. Errors fail closed."
    ),
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion (README "Shell completion")
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"cupcake-py {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    log_level: str = typer.Option(
        "warning", "--log-level", help="Log verbosity on stderr: debug, info, warning, error."
    ),
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version and exit."
    ),
) -> None:
    if log_level not in logs.LEVELS:
        raise typer.BadParameter(f"must be one of {', '.join(logs.LEVELS)}", param_hint="--log-level")
    logs.setup(log_level)


# Every command group of cupcake_py/cli/, in `cupcake --help` order: each exposes `register(app)`.
for _group in (rego, wasm, build, eval_serve, authoring, schema, audit, fleet):
    _group.register(app)


def run() -> None:
    app()
