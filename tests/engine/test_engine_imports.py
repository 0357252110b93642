"""The engine knows no harness: no module of cupcake_py/engine/ imports a harness (or the `cupcake
eval` driver that picks one), directly or through other cupcake_py modules, at module level or inside
functions. The harness is a value handed to the engine (cupcake_py/engine/harness_api.py)."""

from __future__ import annotations

import ast
from pathlib import Path

import cupcake_py

PKG = Path(cupcake_py.__file__).parent
FORBIDDEN = ("cupcake_py.harness", "cupcake_py.app.fast_eval", "cupcake_py.app.serve", "cupcake_py.authoring",
             "cupcake_py.cli", "cupcake_py.app.entry")


def _module_file(name: str) -> Path | None:
    rel = Path(*name.split("."))
    for cand in (PKG.parent / rel.with_suffix(".py"), PKG.parent / rel / "__init__.py"):
        if cand.is_file():
            return cand
    return None


def imports_of(path: Path, module: str) -> set[str]:
    """Every cupcake_py module `path` imports anywhere (also under TYPE_CHECKING and in functions)."""
    out: set[str] = set()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            out |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                base = ".".join(parts[: len(parts) - node.level + 1] + ([base] if base else []))
            out.add(base)
            out |= {f"{base}.{a.name}" for a in node.names if _module_file(f"{base}.{a.name}") is not None}
    return {m for m in out if m == "cupcake_py" or m.startswith("cupcake_py.")}


def closure(start: list[str]) -> dict[str, str]:
    """module -> the module that first imported it, over the transitive cupcake_py imports."""
    seen: dict[str, str] = {m: "" for m in start}
    todo = list(start)
    while todo:
        mod = todo.pop()
        path = _module_file(mod)
        if path is None:
            continue
        for dep in imports_of(path, mod):
            if dep not in seen:
                seen[dep] = mod
                todo.append(dep)
    return seen


def test_no_engine_module_reaches_a_harness() -> None:
    engine = sorted(f"cupcake_py.engine.{p.stem}" if p.name != "__init__.py" else "cupcake_py.engine"
                    for p in (PKG / "engine").rglob("*.py") if "__pycache__" not in p.parts)
    assert "cupcake_py.engine.evaluator" in engine
    reached = closure(engine)
    bad = {m: via for m, via in reached.items() if m.startswith(FORBIDDEN)}
    assert not bad, f"engine modules reach harness code (module: imported by): {bad}"


def test_the_walk_sees_imports_inside_functions(tmp_path: Path) -> None:
    f = tmp_path / "m.py"
    f.write_text("def g():\n    from cupcake_py.harness import get\n    import cupcake_py.app.fast_eval\n")
    assert {"cupcake_py.harness", "cupcake_py.app.fast_eval"} <= imports_of(f, "x.m")
