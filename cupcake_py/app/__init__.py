"""The application's entry points that never import typer: the console script (`entry`: argv
dispatch), `cupcake eval` (`fast_eval`: one event in, one answer out) and `cupcake serve` (`serve`: a
warm evaluator). They pick the harness and hand it to the engine; every other command goes to the
typer app in cupcake_py/cli/ (imported by `entry` only for those). The import-diet tests
(tests/engine/test_import_diet*.py) keep typer, click and cupcake_py.cli off this path.
Importing this package imports nothing.
"""
