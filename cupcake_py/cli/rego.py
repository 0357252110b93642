"""`cupcake parse` and `cupcake check`: the Rego front end on the command line (rego/check.py
does the checking). Exit status: 0 clean; 1 parse/compile errors (`file:row:col: code: message`
on stderr, or {"errors": [...]} on stdout with --format json); 2 a --custom-builtins module cannot
be loaded."""

from __future__ import annotations

import sys
from pathlib import Path

import orjson
import typer

from cupcake_py.cli import options
from cupcake_py.cli.rego_version_option import v0_option
from cupcake_py.core.errors import CupcakeError
from cupcake_py.rego import parse_module, read_source, versions
from cupcake_py.rego.check import check_paths
from cupcake_py.rego.errors import RegoError, RegoErrors, format_json, format_text


def _emit_errors(errors: list[RegoError], sources: dict[str, str], fmt: str) -> None:
    if fmt == "json":
        typer.echo(format_json(errors))
    else:
        n = len(errors)
        typer.echo(f"{n} error{'s' if n != 1 else ''} occurred:", err=True)
        typer.echo(format_text(errors, sources), err=True)


def parse_cmd(
    file: Path = typer.Argument(..., help="The .rego file to parse.", show_default=False),
    fmt: str = options.format_option("text", "json", extra_help="text: the module re-printed in canonical Rego v1 "
                                     "form (`cupcake fmt` keeps comments and layout). json: the full AST with "
                                     "locations (for debugging)."),
    v0_compatible: bool = v0_option(),
) -> None:
    """Parse one Rego v1 file and show its AST.

    Use it to see how cupcake reads a policy: `--format json` prints every node (rules,
    heads, bodies, expressions, terms) with file:row:col; `--format text` prints the module
    back as normalised Rego. Syntax errors are reported as `file:row:col: code: message`
    and the command exits with status 1.
    """
    sources: dict[str, str] = {}
    try:
        sources[str(file)] = read_source(file)
        module = parse_module(sources[str(file)], str(file), versions.flag(v0_compatible).of(file))
    except RegoErrors as exc:
        _emit_errors(list(exc.errors), sources, fmt)
        raise typer.Exit(1) from None
    if fmt == "json":
        from cupcake_py.rego.astjson import to_json

        sys.stdout.write(orjson.dumps(to_json(module), option=orjson.OPT_INDENT_2).decode() + "\n")
    else:
        from cupcake_py.rego.printer import print_module

        sys.stdout.write(print_module(module))


def check_cmd(
    paths: list[Path] = typer.Argument(..., help="Policy files, or directories searched recursively for "
                                       "*.rego.", show_default=False),
    fmt: str = options.format_option("text", "json", extra_help="text: `file:row:col: code: message` plus the "
                                     "source line and a caret, on stderr. json: {\"errors\": [...]} on stdout."),
    builtins: list[str] = typer.Option([], "--custom-builtins", "--builtins", help="Python module (name or .py path) with custom "
                                       "builtins the policies call (repeatable; `cupcake docs custom-builtins`)."),
    v0_compatible: bool = v0_option(),
) -> None:
    """Check Rego v1 policies for errors without running them.

    Every file is parsed (Rego v1 syntax: `if` before rule bodies, `contains` for
    multi-value rules); when all parse, the compiler's checks (unsafe variables,
    recursion, types) run too. Exit status: 0 when clean, 1 when any error was found, 2 when
    a --custom-builtins module cannot be loaded.

    Examples:  cupcake check policies/      cupcake check --format json a.rego b.rego
    """
    from cupcake_py.authoring import target_settings
    from cupcake_py.extensions.builtins import declared_for

    try:
        with declared_for(builtins), versions.use(target_settings.rego_versions(paths, v0_compatible)):
            errors, sources, count = check_paths(paths)
    except CupcakeError as e:
        typer.echo(f"cupcake check: {e}", err=True)
        raise typer.Exit(2) from None
    if errors:
        _emit_errors(errors, sources, fmt)
        raise typer.Exit(1)
    if fmt == "json":
        typer.echo(format_json([]))
    else:
        typer.echo(f"ok: {count} file{'s' if count != 1 else ''} checked, no errors")


def register(app: typer.Typer) -> None:
    app.command("parse")(parse_cmd)
    app.command("check")(check_cmd)
