"""`cupcake validate | inspect | test | init | verify`: the policy author's commands."""

from __future__ import annotations

import sys
from enum import StrEnum
from pathlib import Path

import typer

from cupcake_py.errors import CupcakeError


class LintFormat(StrEnum):
    text = "text"
    json = "json"
    sarif = "sarif"
    github = "github"


class TableFormat(StrEnum):
    table = "table"
    json = "json"


class TextFormat(StrEnum):
    text = "text"
    json = "json"


def _fail(message: str, code: int = 2) -> typer.Exit:
    typer.echo(f"cupcake: {message}", err=True)
    return typer.Exit(code)


def validate_cmd(
    paths: list[Path] = typer.Argument(..., help="Policy files, or directories searched for *.rego.",
                                       show_default=False),
    fmt: LintFormat = typer.Option(LintFormat.text, "--format", "-f", help="text, json, sarif (SARIF 2.1.0 for "
                                   "code scanning) or github (workflow annotations)."),
) -> None:
    """Check policies for compile errors and lint them (Cupcake's rules plus harness checks).

    Every finding has a rule id, severity, file:row:col, message and a docs page
    (docs/lint/<rule>.md). Exit status: 0 when no finding is an error, 1 otherwise,
    2 for usage errors.

    Examples:  cupcake validate .cupcake/      cupcake validate --format sarif policies/ > lint.sarif
    """
    from cupcake_py.authoring.reporters import FORMATS
    from cupcake_py.authoring.validate import validate_paths

    try:
        report = validate_paths(paths)
    except CupcakeError as e:
        raise _fail(str(e)) from None
    sys.stdout.write(FORMATS[fmt.value](report))
    if report.failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("validate")(validate_cmd)
