"""The project's own error types. Every user-facing failure is one of these."""

from __future__ import annotations

from dataclasses import dataclass


class CupcakeError(Exception):
    """Base class of every error cupcake-py raises on purpose."""


@dataclass(frozen=True)
class Location:
    file: str
    row: int
    col: int

    def __str__(self) -> str:
        return f"{self.file}:{self.row}:{self.col}"
