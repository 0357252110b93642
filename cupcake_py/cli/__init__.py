"""The `cupcake` command line: every typer command lives in this package, one module per
command group (`app` is the root app; `rego`, `build`, `wasm`, `authoring`, `schema`, `audit`,
`eval_serve`). The stages (rego, plan, wasm, host, engine, governance, authoring) expose plain
functions and never import typer; tests/architecture/test_import_layers.py checks it.

Importing this package imports nothing: `cupcake eval --help` reads `cli.help_texts` without
typer, and the console entry (`cupcake_py.app.entry`) imports `cli.app` only for the commands that
are not `cupcake eval` / `cupcake serve` (docs/architecture.md section 6).
"""
