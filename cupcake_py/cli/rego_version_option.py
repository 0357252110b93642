"""The `--v0-compatible` option, one definition for every command that reads Rego files
(parse, check, build, validate, test; `cupcake_py.rego.versions` does the work). Imports typer
only, so a command's start-up pays nothing for it."""

from __future__ import annotations

import typer

V0_HELP = ("Read Rego written for OPA 0.x (OPA's --v0-compatible): rule bodies without `if`, `p[x] { ... }` "
           "partial sets, keywords only after `import future.keywords`; a file that imports rego.v1 stays v1. A "
           "directory holding an OPA bundle .manifest follows its rego_version / file_rego_versions.")


def v0_option() -> bool:
    """A fresh typer option (typer wants one object per parameter)."""
    return typer.Option(False, "--v0-compatible", help=V0_HELP)  # type: ignore[no-any-return]
