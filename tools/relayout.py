"""Move cupcake_py's package-root modules into packages (issue 34) and rewrite every reference.

    python tools/relayout.py [--root DIR] [--check]

In: a git checkout (default: the one holding this script; run it with the checkout's own
.venv/bin/python, whose ruff sorts the rewritten imports). Out: the moves of MOVES done with
`git mv`, the new packages' `__init__.py` (PACKAGES) and the compatibility alias (ALIASES) written
and added, and every reference rewritten in the tracked text files: `from cupcake_py import
jsonio` (split when its names go to different packages), dotted names (`cupcake_py.fast_eval`,
`"cupcake_py.entry:main"` in pyproject.toml, `python -m cupcake_py...` in hook commands), paths
(`cupcake_py/errors.py`), bare file names that name one file only (`entry.py`), the layer table
(LAYERS in tests/architecture/test_import_layers.py) and the generated part of
docs/architecture.md (`python -m tests.architecture.package_map`). Nothing is committed.

Deterministic and idempotent: the same tree gives the same result, and a second run changes
nothing (a module already at its new place is not moved again; the patterns never match their own
output). `--check` changes nothing and exits 1 when a run would change something (0 when the
layout is done). Fails (exit 2, nothing half-done that a rerun cannot finish) when a module is
both at its old and its new place, or a `from cupcake_py import` inside a string mixes
destinations (it cannot be split there): fix that line by hand and rerun.
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
from pathlib import Path

# root module (under cupcake_py/) -> its new dotted place
MOVES: dict[str, str] = {
    **{m: f"core.{m}" for m in ("errors", "jsonio", "values", "record", "logs", "lazylog", "gc_pause", "userdirs",
                                "cache_mac", "termination", "yaml_values")},
    "entry": "app.entry", "fast_eval": "app.fast_eval", "serve": "app.serve",
    "custom_builtins": "extensions.builtins",
}  # fmt: skip

PACKAGES: dict[str, str] = {
    "core": '''"""Foundations every layer may import: error types (`errors`), records without dataclasses (`record`),
strict JSON (`jsonio`), logging (`logs`, `lazylog`), the user's directories (`userdirs`), Rego values
(`values`), YAML as OPA reads it (`yaml_values`), cache MACs (`cache_mac`), the GC pause for builds
(`gc_pause`) and termination signals turned into a fail-closed answer (`termination`).

The lowest layer: its modules import nothing of cupcake_py above it, and the ones on the `cupcake eval`
path keep to that path's rules (docs/architecture.md section 6). Importing this package imports nothing.
"""
''',
    "app": '''"""The application's entry points that never import typer: the console script (`entry`: argv
dispatch), `cupcake eval` (`fast_eval`: one event in, one answer out) and `cupcake serve` (`serve`: a
warm evaluator). They pick the harness and hand it to the engine; every other command goes to the
typer app in cupcake_py/cli/ (imported by `entry` only for those). The import-diet tests
(tests/engine/test_import_diet*.py) keep typer, click and cupcake_py.cli off this path.
Importing this package imports nothing.
"""
''',
    "extensions": '''"""Extension points: what a project plugs into cupcake-py. `builtins`: Rego builtin functions written
in Python (docs/custom-builtins.md), named by `--custom-builtins`, the rulebook's `custom_builtins:`
or the entry-point group `cupcake_py.builtins`. Importing this package imports nothing.
"""
''',
}

# old module kept as an alias of its new place: projects' own builtin modules import it by that name
ALIASES: dict[str, str] = {
    "custom_builtins": '''"""The extension point's first public name, kept as an alias: projects' builtin modules written
before it moved import `builtin` and `BuiltinError` from here. Everything is extensions/builtins.py's
(docs/custom-builtins.md); this module holds nothing of its own.
"""

from cupcake_py.extensions.builtins import *  # noqa: F403
from cupcake_py.extensions.builtins import __all__ as __all__
''',
}

RENAMED_LAYERS = {"custom_builtins": "extensions"}
LAYERS_FILE = "tests/architecture/test_import_layers.py"
# never rewritten: this script and its test hold the old names on purpose
SKIP = {"tools/relayout.py", "tests/architecture/test_relayout.py"}

_NAME = r"[A-Za-z_]\w*(?: as [A-Za-z_]\w*)?"
_FROM = re.compile(rf"(?P<lead>^[ \t]*)?from cupcake_py import (?P<names>{_NAME}(?:, {_NAME})*)", re.M)


class RelayoutError(Exception):
    pass


def _git(root: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=root, check=True, capture_output=True, text=True).stdout


def _path(dotted: str) -> str:
    return "cupcake_py/" + dotted.replace(".", "/") + ".py"


def _from_import(m: re.Match[str]) -> str:
    """`from cupcake_py import a, b as c` with each moved name taken from its new package."""
    groups: dict[str, list[str]] = {}
    for item in m.group("names").split(", "):
        name, _, alias = item.partition(" as ")
        new = MOVES.get(name)
        package, base = ("cupcake_py." + new.rpartition(".")[0], new.rpartition(".")[2]) if new else ("cupcake_py", name)
        shown = alias or (name if base != name else "")
        groups.setdefault(package, []).append(base + (f" as {shown}" if shown and shown != base else ""))
    if list(groups) == ["cupcake_py"]:
        return m.group(0)
    lead = m.group("lead")
    if len(groups) > 1 and lead is None:
        raise RelayoutError(f"cannot split inside a string: {m.group(0)!r}")
    return "\n".join(f"{lead or ''}from {package} import {', '.join(names)}" for package, names in sorted(groups.items()))


def _bare_names(root: Path, files: list[str]) -> dict[str, str]:
    """Moved modules whose file name is no other tracked file's: `entry.py` -> `app/entry.py`."""
    out = {}
    for old, new in MOVES.items():
        others = [f for f in files if f.rpartition("/")[2] == f"{old}.py" and f not in (_path(old), _path(new))]
        if not others and old not in ALIASES:
            out[old] = new.replace(".", "/") + ".py"
    return out


def rewrite(text: str, bare: dict[str, str]) -> str:
    """Every reference to a moved module in one file's text, rewritten."""
    text = _FROM.sub(_from_import, text)
    names = "|".join(sorted(MOVES, key=len, reverse=True))
    text = re.sub(rf"(?<![\w.])cupcake_py\.({names})(?!\w)", lambda m: "cupcake_py." + MOVES[m.group(1)], text)
    text = re.sub(rf"(?<![\w.-])cupcake_py/({names})\.py(?!\w)", lambda m: _path(MOVES[m.group(1)]), text)
    if bare:
        pattern = "|".join(sorted(bare, key=len, reverse=True))
        text = re.sub(rf"(?<![\w/.-])({pattern})\.py(?!\w)", lambda m: bare[m.group(1)], text)
    return text


def _unit(unit: str) -> str:
    return MOVES[unit].split(".")[0] if unit in MOVES else unit


def rewrite_layers(text: str) -> str:
    """LAYERS' units and names at the new places (the other text of the file is `rewrite`'s)."""
    tree = ast.parse(text)
    lines = text.splitlines(keepends=True)
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line))
    edits: list[tuple[int, int, str]] = []

    def span(node: ast.expr) -> tuple[int, int]:
        assert node.end_lineno is not None and node.end_col_offset is not None
        start = offsets[node.lineno - 1] + len(lines[node.lineno - 1].encode()[: node.col_offset].decode())
        end = offsets[node.end_lineno - 1] + len(lines[node.end_lineno - 1].encode()[: node.end_col_offset].decode())
        return start, end

    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if not any(isinstance(t, ast.Name) and t.id == "LAYERS" for t in targets):
                continue
            assert isinstance(node.value, ast.Tuple)
            for row in node.value.elts:
                assert isinstance(row, ast.Tuple)
                name, units = row.elts[0], row.elts[1]
                assert isinstance(name, ast.Constant) and isinstance(units, ast.Call) and isinstance(units.args[0], ast.Set)
                old = {e.value for e in units.args[0].elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
                new = {_unit(u) for u in old} | {u for u in old if u in ALIASES}
                if new != old:
                    edits.append((*span(units), "frozenset({" + ", ".join(f'"{u}"' for u in sorted(new)) + "})"))
                if isinstance(name.value, str) and name.value in RENAMED_LAYERS:
                    edits.append((*span(name), f'"{RENAMED_LAYERS[name.value]}"'))
    for start, end, new_text in sorted(edits, reverse=True):
        text = text[:start] + new_text + text[end:]
    return text


def plan_moves(root: Path) -> list[tuple[str, str]]:
    moves = []
    for old, new in MOVES.items():
        src, dst = root / _path(old), root / _path(new)
        if src.exists() and dst.exists() and old not in ALIASES:
            raise RelayoutError(f"{_path(old)} and {_path(new)} both exist: merge them by hand, then rerun")
        if src.exists() and not dst.exists():
            moves.append((_path(old), _path(new)))
    return moves


def run(root: Path, check: bool) -> list[str]:
    """What changed (or would change, with `check`)."""
    changed = []
    moves = plan_moves(root)
    files = _git(root, "ls-files").splitlines()
    for package, doc in PACKAGES.items():
        init = f"cupcake_py/{package}/__init__.py"
        if not (root / init).exists():
            changed.append(f"create {init}")
            if not check:
                (root / init).parent.mkdir(parents=True, exist_ok=True)
                (root / init).write_text(doc, encoding="utf-8")
                _git(root, "add", init)
    for src, dst in moves:
        changed.append(f"move {src} -> {dst}")
        if not check:
            _git(root, "mv", src, dst)
    for old, text in ALIASES.items():
        if not (root / _path(old)).exists() and (check or (root / _path(MOVES[old])).exists()):
            changed.append(f"alias {_path(old)}")
            if not check:
                (root / _path(old)).write_text(text, encoding="utf-8")
                _git(root, "add", _path(old))
    files = sorted(set(_git(root, "ls-files").splitlines()) | {dst for _, dst in moves})
    bare = _bare_names(root, files)
    aliases = {_path(a) for a in ALIASES}
    touched_py = []
    for rel in files:
        path = root / rel
        if rel in SKIP or rel in aliases or "node_modules/" in rel or not path.is_file() or path.is_symlink():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        new = rewrite(text, bare)
        if rel == LAYERS_FILE:
            new = rewrite_layers(new)
        if new != text:
            changed.append(f"rewrite {rel}")
            if not check:
                path.write_text(new, encoding="utf-8")
                if rel.endswith(".py"):
                    touched_py.append(rel)
    if not check and touched_py:
        subprocess.run([sys.executable, "-m", "ruff", "check", "--fix", "--quiet", "--select", "I", *touched_py],
                       cwd=root, check=False)
    if not check and (root / "tests/architecture/package_map.py").exists():
        subprocess.run([sys.executable, "-m", "tests.architecture.package_map"], cwd=root, check=True)
    return changed


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", type=Path, default=Path(__file__).resolve().parents[1])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 when a run would")
    args = parser.parse_args(argv)
    try:
        changed = run(args.root.resolve(), args.check)
    except RelayoutError as e:
        print(f"relayout: {e}", file=sys.stderr)
        return 2
    for line in changed:
        print(line)
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
