"""The root `cupcake` typer app: global options (--log-level, --version) and every command
group of this package, registered when this module is imported.

In: argv (through `run()`, called by `cupcake_py.entry` for every command but the fast
`cupcake eval` / `cupcake serve` paths). Out: the command's output and exit status; usage
errors exit 2 with click's message, never a traceback (pretty exceptions off)."""

from __future__ import annotations

from typing import Any

import typer
import typer.main

from cupcake_py import __version__, logs
from cupcake_py.cli import audit, authoring, build, docs, eval_serve, fleet, fmt, query, rego, schema, wasm

app = typer.Typer(
    name="cupcake",
    help=(
        "cupcake-py: make AI coding agents follow rules.\n\n"
        "Rego policies are compiled to WebAssembly (OPA's WASM ABI) by cupcake-py itself "
        "and evaluated under wasmtime. Errors fail closed. The docs/*.md pages named in --help: "
        "`cupcake docs PAGE`."
    ),
    no_args_is_help=True,
    add_completion=True,  # --install-completion / --show-completion (README "Shell completion")
    pretty_exceptions_enable=False,
    rich_markup_mode=None,  # every --help in one plain style, the one eval/serve print without typer
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
for _group in (rego, wasm, build, eval_serve, authoring, fmt, query, schema, audit, fleet, docs):
    _group.register(app)


def _plain_metavars(command: Any) -> None:
    """Every option that takes a value shows a NAME in --help (`--run RUN`), not typer's `<str>`,
    in every command and subcommand (the flags' own metavars, e.g. `--harness NAME`, stay)."""
    for param in getattr(command, "params", []):
        if getattr(param, "param_type_name", "") == "option" and not getattr(param, "is_flag", True) \
                and param.metavar is None and param.name:
            param.metavar = param.name.upper().rstrip("_")
    for sub in getattr(command, "commands", {}).values():
        _plain_metavars(sub)


def run() -> None:
    command = typer.main.get_command(app)
    _plain_metavars(command)
    command(prog_name="cupcake")
