"""The project's own error types. Every user-facing failure is one of these."""

from __future__ import annotations


class CupcakeError(Exception):
    """Base class of every error cupcake-py raises on purpose."""


class Location:
    """Where something is in a source file (1-based row and column). Immutable, compared and
    hashed by (file, row, col). Slotted (56 bytes, against 152 with an instance dict: one
    Location per AST node, half a million in a 10,000-policy build); the lexer makes them with
    `new_location`, which skips __init__ and __setattr__."""

    __slots__ = ("file", "row", "col")
    __match_args__ = ("file", "row", "col")
    file: str
    row: int
    col: int

    def __init__(self, file: str, row: int, col: int) -> None:
        _set_file(self, file)
        _set_row(self, row)
        _set_col(self, col)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of an immutable Location")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of an immutable Location")

    def _key(self) -> tuple[str, int, int]:
        return (self.file, self.row, self.col)

    def __reduce__(self) -> tuple[type[Location], tuple[str, int, int]]:  # copy, deepcopy, pickle
        return (Location, self._key())

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


_set_file, _set_row, _set_col = (vars(Location)[name].__set__ for name in ("file", "row", "col"))  # slot setters
_new = object.__new__


def new_location(file: str, row: int, col: int) -> Location:
    """Location(file, row, col), without the cost of a Python-level __init__ call."""
    loc = _new(Location)
    _set_file(loc, file)
    _set_row(loc, row)
    _set_col(loc, col)
    return loc


class EventError(CupcakeError):
    """The event on stdin is not a valid event of the selected harness; the message says where
    and why."""
