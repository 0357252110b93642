"""No import cycles among the modules of cupcake_py: every module can be read, loaded and tested
without the ones that depend on it.

The graph is read with ast (tests/architecture/imports.py; nothing is executed). An edge A -> B
is an import that runs when A runs, wherever the statement is: at the top or inside a function
(a lazy import only postpones the dependency, it does not remove it). Imports under
`if TYPE_CHECKING:` never run and are left out. An import runs more than its target: importing
`pkg.sub.mod` first runs `pkg/__init__.py` and `pkg/sub/__init__.py`, so A -> B also stands for
every package on the way to B that is not already running because it holds A (a package's own
`__init__` runs before its modules). So a package whose `__init__` re-exports its modules
(`from pkg.mod import name`) imports those modules, and a module elsewhere that imports
`pkg.other` imports them too. `from pkg import name` imports `pkg.name` when that is a module,
else `pkg`.

A cycle is a set of modules each of which reaches all the others (a strongly connected
component); the failure prints each one as chains of imports with their line numbers. EXCEPTIONS
is empty and stays so: a cycle is broken, not listed (docs/architecture.md, "Import cycles").
"""

from __future__ import annotations

import pathlib
from collections import deque

from tests.architecture.imports import imports, modules

ROOT = pathlib.Path(__file__).resolve().parents[2] / "cupcake_py"

# frozenset of the cycle's modules -> why it exists and the issue that removes it
EXCEPTIONS: dict[frozenset[str], str] = {}

Graph = dict[str, dict[str, int]]  # importer -> imported -> first line of an import that runs it


def _ancestors(module: str) -> list[str]:
    parts = module.split(".")
    return [".".join(parts[:i]) for i in range(1, len(parts))]


def import_graph(root: pathlib.Path = ROOT) -> Graph:
    known = modules(root)
    graph: Graph = {m: {} for m in known}
    for module, path in known.items():
        running = set(_ancestors(module)) | {module}  # already running when `module` runs
        for target, line in imports(module, path, known, type_checking=False):
            while target not in known and "." in target:  # `import pkg.mod.name`: an attribute of a module
                target = target.rpartition(".")[0]
            if target not in known:
                continue  # not a module of the package (stdlib, third party)
            if target != module:  # named by the statement: counts even when it is A's own package
                graph[module].setdefault(target, line)
            for runs in _ancestors(target):
                if runs in known and runs not in running:
                    graph[module].setdefault(runs, line)
    return graph


def _reach(graph: Graph, start: str) -> set[str]:
    seen = {start}
    todo = [start]
    while todo:
        for nxt in graph[todo.pop()]:
            if nxt not in seen:
                seen.add(nxt)
                todo.append(nxt)
    return seen


def cycles(graph: Graph) -> list[frozenset[str]]:
    """The strongly connected components of more than one module, sorted."""
    reach = {m: _reach(graph, m) for m in graph}
    found = {frozenset(n for n in reach[m] if m in reach[n]) for m in graph}
    return sorted((c for c in found if len(c) > 1), key=sorted)


def _shortest_cycle(graph: Graph, members: frozenset[str], start: str) -> list[str]:
    """start -> ... -> start through `members`, fewest imports first (BFS)."""
    came: dict[str, str] = {}
    todo = deque([start])
    while todo:
        node = todo.popleft()
        for nxt in sorted(graph[node]):
            if nxt == start:
                path = [node]
                while path[-1] != start:
                    path.append(came[path[-1]])
                return [*reversed(path), start]
            if nxt in members and nxt not in came:
                came[nxt] = node
                todo.append(nxt)
    raise AssertionError(f"{start} is not on a cycle of {sorted(members)}")


def describe(graph: Graph, members: frozenset[str]) -> str:
    """The cycle as chains `a (line 3) -> b (line 9) -> a`, until every member is on one."""
    chains, covered = [], set()
    for start in sorted(members):
        if start in covered:
            continue
        path = _shortest_cycle(graph, members, start)
        covered |= set(path)
        chains.append(" -> ".join(f"{a} (line {graph[a][b]})" for a, b in zip(path, path[1:], strict=False))
                      + f" -> {path[-1]}")
    return f"{len(members)} modules: {', '.join(sorted(members))}\n" + "\n".join(f"    {c}" for c in chains)


def test_no_import_cycles() -> None:
    graph = import_graph()
    assert len(graph) > 300  # the whole package was read
    new = [c for c in cycles(graph) if c not in EXCEPTIONS]
    assert not new, "import cycles (break them: docs/architecture.md, 'Import cycles'):\n" + "\n".join(
        describe(graph, c) for c in new)


def test_every_exception_still_occurs() -> None:
    stale = set(EXCEPTIONS) - set(cycles(import_graph()))
    assert not stale, f"these cycles no longer occur, delete them: {sorted(sorted(c) for c in stale)}"


def _write(root: pathlib.Path, files: dict[str, str]) -> pathlib.Path:
    for rel, text in files.items():
        path = root / "cupcake_py" / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root / "cupcake_py"


def test_the_finder_sees_lazy_imports_and_re_exports_and_skips_type_checking(tmp_path: pathlib.Path) -> None:
    """A re-exporting `__init__` imports its modules; importing `pkg.a` from outside runs `pkg`'s
    `__init__`; a lazy import counts; a TYPE_CHECKING one does not."""
    root = _write(tmp_path, {
        "__init__.py": "",
        "pkg/__init__.py": "from cupcake_py.pkg.a import f\n",
        "pkg/a.py": "def f():\n    from cupcake_py import other\n",
        "pkg/b.py": "",
        "other.py": "TYPE_CHECKING = False\nif TYPE_CHECKING:\n    from cupcake_py import typed\nimport cupcake_py.pkg.b\n",
        "typed.py": "from cupcake_py import other\n",
    })  # fmt: skip
    graph = import_graph(root)
    assert graph["cupcake_py.pkg"] == {"cupcake_py.pkg.a": 1}
    assert graph["cupcake_py.pkg.a"] == {"cupcake_py.other": 2}
    assert graph["cupcake_py.other"] == {"cupcake_py.pkg.b": 4, "cupcake_py.pkg": 4}
    assert cycles(graph) == [frozenset({"cupcake_py.pkg", "cupcake_py.pkg.a", "cupcake_py.other"})]
    assert describe(graph, cycles(graph)[0]).splitlines()[1].strip() == (
        "cupcake_py.other (line 4) -> cupcake_py.pkg (line 1) -> cupcake_py.pkg.a (line 2) -> cupcake_py.other")


def test_a_module_importing_its_own_package_names_is_a_cycle_with_a_re_exporting_init(tmp_path: pathlib.Path) -> None:
    """`from pkg import name` (a name, not a module) inside pkg imports the package back; a module
    importing a sibling does not (its package is already running)."""
    root = _write(tmp_path, {
        "__init__.py": "",
        "pkg/__init__.py": "from .a import f\nfrom .b import g\n",
        "pkg/a.py": "from cupcake_py.pkg import g\ndef f(): pass\n",
        "pkg/b.py": "from cupcake_py.pkg.c import h\ndef g(): pass\n",
        "pkg/c.py": "def h(): pass\n",
    })  # fmt: skip
    graph = import_graph(root)
    assert graph["cupcake_py.pkg.b"] == {"cupcake_py.pkg.c": 1}
    assert cycles(graph) == [frozenset({"cupcake_py.pkg", "cupcake_py.pkg.a"})]
