"""The import graph of cupcake_py, read from the source with ast (no module is executed).

In: the package's directory. Out: every module's dotted name and path (`modules`), and for a
module, every import statement it holds at any depth (`imports`): at the top, inside functions
(lazy imports) and, unless asked to leave them out, under `if TYPE_CHECKING:`. Relative imports
are resolved against the importing module's package; `from pkg import name` names the submodule
`pkg.name` when there is one, else `pkg`. A file that does not parse raises SyntaxError (the
tests that use this fail rather than read half a graph).

Used by tests/architecture/test_import_layers.py (every import counts) and
test_import_cycles.py (imports that run: TYPE_CHECKING blocks left out).
"""

from __future__ import annotations

import ast
import pathlib
from collections.abc import Iterator


def modules(root: pathlib.Path) -> dict[str, pathlib.Path]:
    """Dotted module name -> file, for every .py file under the package directory `root`."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    """`if TYPE_CHECKING:` or `if typing.TYPE_CHECKING:`."""
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _statements(tree: ast.AST, type_checking: bool) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement under `tree`; the bodies of `if TYPE_CHECKING:` only when asked."""
    stack: list[ast.AST] = [tree]
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
        elif isinstance(node, ast.If) and not type_checking and _is_type_checking(node.test):
            stack.extend(node.orelse)
        else:
            stack.extend(ast.iter_child_nodes(node))


def imports(module: str, path: pathlib.Path, known: dict[str, pathlib.Path] | set[str],
            type_checking: bool = True) -> Iterator[tuple[str, int]]:
    """(imported module, line) for every import statement in the file, at any depth."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in sorted(_statements(tree, type_checking), key=lambda n: (n.lineno, n.col_offset)):
        if isinstance(node, ast.Import):
            yield from ((a.name, node.lineno) for a in node.names)
            continue
        base = node.module or ""
        if node.level:
            anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
            base = ".".join(anchor + ([node.module] if node.module else []))
        for alias in node.names:
            sub = f"{base}.{alias.name}"
            yield (sub if sub in known else base), node.lineno
