"""Generated documentation: every page here is made from the code, never edited by hand.

In: the lint rule table (authoring/findings.py), the pydantic rulebook models
(engine/rulebook.py), the builtin policies' METADATA (policies/builtins/*.rego) and the
hand-written parts under docs/_parts/. Out: the pages of PAGES (paths relative to the
repository root). `python -m cupcake_py.authoring.docgen` rewrites them; `--check` exits 1
naming every stale page (the tests run the check). Only works in a checkout (docs/ is not
part of the wheel)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from cupcake_py.authoring.docgen.page import COMMAND, REPO

__all__ = ["COMMAND", "PAGES", "REPO", "stale", "write"]


def _lint_index() -> str:
    from cupcake_py.authoring.docgen.lint_index import render

    return render()


def _rulebook() -> str:
    from cupcake_py.authoring.docgen.rulebook_doc import render

    return render()


def _builtin_policies() -> str:
    from cupcake_py.authoring.docgen.builtin_policies_doc import render

    return render()


def _writing_policies() -> str:
    from cupcake_py.authoring.docgen.policy_input import render

    return render()


PAGES: dict[str, Callable[[], str]] = {
    "docs/lint/README.md": _lint_index,
    "docs/rulebook.md": _rulebook,
    "docs/builtin-policies.md": _builtin_policies,
    "docs/writing-policies.md": _writing_policies,
}


def stale(root: Path = REPO) -> list[str]:
    """The pages whose committed text differs from what the code generates."""
    out = []
    for rel, make in PAGES.items():
        path = root / rel
        current = path.read_text("utf-8") if path.is_file() else None
        if current != make():
            out.append(rel)
    return out


def write(root: Path = REPO) -> list[str]:
    """Regenerate every page; the ones that changed."""
    changed = []
    for rel, make in PAGES.items():
        path = root / rel
        text = make()
        if not path.is_file() or path.read_text("utf-8") != text:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, "utf-8")
            changed.append(rel)
    return changed
