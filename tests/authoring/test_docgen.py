"""The generated docs (docgen.PAGES: lint index, rulebook, builtin policies, writing-policies) match what
the code generates now; a stale page fails with the command that regenerates it."""

from __future__ import annotations

from pathlib import Path

from cupcake_py.authoring import docgen


def test_generated_docs_are_current() -> None:
    old = docgen.stale()
    assert not old, f"stale generated docs {old}: regenerate with `{docgen.COMMAND}` and commit"


def test_a_stale_page_is_detected(tmp_path: Path) -> None:
    assert set(docgen.write(tmp_path)) == set(docgen.PAGES)
    assert docgen.stale(tmp_path) == []
    page = tmp_path / "docs/lint/README.md"
    page.write_text(page.read_text() + "hand edit\n")
    assert docgen.stale(tmp_path) == ["docs/lint/README.md"]
