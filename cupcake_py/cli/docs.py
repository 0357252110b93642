"""`cupcake docs [PAGE]`: the documentation pages that `--help` and `--explain` point to
(`docs/<page>.md`), read from the checkout's docs/ or, in an installed wheel, from the copy it
carries (`cupcake_py/_docs`, pyproject.toml force-include), so a pointer never leads nowhere.

Out: the list of pages, or one page's markdown on stdout. Exit 2 for a page that does not exist
(with the closest name)."""

from __future__ import annotations

import sys
from pathlib import Path

import typer

from cupcake_py.cli import options


def docs_dir() -> Path:
    package = Path(__file__).resolve().parents[1]
    checkout = package.parent / "docs"
    return checkout if (checkout / "writing-policies.md").is_file() else package / "_docs"


def pages() -> dict[str, Path]:
    root = docs_dir()
    return {p.relative_to(root).with_suffix("").as_posix(): p for p in sorted(root.rglob("*.md"))
            if not p.relative_to(root).parts[0].startswith("_")}


def docs_cmd(
    page: str | None = typer.Argument(None, metavar="PAGE", help="A page: testing, rulebook, lint/README, … "
                                      "(a docs/ prefix and a .md suffix are accepted too).", show_default=False),
) -> None:
    """Print a documentation page (the TOPIC that --help and --explain name as `cupcake docs TOPIC`),
    or list them. The pages ship with cupcake (the checkout's docs/, or the wheel's copy).

    \b
    Examples:
      cupcake docs
      cupcake docs writing-policies | less
    """
    found = pages()
    if page is None:
        sys.stdout.write("".join(f"{name}\n" for name in found))
        return
    name = page.removeprefix("docs/").removesuffix(".md")
    if name not in found:
        from cupcake_py.authoring.findings import hint

        raise options.fail(f"no page {page!r}{hint(name, found)}; `cupcake docs` lists them")
    sys.stdout.write(found[name].read_text("utf-8"))


def register(app: typer.Typer) -> None:
    app.command("docs")(docs_cmd)
