"""The coverage marks of `cupcake test --coverage`: what an instrumented policy prints before each
body expression (`instrument.instrument_module` adds the prints), and the lines that carry one.

In: a printed line. Out: `parse_mark(line)`: (file, row) for a mark, None for the policy's own
print output; `Coverable`: file -> rows that carry a mark (what a test run can cover). Imports
no AST, so a run served from the build cache reads marks without loading the Rego AST.
"""

from __future__ import annotations

from cupcake_py.core.record import Record

MARK = "\x1fcupcake-coverage\x1f"


class Coverable(Record):
    __slots__ = ("lines",)

    def __init__(self, lines: dict[str, set[int]] | None = None) -> None:
        self._fill({} if lines is None else lines)  # file -> rows that carry a mark

    lines: dict[str, set[int]]

    def add(self, file: str, row: int) -> None:
        self.lines.setdefault(file, set()).add(row)


def parse_mark(line: str) -> tuple[str, int] | None:
    if not line.startswith(MARK):
        return None
    file, _, row = line[len(MARK):].rpartition(":")
    return (file, int(row)) if row.isdigit() else None
