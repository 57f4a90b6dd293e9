"""The events on a program's output, inferred from its return type as StatDP does.

A program returns a scalar, a tuple, a list or a 1-D array; its entries are the components
``out0``, ``out1``, … of the one event grammar (``exactdp.events``).  The kind of each entry is
read from sampled runs (``exactdp.programs.sampling``), as StatDP's ``run_algorithm`` reads it
from a sample run (Ding, Wang, Wang, Zhang & Kifer, "Detecting Violations of Differential
Privacy", CCS 2018, arXiv:1805.10277, §4.3):

* booleans and non-negative integers — one event ``outJ=k`` per value seen (``True`` is 1;
  booleans also read ``outJ=T``, ``outJ=F``);
* numbers (floats; integers mixed with floats; negative integers) — the half-lines
  ``outJ in (−inf, α)`` and ``outJ in (α, inf)`` for ten ``α`` over the densest 70% of the
  pilot sample (StatDP's grid, ``exactdp.events.numeric_grid``);
* numbers that are sometimes ``False`` or ``None`` (StatDP's iSVT4 returns ``out[-1]``, ⊥ or a
  released number) — the event ``outJ=F`` (⊥) and the half-lines.

A tuple's events are the products of its entries' events (StatDP's ``itertools.product``), at
most :data:`MAX_EVENTS` of them when the tester searches them (any event given explicitly is
accepted).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from ..errors import InputError
from ..events import GRID_POINTS, Coordinate, Index, LastEntry, View, sampled_view, view_of
from ..sampling.sampler import sample
from ..sequences import as_output
from .model import Program
from .sampling import BOOLEAN, INTEGER, NUMBER, ProgramSamples, entries

#: Largest product search space of a tuple output.
MAX_EVENTS = 10_000
#: Runs of the pilot that reads the entry kinds for ``view_of`` (``--event`` on the command line).
VIEW_PILOT_RUNS = 1000


def _entry(output, position: int):
    """Entry ``position`` of one output (an output string ``"2,1.5"`` or the program's return
    value); ``None`` past its end."""
    items = as_output(output).expand() if isinstance(output, str) else entries(output)
    if position >= len(items):
        return None
    item = items[position]
    return item.item() if isinstance(item, np.generic) else item


def _column(samples: ProgramSamples, position: int, kinds: tuple, fill):
    """Entry ``position`` of every run where its kind is in ``kinds``, ``fill`` elsewhere."""
    if position >= samples.values.shape[1]:
        return np.full(len(samples.values), fill)
    keep = np.isin(samples.kinds[:, position], kinds)
    return np.where(keep, samples.values[:, position], fill)


@dataclass(frozen=True)
class Category(Index):
    """Entry ``position``: a boolean or a non-negative integer, one event per value in
    ``observed``."""

    position: int = 0
    observed: tuple = ()
    booleans: bool = False

    def value(self, output) -> int | None:
        """The entry of one output as an integer (``None`` when absent or not an integer)."""
        entry = _entry(output, self.position)
        whole = isinstance(entry, (bool, int)) or (isinstance(entry, Fraction)
                                                  and entry.denominator == 1)
        return int(entry) if whole else None

    def column(self, samples: ProgramSamples) -> np.ndarray:
        """The entry of every run (−1 when absent or not an integer)."""
        return _column(samples, self.position, (BOOLEAN, INTEGER), -1).astype(np.int64)

    def values(self) -> tuple:
        """Every value seen in the pilot."""
        return self.observed


@dataclass(frozen=True)
class Number(Coordinate):
    """Entry ``position``: a number (NaN in a column when absent)."""

    position: int = 0

    def value(self, output):
        """The entry of one output."""
        return _entry(output, self.position)

    def column(self, samples: ProgramSamples) -> np.ndarray:
        """The entry of every run."""
        return _column(samples, self.position, (INTEGER, NUMBER), math.nan)


@dataclass(frozen=True)
class NumberOrBottom(LastEntry):
    """Entry ``position``: a number, or ⊥ (``False``/``None``), NaN in a column."""

    position: int = 0

    def value(self, output):
        """The entry of one output (``None`` for ⊥)."""
        entry = _entry(output, self.position)
        return None if entry is None or isinstance(entry, bool) else entry

    def column(self, samples: ProgramSamples) -> np.ndarray:
        """The entry of every run (NaN for ⊥)."""
        return _column(samples, self.position, (INTEGER, NUMBER), math.nan)


def _component(position: int, pilots: list[ProgramSamples]):
    kinds, values = set(), []
    for pilot in pilots:
        if position < pilot.kinds.shape[1]:
            column_kinds = pilot.kinds[:, position]
            kinds.update(int(k) for k in np.unique(column_kinds))
            values.append(pilot.values[:, position][np.isin(column_kinds, (BOOLEAN, INTEGER))])
    seen = np.unique(np.concatenate(values)) if values else np.array([])
    kinds.discard(0)
    if kinds <= {BOOLEAN, INTEGER} and (seen.size == 0 or seen.min() >= 0):
        return Category(len(seen), position, tuple(int(v) for v in seen), kinds == {BOOLEAN})
    if kinds <= {INTEGER, NUMBER}:
        return Number(position=position)
    return NumberOrBottom(position=position)


def program_view(pilots: list[ProgramSamples], searched: bool = True) -> View:
    """The :class:`~exactdp.events.View` of a program's output read from sampled runs: components
    ``out0``… and one search family, the product of every entry's events.

    ``searched``: the candidate events will be enumerated (the tester's search), so their
    number is limited to :data:`MAX_EVENTS`; an event given explicitly needs no such limit."""
    width = max(pilot.values.shape[1] for pilot in pilots)
    if width == 0:
        raise InputError("the program returned an empty output: there is no event to test")
    components = tuple((f"out{j}", _component(j, pilots)) for j in range(width))
    size = 1
    for _, component in components:
        size *= (len(component.values()) if isinstance(component, Category) else
                 2 * GRID_POINTS + isinstance(component, NumberOrBottom))
    if searched and size > MAX_EVENTS:
        raise InputError(f"the program's output has {width} entries: the product of their "
                         f"events has {size:,} events (at most {MAX_EVENTS:,}); return a "
                         f"statistic of the output (as StatDP's algorithms do) or give one event")
    return View(components, (tuple(name for name, _ in components),))


@sampled_view.register
def _(mech: Program, d1, pilots, searched: bool) -> View:
    return program_view(pilots(), searched)


@view_of.register
def _(mech: Program, d1) -> View:
    pilot = sample(mech, d1, VIEW_PILOT_RUNS, np.random.default_rng(0))
    return program_view([pilot], searched=False)

