"""OPA-style compile passes on the AST (see `compiler` for the pipeline).

Public API:
    compile_modules(modules) -> Compiled     (raises RegoErrors)
    check_modules(modules) -> list[RegoError]
    compile_query(body, compiled) -> compiled query body
"""

from cupcake_py.rego.ast import NotBody
from cupcake_py.rego.compile.compiler import check_modules, compile_modules, compile_query
from cupcake_py.rego.compile.nodes import Compiled, CRule, Group, Node

__all__ = ["compile_modules", "check_modules", "compile_query", "Compiled", "CRule", "Group", "Node", "NotBody"]
