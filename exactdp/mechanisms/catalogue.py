"""The catalogue registry: names, sources, parameters and validation.

Each mechanism module declares its entries with :func:`register`; :func:`mechanism` validates the
user's parameters and builds the :class:`~exactdp.mechanisms.description.ThresholdMechanism`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Callable, Mapping

from ..errors import InputError
from ..registry import Registry
from ..sequences import to_fraction

#: Marker for an infinite budget (``eps2=inf``: no query noise).
INF = math.inf


@dataclass(frozen=True)
class Param:
    """One parameter of a catalogue entry.

    ``kind`` is ``"budget"`` (a positive number; ``inf`` only if ``allow_inf``; 0 only if
    ``allow_zero``), ``"count"`` (a positive integer), ``"real"`` (a finite number),
    ``"integer"`` (a finite integer), ``"flag"``.
    """

    name: str
    kind: str
    default: object
    help: str
    allow_inf: bool = False
    allow_zero: bool = False

    def convert(self, value: object) -> object:
        """Validate and convert a user value (Python object or CLI string)."""
        if self.kind == "flag":
            return _to_flag(self.name, value)
        if self.kind == "count":
            return to_count(self.name, value)
        if self.kind == "real":
            return to_fraction(value, self.name)
        if self.kind == "integer":
            number = to_fraction(value, self.name)
            if number.denominator != 1:
                raise InputError(f"{self.name} must be an integer, got {self.name}={value}")
            return number
        return self._to_budget(value)

    def _to_budget(self, value: object) -> object:
        text = str(value).strip().lower() if isinstance(value, (str, float)) else None
        if text in {"inf", "+inf", "infinity"}:
            if self.allow_inf:
                return INF
            raise InputError(f"{self.name} must be finite, got {self.name}={value}")
        if text == "nan" or (isinstance(value, float) and math.isnan(value)):
            raise InputError(f"{self.name} must be a positive number, got {self.name}={value}")
        number = to_fraction(value, self.name)
        if number < 0 or (number == 0 and not self.allow_zero):
            bound = "non-negative" if self.allow_zero else "positive"
            raise InputError(f"{self.name} must be {bound}, got {self.name}={value}")
        return number


def _to_flag(name: str, value: object) -> bool:
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in {"true", "1", "yes"}:
        return True
    if isinstance(value, str) and value.strip().lower() in {"false", "0", "no"}:
        return False
    raise InputError(f"{name} must be true or false, got {name}={value!r}")


def to_count(name: str, value: object) -> int:
    """``value`` (an integer, or its spelling) as a positive ``int``, else
    :class:`~exactdp.errors.InputError` naming ``name``."""
    if isinstance(value, bool):
        raise InputError(f"{name} must be a positive integer, got {name}={value!r}")
    number = to_fraction(value, name)
    if number.denominator != 1 or number <= 0:
        raise InputError(f"{name} must be a positive integer, got {name}={value}")
    return int(number)


@dataclass(frozen=True)
class CatalogueEntry:
    """A named mechanism family: where it comes from, its parameters, how to build it."""

    name: str
    source: str
    summary: str
    params: tuple[Param, ...]
    build: Callable[[Mapping[str, object]], object]
    claimed: str
    true_privacy: str
    #: a selection mechanism for ``exactdp utility`` only (no exact probability of its outputs)
    utility_only: bool = False

    def make(self, **given: object):
        """Validate ``given`` against :attr:`params`, fill defaults and build the mechanism."""
        known = {param.name: param for param in self.params}
        unknown = sorted(set(given) - set(known))
        if unknown:
            allowed = ", ".join(known) or "none"
            raise InputError(f"unknown parameter for {self.name}: {unknown[0]} "
                             f"(allowed: {allowed})")
        values = {name: (param.convert(given[name]) if name in given else param.default)
                  for name, param in known.items()}
        return self.build(values)


_CATALOGUE: Registry[CatalogueEntry] = Registry("mechanism")


def register(entry: CatalogueEntry) -> CatalogueEntry:
    """Add an entry to the catalogue (names are unique)."""
    return _CATALOGUE.add(entry.name, entry)


def catalogue() -> tuple[CatalogueEntry, ...]:
    """Every entry with exact output probabilities, in registration order."""
    return tuple(item for item in _CATALOGUE.items() if not item.utility_only)


def utility_catalogue() -> tuple[CatalogueEntry, ...]:
    """The selection mechanisms known to ``exactdp utility`` only (``em_top``,
    ``svt_retraversal``): their utility is exact, the probability of one output is not
    implemented."""
    return tuple(item for item in _CATALOGUE.items() if item.utility_only)


def entry(name: str) -> CatalogueEntry:
    """The entry called ``name`` (an :class:`InputError` naming the choices otherwise)."""
    return _CATALOGUE.get(name)


def mechanism(name: str, **params: object):
    """Build the catalogue mechanism ``name`` with validated parameters.

    Examples
    --------
    >>> from exactdp import mechanism
    >>> mechanism("svt1", eps=1, c=2).query_scale
    Fraction(8, 1)
    """
    return entry(name).make(**params)
