"""`cupcake schema rulebook`: print the JSON Schema of rulebook.yml (authoring/schema.py builds it
from the engine's pydantic models) or, with --markdown, its reference page (docs/rulebook.md).

Out: the document on stdout, exit 0; an unknown document name is a usage error (exit 2)."""

from __future__ import annotations

import sys
from enum import StrEnum

import typer

from cupcake_py.authoring.schema import schema_text


class SchemaName(StrEnum):
    rulebook = "rulebook"


def schema_cmd(
    name: SchemaName = typer.Argument(..., help="Which document: rulebook (rulebook.yml)."),
    markdown: bool = typer.Option(False, "--markdown", help="Print the reference page (`cupcake docs rulebook`) "
                                  "instead of the JSON Schema."),
) -> None:
    """Print the JSON Schema of a configuration file (generated from the models the engine
    validates with). Save it as .cupcake/rulebook.schema.json (as `cupcake init` does) and
    editors with the YAML language server complete and check rulebook.yml.

    Example:  cupcake schema rulebook > .cupcake/rulebook.schema.json
    """
    if markdown:
        from cupcake_py.authoring.docgen.rulebook_doc import render

        sys.stdout.write(render())
    else:
        sys.stdout.write(schema_text())


def register(app: typer.Typer) -> None:
    app.command("schema")(schema_cmd)
