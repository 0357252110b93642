"""Authoring: the commands a policy author runs: `cupcake validate` (lints), `test` (the Rego test
runner), `init` and `protect` (scaffolds and agent hooks), `verify`, `inspect`, `query`, and the
generated documentation (docgen/). Plain functions; the typer commands are in cupcake_py/cli/.
"""
