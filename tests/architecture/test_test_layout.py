"""The layout of tests/ itself: every folder holding Python test modules is a package (so pytest
imports each test module under its own dotted name, `tests.<folder>.<module>`), and no two test
modules share a basename (a failure named `test_values.py` must say which one).

Folders of fixtures (corpora, example projects) without `test_*.py` files need no `__init__.py`.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def _test_modules(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("test_*.py") if "node_modules" not in p.parts)


def missing_inits(root: Path) -> list[str]:
    """Folders from each test module up to `root` that have no `__init__.py`."""
    missing = set()
    for module in _test_modules(root):
        folder = module.parent
        while True:
            if not (folder / "__init__.py").is_file():
                missing.add(folder.relative_to(root).as_posix())
            if folder == root:
                break
            folder = folder.parent
    return sorted(missing)


def duplicate_names(root: Path) -> dict[str, list[str]]:
    where: dict[str, list[str]] = defaultdict(list)
    for module in _test_modules(root):
        where[module.name].append(module.relative_to(root).as_posix())
    return {name: paths for name, paths in where.items() if len(paths) > 1}


def test_every_folder_with_test_modules_is_a_package_up_to_tests() -> None:
    assert len(_test_modules(TESTS)) > 100
    assert missing_inits(TESTS) == []


def test_test_module_basenames_are_unique() -> None:
    assert duplicate_names(TESTS) == {}, "test modules sharing a name: rename them for what they test"


def test_the_checks_find_a_missing_init_and_a_duplicate(tmp_path: Path) -> None:
    for folder in ("a", "b", "fixtures"):
        (tmp_path / folder).mkdir()
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "a" / "__init__.py").write_text("")
    (tmp_path / "a" / "test_x.py").write_text("")
    (tmp_path / "b" / "test_x.py").write_text("")
    (tmp_path / "fixtures" / "policy.py").write_text("")
    assert missing_inits(tmp_path) == ["b"]
    assert duplicate_names(tmp_path) == {"test_x.py": ["a/test_x.py", "b/test_x.py"]}
