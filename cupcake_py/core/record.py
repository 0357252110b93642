"""Plain data classes without `dataclasses` (its import costs every `cupcake eval` process
more than all the engine's own code): fields are the `__slots__`, `__init__` stays explicit.

`Record`: mutable, equal when of the same class with equal fields (unhashable, like a
dataclass). `FrozenRecord`: immutable and hashable as well. Both print like a dataclass.
"""

from __future__ import annotations


class Record:
    __slots__: tuple[str, ...] = ()

    def _fill(self, *values: object) -> None:
        """Set the fields in `__slots__` order."""
        for name, value in zip(self.__slots__, values, strict=True):
            object.__setattr__(self, name, value)

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __eq__(self, other: object) -> bool:
        if other.__class__ is self.__class__:
            return self._values() == other._values()
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # mutable: unhashable

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__qualname__}({fields})"


class FrozenRecord(Record):
    __slots__ = ()

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of an immutable {type(self).__name__}")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of an immutable {type(self).__name__}")

    def __hash__(self) -> int:  # type: ignore[override]  # Record's __hash__ is None (unhashable)
        return hash(self._values())

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:  # copy and pickle through __init__
        return (type(self), self._values())
