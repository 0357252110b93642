"""The root `cupcake` typer app: global options (--log-level, --version) and every command
group of this package (`app`, built on first use; `run()` registers only the group of the
command on argv).

In: argv (through `run()`, called by `cupcake_py.app.entry` for every command but the fast
`cupcake eval` / `cupcake serve` paths). Out: the command's output and exit status; usage
errors exit 2 with click's message, never a traceback (pretty exceptions off)."""

from __future__ import annotations

import sys
from importlib import import_module
from typing import Any

import typer
import typer.main

from cupcake_py import __version__
from cupcake_py.core import logs

# Every command group of cupcake_py/cli/, in `cupcake --help` order: each exposes `register(app)`.
GROUPS = ("rego", "wasm", "build", "eval_serve", "authoring", "fmt", "query", "schema", "audit", "fleet", "docs")
# command -> the group that registers it: `cupcake test ...` imports only the authoring group
COMMANDS = {"parse": "rego", "check": "rego", "wasm": "wasm", "build": "build", "eval": "eval_serve",
            "serve": "eval_serve", "validate": "authoring", "test": "authoring", "inspect": "authoring",
            "init": "authoring", "verify": "authoring", "protect": "authoring", "schema": "schema", "audit": "audit",
            "bundle": "fleet", "logs": "fleet", "status": "fleet", "fmt": "fmt", "query": "query", "docs": "docs"}
# (a command missing here still works: every group is registered)
HELP = (
    "cupcake-py: make AI coding agents follow rules.\n\n"
    "Rego policies are compiled to WebAssembly (OPA's WASM ABI) by cupcake-py itself "
    "and evaluated under wasmtime. Errors fail closed. Documentation ships with cupcake: "
    "`cupcake docs` lists the pages, `cupcake docs TOPIC` (as --help names them) prints one."
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"cupcake-py {__version__}")
        raise typer.Exit()


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


def build_app(command: str | None = None) -> typer.Typer:
    """The root app with every command group, or only the group of `command` (start-up: a
    command's process imports no other group's modules)."""
    app = typer.Typer(
        name="cupcake",
        help=HELP,
        no_args_is_help=True,
        add_completion=True,  # --install-completion / --show-completion (README "Shell completion")
        pretty_exceptions_enable=False,
        rich_markup_mode=None,  # every --help in one plain style, the one eval/serve print without typer
    )
    app.callback()(_root)
    for group in ((COMMANDS[command],) if command in COMMANDS else GROUPS):
        import_module(f"cupcake_py.cli.{group}").register(app)
    return app


def __getattr__(name: str) -> Any:
    """`app`: the full app (every command), built on first use."""
    if name == "app":
        full = globals()["app"] = build_app()
        return full
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _plain_metavars(command: Any) -> None:
    """Every option that takes a value shows a NAME in --help (`--run RUN`), not typer's `<str>`,
    in every command and subcommand (the flags' own metavars, e.g. `--harness NAME`, stay)."""
    for param in getattr(command, "params", []):
        if getattr(param, "param_type_name", "") == "option" and not getattr(param, "is_flag", True) \
                and param.metavar is None and param.name:
            param.metavar = param.name.upper().rstrip("_")
    for sub in getattr(command, "commands", {}).values():
        _plain_metavars(sub)


# Commands that read Rego: its terms may be nested as deep as the parser allows (MAX_NESTING),
# so they run on a deep stack (core/deep_stack.py); `eval` and `serve` stay on the main thread.
DEEP_COMMANDS = frozenset({"parse", "check", "build", "validate", "fmt", "query", "bundle", "inspect", "wasm"})


def run() -> None:
    argv = sys.argv[1:]
    command = typer.main.get_command(build_app(argv[0] if argv else None))
    _plain_metavars(command)
    if not argv or argv[0] not in DEEP_COMMANDS:
        command(prog_name="cupcake")
        return
    from cupcake_py.core.deep_stack import on_deep_stack

    try:
        on_deep_stack(lambda: command(prog_name="cupcake"))
    except RecursionError:  # deeper than even that stack: an error, not a traceback
        sys.stderr.write("cupcake: the input is nested too deeply to process\n")
        raise SystemExit(1) from None
