"""plan: compiled Rego AST -> OPA-style IR (`ir.py`).

Public API:
    compile_query(modules, query, entrypoint="eval") -> ir.Policy
    compile_entrypoints(modules, ["pkg/rule", ...]) -> ir.Policy
`modules` are Rego source texts (named module-<i>.rego) or parsed `ast.Module`s.
"""

from cupcake_py.plan.planner import compile_entrypoints, compile_query

__all__ = ["compile_query", "compile_entrypoints"]
