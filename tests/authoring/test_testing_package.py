"""The `cupcake test` runner package (cupcake_py/authoring/testing/) has no import cycle among
its modules, lazy imports inside functions included (TYPE_CHECKING imports excluded), and no
module named like a test (issue 34): every module can be read, loaded and tested alone."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "cupcake_py" / "authoring" / "testing"
DOTTED = "cupcake_py.authoring.testing"


def _imports(path: Path, modules: set[str]) -> set[str]:
    """The package's modules `path` imports anywhere but under `if TYPE_CHECKING:`."""
    found: set[str] = set()

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith(DOTTED):
            rest = node.module[len(DOTTED):].lstrip(".")
            found.update([rest.split(".")[0]] if rest else [a.name for a in node.names if a.name in modules])
        elif isinstance(node, ast.Import):
            found.update(a.name[len(DOTTED) + 1:].split(".")[0] for a in node.names if a.name.startswith(DOTTED + "."))
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(ast.parse(path.read_text()))
    return found


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    stack: list[str] = []

    def walk(m: str) -> list[str] | None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph.get(m, ())):
            if state.get(n) == 1:
                return [*stack[stack.index(n):], n]
            if n not in state and (found := walk(n)):
                return found
        stack.pop()
        state[m] = 2
        return None

    for m in sorted(graph):
        if m not in state and (found := walk(m)):
            return found
    return None


def test_the_runner_package_has_no_import_cycle() -> None:
    modules = {p.stem for p in PACKAGE.glob("*.py")}
    graph = {m: _imports(PACKAGE / f"{m}.py", modules) - {m} for m in modules}
    assert {"runner", "cases", "cache", "evaluate", "output"} <= modules
    assert graph["runner"] >= {"cases", "cache", "evaluate"}  # the parser sees the runner's imports
    assert _cycle(graph) is None, _cycle(graph)


def test_no_runner_module_is_named_like_a_test() -> None:
    authoring = PACKAGE.parent
    assert not [p.name for p in [*authoring.glob("test_*.py"), *PACKAGE.glob("test_*.py")]]


def test_the_cycle_finder_finds_a_lazy_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None
