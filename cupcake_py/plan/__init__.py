"""plan: compiled Rego AST -> OPA-style IR (`cupcake_py.ir`).

Public API:
    compile_query(modules, query, entrypoint="eval") -> ir.Policy
    compile_entrypoints(modules, ["pkg/rule", ...]) -> ir.Policy
`modules` are Rego source texts (named module-<i>.rego) or parsed `ast.Module`s.
The planner (and the compiler it needs) is imported on first use: importing the package
alone (e.g. for the `cupcake build` command's registration) stays cheap.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from cupcake_py.plan.planner import compile_entrypoints, compile_query

__all__ = ["compile_query", "compile_entrypoints"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from cupcake_py.plan import planner

        return getattr(planner, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
