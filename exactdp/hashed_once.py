"""Frozen dataclasses whose hash is computed once.

An integral form is a dictionary key several times over (the distinct forms of a domain, the
forms an input's outputs read), and hashing it hashes every term, law and ``Fraction`` it
holds, each time.  :func:`hashed_once` keeps the first hash on the object.  The kept hash never
leaves the process: a copy or a pickle (a worker's task) carries the fields only, and computes
its hash again, since the hash of a string, hence of an enum member, differs between processes.
"""

from __future__ import annotations

from dataclasses import fields

#: The attribute that keeps the hash.
_HASH = "_hash_once"


def hashed_once(cls):
    """Decorate a frozen dataclass (after ``@dataclass``) so that ``hash`` of an instance is
    that of its fields' tuple, computed at the first call and kept."""
    names = tuple(field.name for field in fields(cls))

    def __hash__(self) -> int:
        kept = self.__dict__.get(_HASH)
        if kept is None:
            kept = hash(tuple(getattr(self, name) for name in names))
            object.__setattr__(self, _HASH, kept)
        return kept

    def __getstate__(self) -> dict:
        return {name: getattr(self, name) for name in names}

    cls.__hash__, cls.__getstate__ = __hash__, __getstate__
    return cls
