"""The project's own error types. Every user-facing failure is one of these."""

from __future__ import annotations


class CupcakeError(Exception):
    """Base class of every error cupcake-py raises on purpose."""


class Location:
    """Where something is in a source file (1-based row and column). Immutable, compared and
    hashed by (file, row, col). Deliberately without __slots__: the lexer fills `__dict__`
    directly (cheaper than __init__ once per AST node)."""

    __match_args__ = ("file", "row", "col")
    file: str
    row: int
    col: int

    def __init__(self, file: str, row: int, col: int) -> None:
        d = self.__dict__
        d["file"], d["row"], d["col"] = file, row, col

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of an immutable Location")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of an immutable Location")

    def _key(self) -> tuple[str, int, int]:
        return (self.file, self.row, self.col)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._key() == other._key()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._key())

    def __repr__(self) -> str:
        return f"Location(file={self.file!r}, row={self.row!r}, col={self.col!r})"

    def __str__(self) -> str:
        return f"{self.file}:{self.row}:{self.col}"


class EventError(CupcakeError):
    """The event on stdin is not a valid event of the selected harness; the message says where
    and why."""
