"""Immutable records for what a bot loads before its first answer.

A bot's start-up is part of every game it plays, and importing
`dataclasses` (with `inspect`, `ast` and `tokenize` behind it) took a
third of a bare Python bot's whole start-up, so the few records a bot
needs to answer (the search bots' `Weights`, `Budget`, `MctsConfig`, the evolved
bot's `Genome`) are `Record`s: a
frozen dataclass's equality, hashing, repr and pickling, by the fields
named in `__slots__`, in the order the constructor takes them.
"""

from __future__ import annotations

__all__ = ["Record"]


class Record:
    """Fields are `__slots__`, set once in `__init__` through `_set`;
    assigning one later raises AttributeError, as a frozen dataclass does."""

    __slots__: tuple[str, ...] = ()

    def _set(self, **fields: object) -> None:
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    def _values(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self.__slots__)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"cannot assign to field {name!r} of a {type(self).__name__}: it is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"cannot delete field {name!r} of a {type(self).__name__}: it is immutable")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Record) or type(other) is not type(self):
            return NotImplemented
        return self._values() == other._values()

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__name__}({fields})"

    def __reduce__(self) -> tuple[type, tuple[object, ...]]:
        return type(self), self._values()
