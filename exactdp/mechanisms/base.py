"""What every mechanism description shares: name, parameters, claimed budget, sensitivity, the
neighbour relation and the kind of output; the one neighbour check; the display name.

Neighbouring inputs are given as query answers ``d1``, ``d2`` of equal length.  The relation is
one of three (Ding et al., CCS 2018, §5: "all differ" and "one differ"; Lyu, Su & Li,
PVLDB 2017, §4.3: monotone queries):

* ``ALL_DIFFER``: every answer moves by at most the sensitivity ``Δ``;
* ``ONE_DIFFER``: one answer moves by at most ``Δ`` (histograms, sums);
* ``MONOTONE``: every answer moves by at most ``Δ``, all in the same direction.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping

from ..errors import InputError
from ..sequences import Runs, format_number, zip_runs


class Neighbours(enum.Enum):
    """How the query answers of neighbouring inputs may differ (module docstring)."""

    ALL_DIFFER = "all differ"
    ONE_DIFFER = "one differ"
    MONOTONE = "monotone"


class OutputKind(enum.Enum):
    """The shape of a mechanism's output."""

    #: a vector of ⊤/⊥ (possibly cut off after the c-th ⊤)
    FLAGS = "flags"
    #: ⊥ or a released number at each position (possibly cut off)
    FLAGS_AND_NUMBERS = "flags and numbers"
    #: one index ``0..n−1``
    INDEX = "index"
    #: one number
    NUMBER = "number"
    #: a vector of numbers
    NUMBERS = "numbers"
    #: the set of selected indices (selection mechanisms known to ``exactdp utility`` only)
    SELECTION = "selected indices"

    @property
    def is_numeric(self) -> bool:
        """Whether the output contains released numbers (its probability is a density)."""
        return self in (OutputKind.FLAGS_AND_NUMBERS, OutputKind.NUMBER, OutputKind.NUMBERS)


@dataclass(frozen=True, kw_only=True)
class Mechanism:
    """Base of every mechanism description.

    Attributes
    ----------
    name : str
        Catalogue name.
    sensitivity : Fraction
        ``Δ``: how far a query answer may move between neighbouring inputs.
    neighbours : Neighbours
        Which pairs of answer vectors are neighbours.
    claimed_eps : Fraction or None
        The privacy budget the source claims (``None`` if it claims none).
    params : Mapping
        The user-facing parameters the description was built from (for display).
    """

    name: str
    sensitivity: Fraction = Fraction(1)
    neighbours: Neighbours = Neighbours.ALL_DIFFER
    claimed_eps: Fraction | None = None
    params: Mapping = field(default_factory=dict, compare=False)

    @property
    def output_kind(self) -> OutputKind:
        """The shape of the output (each family says)."""
        raise NotImplementedError

    @property
    def releases_numbers(self) -> bool:
        """True when an output contains released numbers (its probability is a density)."""
        return self.output_kind.is_numeric

    @property
    def query_origin(self) -> Fraction:
        """The value interesting query answers lie around (``exactdp search`` tries
        ``origin + k·Δ``): 0 unless the family says otherwise."""
        return Fraction(0)

    def neighbour_violation(self, d1: Runs, d2: Runs) -> str | None:
        """Why ``d1`` and ``d2`` are not neighbours for this mechanism (``None`` if they are).

        Both must have the same length; every answer moves by at most the sensitivity; with
        ``ONE_DIFFER`` only one answer moves, with ``MONOTONE`` all move the same way.
        """
        if len(d1) != len(d2):
            return "d1 and d2 have different lengths"
        directions, moved, position = set(), 0, 0
        for (a, b), count in zip_runs(d1, d2):
            if abs(a - b) > self.sensitivity:
                return (f"d1 and d2 are not neighbours: query {position + 1} differs by "
                        f"{format_number(abs(a - b))} > sensitivity "
                        f"{format_number(self.sensitivity)} ({format_number(a)} vs "
                        f"{format_number(b)})")
            if a != b:
                directions.add(a > b)
                moved += count
            position += count
        if self.neighbours is Neighbours.ONE_DIFFER and moved > 1:
            return (f"d1 and d2 are not neighbours for {self.name}: {moved} queries differ, but "
                    f"neighbours differ in one query only")
        if self.neighbours is Neighbours.MONOTONE and len(directions) > 1:
            return (f"d1 and d2 are not neighbours for {self.name} (monotone queries): queries "
                    f"move in both directions")
        return None

    def check_neighbours(self, d1: Runs, d2: Runs, allow_any_pair: bool = False) -> None:
        """Raise :class:`InputError` unless ``d1`` and ``d2`` are neighbours (see
        :meth:`neighbour_violation`); the message says how to compare any pair anyway.  With
        ``allow_any_pair`` only the equal length is required (it cannot be waived)."""
        if len(d1) != len(d2):
            raise InputError(f"d1 and d2 must have the same length, got {len(d1)} and {len(d2)}")
        problem = None if allow_any_pair else self.neighbour_violation(d1, d2)
        if problem is not None:
            raise InputError(f"{problem}; allow any pair (allow_any_pair=True, --any-pair) to "
                             f"compare them anyway")

    def __str__(self) -> str:
        shown = ", ".join(f"{key}={format_number(value) if isinstance(value, Fraction) else value}"
                          for key, value in self.params.items())
        return f"{self.name}({shown})"
