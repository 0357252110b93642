"""The `cupcake` command line (typer). Sub-commands live next to the stage they drive;
this module only wires them together."""

from __future__ import annotations

import typer

from cupcake_py import __version__, logs

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


# Each stage that has commands exposes `register(app)`; add its module here.
COMMAND_MODULES: tuple[str, ...] = ("cupcake_py.rego.commands", "cupcake_py.wasm.commands", "cupcake_py.plan.commands",
                                     "cupcake_py.eval_commands", "cupcake_py.authoring.commands",
                                     "cupcake_py.authoring.schema", "cupcake_py.governance.commands")


def _register() -> None:
    import importlib

    for name in COMMAND_MODULES:
        importlib.import_module(name).register(app)


def run() -> None:
    _register()
    app()
