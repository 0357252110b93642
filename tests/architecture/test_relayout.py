"""tools/relayout.py on a small checkout of its own: the moves are made with git, every kind of
reference is rewritten, and a second run changes nothing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = Path(__file__).resolve().parents[2] / "tools" / "relayout.py"

FILES = {
    "cupcake_py/__init__.py": '"""root."""\n__version__ = "0"\n',
    "cupcake_py/errors.py": '"""errors."""\nclass CupcakeError(Exception):\n    pass\n',
    "cupcake_py/jsonio.py": '"""json."""\nfrom cupcake_py import errors\n',
    "cupcake_py/entry.py": '"""entry (see cupcake_py/fast_eval.py)."""\nfrom cupcake_py.fast_eval import main\n',
    "cupcake_py/fast_eval.py": '"""eval."""\ndef main() -> int:\n    return 0\n',
    "cupcake_py/custom_builtins.py": '"""ext."""\n__all__ = ["builtin"]\n\n\ndef builtin() -> None:\n    pass\n',
    "cupcake_py/engine/__init__.py": '"""engine."""\n',
    "cupcake_py/engine/x.py": (
        '"""x."""\n'
        "from cupcake_py import __version__, errors as E, jsonio\n"
        "import cupcake_py.entry\n"
        "PROBE = \"import sys\\nfrom cupcake_py import jsonio\\n\"\n"
        "def f() -> None:\n"
        "    from cupcake_py import custom_builtins\n"
    ),
    "pyproject.toml": '[project.scripts]\ncupcake = "cupcake_py.entry:main"\n',
    "plugin.ts": 'const cmd = "python -m cupcake_py.fast_eval --harness opencode";\n',
    "docs/a.md": "`entry.py` dispatches; `cupcake_py/errors.py`; `examples/custom_builtins.py`; test_errors.py\n",
    "examples/custom_builtins.py": "from cupcake_py.custom_builtins import builtin\n",
    "tests/architecture/test_import_layers.py": (
        "LAYERS: tuple[tuple[str, frozenset[str], str], ...] = (\n"
        '    ("base", frozenset({"__init__", "errors",\n'
        '                        "jsonio"}), "foundations"),\n'
        '    ("custom_builtins", frozenset({"custom_builtins"}), "extension"),\n'
        '    ("engine", frozenset({"engine"}), "engine"),\n'
        '    ("cli", frozenset({"entry", "fast_eval"}), "command line"),\n'
        ")\n"
    ),
}


def _run(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), "--root", str(root), *args], capture_output=True, text=True,
                          timeout=120)


def _checkout(root: Path) -> None:
    for rel, text in FILES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t.invalid"]
    subprocess.run([*git, "init", "-q"], cwd=root, check=True)
    subprocess.run([*git, "add", "-A"], cwd=root, check=True)
    subprocess.run([*git, "commit", "-qm", "before"], cwd=root, check=True)


def test_moves_rewrites_and_a_second_run_changes_nothing(tmp_path: Path) -> None:
    _checkout(tmp_path)
    assert _run(tmp_path, "--check").returncode == 1  # work to do, nothing done
    assert subprocess.run(["git", "status", "--porcelain"], cwd=tmp_path, capture_output=True, text=True).stdout == ""
    first = _run(tmp_path)
    assert first.returncode == 0, first.stderr
    read = {rel: (tmp_path / rel).read_text() for rel in FILES if (tmp_path / rel).exists()}
    core = tmp_path / "cupcake_py"
    assert (core / "core/errors.py").is_file() and (core / "core/__init__.py").is_file()
    assert (core / "app/entry.py").is_file() and (core / "extensions/builtins.py").is_file()
    assert not (core / "errors.py").exists() and not (core / "entry.py").exists()
    status = subprocess.run(["git", "status", "--porcelain"], cwd=tmp_path, capture_output=True, text=True).stdout
    assert "R  cupcake_py/errors.py -> cupcake_py/core/errors.py" in status  # a git move, history kept
    assert (core / "core/jsonio.py").read_text() == '"""json."""\nfrom cupcake_py.core import errors\n'
    x = read["cupcake_py/engine/x.py"]
    assert "from cupcake_py import __version__\n" in x  # split by destination, then sorted by ruff
    assert "from cupcake_py.core import errors as E\n" in x and "from cupcake_py.core import jsonio\n" in x
    assert "import cupcake_py.app.entry\n" in x and '\\nfrom cupcake_py.core import jsonio\\n"' in x
    assert "    from cupcake_py.extensions import builtins as custom_builtins\n" in x
    assert (core / "app/entry.py").read_text().endswith("from cupcake_py.app.fast_eval import main\n")
    assert read["pyproject.toml"].endswith('cupcake = "cupcake_py.app.entry:main"\n')
    assert "python -m cupcake_py.app.fast_eval --harness" in read["plugin.ts"]
    assert read["docs/a.md"] == ("`app/entry.py` dispatches; `cupcake_py/core/errors.py`; `examples/custom_builtins.py`; "
                                 "test_errors.py\n")
    assert read["examples/custom_builtins.py"] == "from cupcake_py.extensions.builtins import builtin\n"
    # projects' own builtin modules keep working: the old name is an alias of the new place
    assert "from cupcake_py.extensions.builtins import *" in (core / "custom_builtins.py").read_text()
    layers = read["tests/architecture/test_import_layers.py"]
    assert '("base", frozenset({"__init__", "core"}), "foundations")' in layers
    assert '("extensions", frozenset({"custom_builtins", "extensions"}), "extension")' in layers
    assert '("cli", frozenset({"app"}), "command line")' in layers
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, check=True)
    second = _run(tmp_path)
    assert second.returncode == 0 and second.stdout == "", second.stdout + second.stderr
    assert subprocess.run(["git", "diff", "--cached", "--stat"], cwd=tmp_path, capture_output=True, text=True).stdout
    assert subprocess.run(["git", "diff", "--stat"], cwd=tmp_path, capture_output=True, text=True).stdout == ""
    assert _run(tmp_path, "--check").returncode == 0


def test_a_module_at_both_places_is_refused(tmp_path: Path) -> None:
    _checkout(tmp_path)
    (tmp_path / "cupcake_py/core").mkdir()
    (tmp_path / "cupcake_py/core/errors.py").write_text("")
    proc = _run(tmp_path)
    assert proc.returncode == 2 and "both exist" in proc.stderr
    assert (tmp_path / "cupcake_py/errors.py").is_file()  # nothing moved
