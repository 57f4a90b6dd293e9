"""A registry of named declarations (the mechanism catalogue, the claims), in registration order."""

from __future__ import annotations

from typing import Generic, TypeVar

from .errors import InputError

T = TypeVar("T")


class Registry(Generic[T]):
    """Named items in registration order.

    A duplicate name is a programming error (``RuntimeError``); looking up an unknown name is a
    user's error (:class:`~exactdp.errors.InputError` naming the choices).

    Parameters
    ----------
    what : str
        What the items are, for messages (``"mechanism"``, ``"claim id"``).
    """

    def __init__(self, what: str):
        self.what = what
        self._items: dict[str, T] = {}

    def add(self, name: str, item: T) -> T:
        """Register ``item`` under ``name`` and return it."""
        if name in self._items:
            raise RuntimeError(f"duplicate {self.what} {name}")
        self._items[name] = item
        return item

    def names(self) -> tuple[str, ...]:
        """Every name, in registration order."""
        return tuple(self._items)

    def items(self) -> tuple[T, ...]:
        """Every item, in registration order."""
        return tuple(self._items.values())

    def get(self, name: str) -> T:
        """The item called ``name``."""
        try:
            return self._items[name]
        except KeyError:
            raise InputError(f"unknown {self.what} {name!r} "
                             f"(known: {', '.join(self._items)})") from None
