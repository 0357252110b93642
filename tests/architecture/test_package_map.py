"""docs/architecture.md's layer table and map of packages are generated (tests/architecture/package_map.py):
the committed text must equal what the layers and the package docstrings give now."""

from __future__ import annotations

import pathlib

import pytest

from tests.architecture import package_map


def test_the_generated_part_of_architecture_md_is_fresh() -> None:
    text = package_map.DOC.read_text(encoding="utf-8")
    assert package_map.updated(text) == text, f"docs/architecture.md is stale: run `{package_map.COMMAND}` and commit"


def test_the_map_shows_every_top_level_package_once() -> None:
    rows = package_map.package_map()[2:]
    shown = [row.split(" | ")[1].strip("`") for row in rows]
    on_disk = sorted(p.parent.name + "/" for p in package_map.ROOT.glob("*/__init__.py"))
    assert sorted(s for s in shown if s.endswith("/")) == on_disk


def test_a_package_without_a_docstring_is_refused(tmp_path: pathlib.Path) -> None:
    (tmp_path / "__init__.py").write_text("x = 1\n")
    with pytest.raises(ValueError, match="no docstring"):
        package_map.summary(tmp_path / "__init__.py")


def test_a_long_first_sentence_is_cut_at_a_clause(tmp_path: pathlib.Path) -> None:
    long = "Alpha " * 15 + "beta; " + "gamma " * 30 + "end. Second sentence."
    (tmp_path / "m.py").write_text(f'"""{long}"""\n')
    assert package_map.summary(tmp_path / "m.py") == "Alpha " * 14 + "Alpha beta …"
    (tmp_path / "m.py").write_text('"""Short one: with a | bar. More."""\n')
    assert package_map.summary(tmp_path / "m.py") == "Short one: with a \\| bar."
