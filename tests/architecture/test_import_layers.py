"""Import layers: which package of cupcake_py may import which, checked on the real import graph.

Every module of cupcake_py is parsed (ast, no import is executed) and every import statement
counts, wherever it is: at the top, inside a function (lazy imports), under TYPE_CHECKING.
A module may import modules of its own layer or of a lower one. An import of a higher layer
is a violation unless it is listed in EXCEPTIONS with its reason and the issue that removes it;
the list is exact: a new violation fails, and so does an exception that no longer occurs
(delete it when the issue lands). typer (and click) are imported by cupcake_py/cli/ only.
docs/architecture.md section "Import layers" shows both tables: the layer table is generated from
LAYERS (tests/architecture/package_map.py, checked by test_package_map.py), the exceptions table is
checked against EXCEPTIONS here.
"""

from __future__ import annotations

import functools
import pathlib
import re
from collections.abc import Iterator

from tests.architecture.imports import imports, modules

ROOT = pathlib.Path(__file__).resolve().parents[2] / "cupcake_py"

# Lowest first. Each layer: the top-level packages/modules of cupcake_py it holds, and what it is.
LAYERS: tuple[tuple[str, frozenset[str], str], ...] = (
    ("base", frozenset({"__init__", "core"}),
     "shared foundations: error types, records, data classes without code generated at import, strict JSON, logging, user directories, Rego values, YAML as OPA "
     "reads it (timestamps stay strings), cache MACs, the GC pause for builds, termination signals turned into a "
     "fail-closed answer"),
    ("ir", frozenset({"ir"}), "OPA's planner IR, a leaf (only `cupcake_py.core.errors` and `core.slotted` below it: "
     "tests/ir/test_ir_leaf.py)"),
    ("rego", frozenset({"rego"}), "Rego source → AST → compiled modules"),
    ("plan", frozenset({"plan"}), "compiled modules → IR"),
    ("wasm", frozenset({"wasm"}), "IR → WebAssembly module, C runtime"),
    ("host", frozenset({"host"}), "wasmtime host, Rego builtin functions"),
    ("extensions", frozenset({"custom_builtins", "extensions"}),
     "project-supplied Rego builtin functions (declared for rego, run by host)"),
    ("shell", frozenset({"shell"}), "static analysis of shell commands"),
    ("enrich", frozenset({"enrich"}), "harness-neutral enrichment of the policy input (tool paths, link identities)"),
    ("sandbox", frozenset({"sandbox"}),
     "the kernel floor for shell calls: the profile (read-only, hidden, writable paths) computed from the state "
     "paths and the rulebook, compiled to bubblewrap arguments (docs/sandbox.md)"),
    ("engine", frozenset({"engine", "governance"}),
     "discovery, rulebook, routing, signals, synthesis; governance: the audit log and session history"),
    ("fleet", frozenset({"fleet"}),
     "OPA bundles (build, sign, verify, push, pull), sources (HTTP, OCI, path), activation, `cupcake status`, "
     "decision-log export; off the eval path (the engine reads an activated bundle through "
     "`engine/fleet_active.py`, docs/fleet.md)"),
    ("harness", frozenset({"harness"}),
     "agent-specific events and responses (OpenCode, Claude Code, Codex CLI, Gemini CLI, Qwen Code, GitHub Copilot "
     "CLI, Factory Droid, Cline, Cursor; `hook_agent.py` is the table-driven harness every hook-command agent "
     "shares)"),
    ("authoring", frozenset({"authoring"}),
     "validate, test (the runner: `authoring/testing/`), init, verify (lints know the harness tool maps)"),
    ("cli", frozenset({"__main__", "app", "cli"}),
     "argv dispatch, the `cupcake eval` and `cupcake serve` drivers (they pick the harness), every typer command "
     "(`cli/`)"),
)  # fmt: skip
RANK = {unit: rank for rank, (_, units, _) in enumerate(LAYERS) for unit in units}
LAYER = {unit: name for name, units, _ in LAYERS for unit in units}

# (importing module, imported module) -> why it exists today and which issue removes it.
EXCEPTIONS: dict[tuple[str, str], str] = {}

# Only the command line may import these: the stages expose plain functions (issue 18).
CLI_ONLY = ("typer", "click")
CLI_PACKAGE = "cupcake_py.cli"


@functools.cache
def _modules() -> dict[str, pathlib.Path]:
    return modules(ROOT)


def _unit(module: str) -> str:
    """The top-level package or module of cupcake_py that `module` belongs to."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def _imports(module: str, path: pathlib.Path, known: dict[str, pathlib.Path]) -> Iterator[tuple[str, int]]:
    """(imported module, line) for every import statement in the file, at any depth, TYPE_CHECKING
    blocks included (tests/architecture/imports.py)."""
    return imports(module, path, known, type_checking=True)


@functools.cache
def import_graph() -> dict[tuple[str, str], list[int]]:
    """(importer, imported) -> lines, for imports between modules of cupcake_py."""
    known = _modules()
    edges: dict[tuple[str, str], list[int]] = {}
    for module, path in known.items():
        for target, line in _imports(module, path, known):
            if target.startswith("cupcake_py.") and target != module:
                edges.setdefault((module, target), []).append(line)
    return edges


def violations() -> dict[tuple[str, str], list[int]]:
    return {
        (src, dst): lines
        for (src, dst), lines in import_graph().items()
        if RANK[_unit(dst)] > RANK[_unit(src)]
    }


def test_every_package_has_a_layer() -> None:
    units = {_unit(m) for m in _modules()}
    assert units <= set(RANK), f"place these in LAYERS: {sorted(units - set(RANK))}"
    assert set(RANK) <= units, f"LAYERS names what does not exist: {sorted(set(RANK) - units)}"


def test_no_import_reaches_up_a_layer_except_the_named_ones() -> None:
    found = violations()
    new = {
        f"{src} ({LAYER[_unit(src)]}) imports {dst} ({LAYER[_unit(dst)]}) at line(s) {lines}"
        for (src, dst), lines in found.items()
        if (src, dst) not in EXCEPTIONS
    }
    assert not new, "imports against the layer order:\n" + "\n".join(sorted(new))


def test_every_exception_still_occurs() -> None:
    stale = set(EXCEPTIONS) - set(violations())
    assert not stale, f"these exceptions no longer occur, delete them: {sorted(stale)}"


def typer_importers() -> dict[str, list[int]]:
    """Modules outside cupcake_py/cli/ that import typer or click (any import, at any depth)."""
    known = _modules()
    found: dict[str, list[int]] = {}
    for module, path in known.items():
        if module == CLI_PACKAGE or module.startswith(CLI_PACKAGE + "."):
            continue
        for target, line in _imports(module, path, known):
            if target.split(".")[0] in CLI_ONLY:
                found.setdefault(module, []).append(line)
    return found


def test_only_the_cli_package_imports_typer() -> None:
    found = typer_importers()
    assert not found, "typer commands belong in cupcake_py/cli/ (the stages expose plain functions): " + \
        ", ".join(f"{m} line(s) {lines}" for m, lines in sorted(found.items()))


def test_the_typer_check_sees_a_stage_command(tmp_path: pathlib.Path) -> None:
    """A typer import inside a stage is found, a lazy one included; one in cli/ is not reported."""
    src = tmp_path / "m.py"
    src.write_text("import os\ndef register(app):\n    import typer.testing\nfrom click import echo\n")
    found = sorted((t, n) for t, n in _imports("cupcake_py.rego.m", src, {}) if t.split(".")[0] in CLI_ONLY)
    assert found == [("click", 4), ("typer.testing", 3)]
    cli_rego = _modules()["cupcake_py.cli.rego"]
    assert any(t == "typer" for t, _ in _imports("cupcake_py.cli.rego", cli_rego, _modules()))
    assert "cupcake_py.cli.rego" not in typer_importers()


def test_the_walker_sees_lazy_and_relative_imports(tmp_path: pathlib.Path) -> None:
    """The graph is only as good as the walker: imports inside functions, under
    TYPE_CHECKING and relative ones must all be found."""
    pkg = tmp_path / "cupcake_py" / "wasm"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    src = pkg / "mod.py"
    src.write_text(
        "TYPE_CHECKING = False\n"
        "if TYPE_CHECKING:\n    from cupcake_py.engine import x\n"
        "def f():\n    from ..host import engine\n    import cupcake_py.cli\n"
        "from . import other\n"
    )
    known = {"cupcake_py.wasm.other": src, "cupcake_py.host.engine": src}
    found = sorted(_imports("cupcake_py.wasm.mod", src, known))
    assert found == [
        ("cupcake_py.cli", 6), ("cupcake_py.engine", 3), ("cupcake_py.host.engine", 5),
        ("cupcake_py.wasm.other", 7),
    ]  # fmt: skip


def test_a_new_upward_import_is_caught() -> None:
    """The rank comparison flags an upward edge (ir importing plan) and allows a downward one."""
    assert RANK[_unit("cupcake_py.plan.planner")] > RANK[_unit("cupcake_py.ir.nodes")]
    assert RANK[_unit("cupcake_py.engine.bundle")] > RANK[_unit("cupcake_py.wasm")]


def _doc_rows(header: str) -> list[list[str]]:
    """Cells of the markdown table under `header` in docs/architecture.md's import-layer section."""
    text = (ROOT.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text.split("### Import layers", 1)[1].split("\n## ", 1)[0]
    if header not in section:
        return []
    table = section.split(header, 1)[1].split("\n\n", 1)[0]
    rows = [line.strip("|").split(" | ") for line in table.splitlines()[2:]]
    return [[c.strip() for c in row] for row in rows]


def _ticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


def _expand(name: str) -> list[str]:
    m = re.fullmatch(r"(.*)\{(.*)\}", name)
    return [m.group(1) + part for part in m.group(2).split(",")] if m else [name]


def test_the_docs_table_matches_the_exceptions() -> None:
    documented = set()
    for importer, imported, _why in _doc_rows("| importer | imports |"):
        for src in _ticked(importer):
            for dst in (d for t in _ticked(imported) for d in _expand(t)):
                documented.add(("cupcake_py." + src.removesuffix(".py").replace("/", "."), "cupcake_py." + dst))
    assert documented == set(EXCEPTIONS)
