"""Extension points: what a project plugs into cupcake-py. `builtins`: Rego builtin functions written
in Python (docs/custom-builtins.md), named by `--custom-builtins`, the rulebook's `custom_builtins:`
or the entry-point group `cupcake_py.builtins`. Importing this package imports nothing.
"""
