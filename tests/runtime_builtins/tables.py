"""Shared runner for the table-driven builtin tests: (builtin, Rego-literal args, want)
where want is the JSON form of the result (sets as sorted arrays) or UNDEFINED."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from .harness import Runtime

UNDEFINED = object()

Row = tuple[str, tuple[str, ...], Any]


def row_id(row: Row) -> str:
    name, args, _ = row
    return f"{name}({', '.join(args)})"[:90]


def same(got: Any, want: Any) -> bool:
    """Equality that keeps 1 and 1.0 equal but distinguishes True from 1."""
    if isinstance(want, bool) or isinstance(got, bool):
        return type(got) is type(want) and got == want
    if isinstance(want, int | Decimal) and isinstance(got, int | Decimal):
        return Decimal(got) == Decimal(want)
    if isinstance(want, list) and isinstance(got, list):
        return len(got) == len(want) and all(same(g, w) for g, w in zip(got, want, strict=True))
    if isinstance(want, dict) and isinstance(got, dict):
        return got.keys() == want.keys() and all(same(got[k], want[k]) for k in want)
    return type(got) is type(want) and got == want


def check(rt: Runtime, row: Row) -> None:
    name, args, want = row
    got = rt.call(name, *args)
    if want is UNDEFINED:
        assert got is None, f"{row_id(row)}: want undefined, got {got!r}"
    else:
        assert got is not None and same(got, want), f"{row_id(row)}: want {want!r}, got {got!r}"
