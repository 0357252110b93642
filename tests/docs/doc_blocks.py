"""The shell examples of README.md and docs/*.md, as the docs test runs them.

A fenced block with the info string `sh` runs; `sh norun: REASON` is skipped (the reason is
required); an `output` block right after a `sh` block is its expected stdout, where a line
`...` matches any number of lines (and `...` inside a line any text). Any other block that looks like a shell session (its first
line starts with `cupcake ` or `$ `) is an error: tag it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

FENCE = re.compile(r"^```([^\n`]*)\n(.*?)^```[ \t]*$", re.M | re.S)
NORUN = re.compile(r"^sh norun: \S")


@dataclass(frozen=True)
class Block:
    page: str
    line: int
    code: str
    expected: str | None


def blocks(page: Path, root: Path) -> tuple[list[Block], list[str]]:
    """(runnable blocks in order, problems) of one page."""
    text = page.read_text("utf-8")
    rel = str(page.relative_to(root))
    found = list(FENCE.finditer(text))
    out: list[Block] = []
    problems: list[str] = []
    for i, m in enumerate(found):
        info, body = m.group(1).strip(), m.group(2)
        line = text.count("\n", 0, m.start()) + 1
        if info == "sh":
            nxt = found[i + 1] if i + 1 < len(found) else None
            expected = None
            if nxt is not None and nxt.group(1).strip() == "output" and not text[m.end():nxt.start()].strip():
                expected = nxt.group(2)
            out.append(Block(rel, line, body, expected))
        elif info.startswith("sh "):
            if not NORUN.match(info):
                problems.append(f"{rel}:{line}: `{info}`: use `sh` or `sh norun: REASON`")
        elif info not in ("output",) and re.match(r"(cupcake |\$ )", body):
            problems.append(f"{rel}:{line}: a shell example tagged `{info}`: tag it `sh` (run) or "
                            "`sh norun: REASON`")
    return out, problems


def matches(expected: str, actual: str) -> bool:
    """Line by line after trimming trailing spaces; a line `...` matches any number of lines,
    `...` inside a line any text."""
    want = [ln.rstrip() for ln in expected.strip("\n").splitlines()]
    got = [ln.rstrip() for ln in actual.strip("\n").splitlines()]
    pattern = "".join(r"(?:.*\n)*?" if w == "..." else re.escape(w).replace(re.escape("..."), ".*") + r"\n"
                      for w in want)
    return re.fullmatch(pattern, "".join(g + "\n" for g in got)) is not None


def pages(root: Path) -> list[Path]:
    return [root / "README.md", *sorted(p for p in (root / "docs").rglob("*.md") if "_parts" not in p.parts)]
