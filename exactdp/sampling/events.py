"""What the tester observes of an output, and the events it searches (Ding et al. 2018, §4.3).

A :class:`View` names the *components* of a mechanism's (post-processed) output — a count, a
number, the raw ⊤/⊥ vector — and says which products of components form the search space.  An
:class:`Event` is a conjunction of conditions on components (``false_count=3 & last in (-inf,
2.5)``).  The same objects are read by the sampler side (:meth:`Event.mask` on many runs at once)
and by the exact side (``exactdp.exact.events``).

Views (spec §2 last bullet, seed 001 §4.3):

* StatDP's SVT: the number of ⊥ (``false_count``); iSVT1–3: the Hamming distance to ⊤ on the first
  ⌊n/2⌋ positions and ⊥ on the rest (``hamming``; an entry after the cutoff differs, as in
  StatDP's ``zip_longest``); iSVT4: (``false_count``, ``last`` entry: ⊥ or the released number);
* any other Sparse Vector mechanism (a variable-length list of categorical values, §4.3 case 2):
  the Hamming distance to the noise-free output on D1, the count of each value, and the length;
  the raw vector ``output`` may be named in an event but is not searched;
* noisy max: ``index`` (categorical) or ``value`` (numeric); histogram: ``bin1``…``binN``, or
  ``value`` for StatDP's first-bin versions.

Search spaces: every possible value of a count or index; for a number, ``(−inf, α)`` and
``(α, inf)`` for ten ``α`` spread over the densest 70% of a pilot sample (StatDP's code), rounded
to 3 significant digits; ``last`` adds the event "is ⊥".
"""

from __future__ import annotations

import functools
import itertools
import math
import re
from dataclasses import dataclass

import numpy as np

from ..errors import InputError
from ..mechanisms.description import ThresholdMechanism
from ..mechanisms.histogram import HistogramMechanism
from ..mechanisms.noisy_max import NoisyMaxMechanism
from ..sequences import as_output, as_queries
from .sampler import ABSENT, Samples

#: Number of grid points ``α`` for a numeric component (StatDP: ``np.linspace(..., num=10)``).
GRID_POINTS = 10
#: Fraction of the pilot sample the grid spans (StatDP: the densest 70% range).
GRID_MASS = 0.7


# ----------------------------------------------------------------------------- conditions

@dataclass(frozen=True)
class Equals:
    """The component equals ``value`` (an integer)."""

    value: int

    def mask(self, column: np.ndarray) -> np.ndarray:
        """Which runs satisfy the condition, given the component's column."""
        return column == self.value

    def __str__(self) -> str:
        return f"={self.value}"


@dataclass(frozen=True)
class Interval:
    """``low < component < high`` (ends may be infinite; ⊥ is never inside)."""

    low: float
    high: float

    def mask(self, column: np.ndarray) -> np.ndarray:
        """Which runs satisfy the condition, given the component's column."""
        return (column > self.low) & (column < self.high)

    def __str__(self) -> str:
        return f" in ({self.low:g}, {self.high:g})"


@dataclass(frozen=True)
class IsBottom:
    """The entry is ⊥ (stored as NaN in a numeric column)."""

    def mask(self, column: np.ndarray) -> np.ndarray:
        """Which runs satisfy the condition, given the component's column."""
        return np.isnan(column)

    def __str__(self) -> str:
        return "=F"


@dataclass(frozen=True)
class OutputIs:
    """The raw ⊤/⊥ output vector equals ``tokens`` (``True``/``False``; shorter = cut off)."""

    tokens: tuple[bool, ...]

    def mask(self, column: np.ndarray) -> np.ndarray:
        """Which runs satisfy the condition, given the component's column."""
        pattern = np.full(column.shape[1], ABSENT, dtype=np.int8)
        pattern[:len(self.tokens)] = self.tokens
        return (column == pattern).all(axis=1)

    def __str__(self) -> str:
        return "=" + ",".join("T" if t else "F" for t in self.tokens)


@dataclass(frozen=True)
class Event:
    """A conjunction of conditions ``((component, condition), ...)``."""

    conditions: tuple

    def mask(self, view: "View", samples) -> np.ndarray:
        """Which runs fall in the event."""
        masks = [condition.mask(view.column(name, samples)) for name, condition in self.conditions]
        return functools.reduce(np.logical_and, masks)

    def __str__(self) -> str:
        return " & ".join(f"{name}{condition}" for name, condition in self.conditions)


# ----------------------------------------------------------------------------- components

@dataclass(frozen=True)
class Additive:
    """``Σ_i w_i(a_i)`` over the answers ``a_i ∈ {⊤, ⊥, absent}``: counts and Hamming distances.

    ``weights[i] = (w(⊤), w(⊥), w(absent))`` for position ``i``.
    """

    weights: tuple[tuple[int, int, int], ...]

    def column(self, samples: Samples) -> np.ndarray:
        """The statistic of every run."""
        # Σ over the three answers of (answers == code) @ weights: one matrix-vector product each
        # (a gather from a weight table is ~15 times slower).
        column = np.zeros(len(samples.answers), dtype=np.int64)
        for code, weights in zip((1, 0, ABSENT), np.array(self.weights).T):
            if weights.any():
                column += (samples.answers == code) @ weights
        return column

    def values(self) -> range:
        """Every value the statistic can take."""
        return range(sum(max(w) for w in self.weights) + 1)


@dataclass(frozen=True)
class LastEntry:
    """The last entry present: NaN for ⊥, else the released number (StatDP's iSVT4 ``out[-1]``)."""

    def column(self, samples: Samples) -> np.ndarray:
        """The last entry of every run (NaN for ⊥)."""
        last = (samples.answers != ABSENT).sum(axis=1) - 1
        return samples.values[np.arange(last.size), last]


@dataclass(frozen=True)
class RawOutput:
    """The raw answer matrix (``1`` ⊤, ``0`` ⊥, ``-1`` absent), for :class:`OutputIs`."""

    def column(self, samples: Samples) -> np.ndarray:
        """The answer matrix itself."""
        return samples.answers


@dataclass(frozen=True)
class Index:
    """A categorical output ``0..size−1`` (noisy max's index)."""

    size: int

    def column(self, draws) -> np.ndarray:
        """The index of every run."""
        return draws.values

    def values(self) -> range:
        """Every possible index."""
        return range(self.size)


@dataclass(frozen=True)
class Coordinate:
    """A numeric output: the whole output (``position=None``) or entry ``position`` of a vector."""

    position: int | None = None

    def column(self, draws) -> np.ndarray:
        """The number of every run."""
        return draws.values if self.position is None else draws.values[:, self.position]


@dataclass(frozen=True)
class View:
    """The components of one mechanism's output on ``n`` queries and its search families.

    Attributes
    ----------
    components : tuple of (name, component)
    families : tuple of tuple of str
        Each family is the product of the named components' condition lists.
    """

    components: tuple
    families: tuple

    def component(self, name: str):
        """The component called ``name`` (an :class:`InputError` listing the names otherwise)."""
        for known, component in self.components:
            if known == name:
                return component
        names = ", ".join(known for known, _ in self.components)
        raise InputError(f"unknown event component {name!r} (this output has: {names})")

    def column(self, name: str, samples) -> np.ndarray:
        """Component ``name`` of every run of ``samples``."""
        return self.component(name).column(samples)


# ----------------------------------------------------------------------------- views

def reference_weights(reference: list) -> tuple:
    """Hamming-distance weights to ``reference`` (entries ``True``, ``False`` or ``None`` =
    absent)."""
    return tuple((int(r is not True), int(r is not False), int(r is not None)) for r in reference)


def noise_free_output(mech: ThresholdMechanism, queries: list) -> list:
    """The output with every noise set to 0 (StatDP's ω0), padded with ``None`` after the cutoff."""
    out, tops = [], 0
    for q in queries:
        if mech.cutoff is not None and tops == mech.cutoff:
            out.append(None)
            continue
        top = q >= mech.threshold
        out.append(top)
        tops += top
    return out


def _statdp_view(name: str, n: int) -> View | None:
    false_count = ("false_count", Additive(((0, 1, 0),) * n))
    if name == "statdp.SVT":
        return View((false_count,), (("false_count",),))
    if name in ("statdp.iSVT1", "statdp.iSVT2", "statdp.iSVT3"):
        pattern = [i < n // 2 for i in range(n)]
        return View((("hamming", Additive(reference_weights(pattern))),), (("hamming",),))
    if name == "statdp.iSVT4":
        return View((false_count, ("last", LastEntry())), (("false_count", "last"),))
    return None


@functools.singledispatch
def view_of(mech, d1) -> View:
    """The :class:`View` of ``mech``'s output when run on ``d1`` (and its neighbours)."""
    raise InputError(f"the tester does not know the output of mechanisms of type "
                     f"{type(mech).__name__}")


@view_of.register
def _(mech: ThresholdMechanism, d1) -> View:
    queries = as_queries(d1).expand()
    n = len(queries)
    statdp = _statdp_view(mech.name, n)
    if statdp is not None:
        return statdp
    components = [
        ("hamming", Additive(reference_weights(noise_free_output(mech, queries)))),
        ("true_count", Additive(((1, 0, 0),) * n)),
        ("false_count", Additive(((0, 1, 0),) * n)),
    ]
    if mech.cutoff is not None:
        components.append(("length", Additive(((1, 1, 0),) * n)))
    families = tuple((name,) for name, _ in components)
    return View(tuple(components) + (("output", RawOutput()),), families)


@view_of.register
def _(mech: NoisyMaxMechanism, d1) -> View:
    if mech.releases_value:
        return View((("value", Coordinate()),), (("value",),))
    return View((("index", Index(len(as_queries(d1)))),), (("index",),))


@view_of.register
def _(mech: HistogramMechanism, d1) -> View:
    if mech.first_bin_only:
        return View((("value", Coordinate()),), (("value",),))
    components = tuple((f"bin{i + 1}", Coordinate(i)) for i in range(len(as_queries(d1))))
    return View(components, tuple((name,) for name, _ in components))


# ----------------------------------------------------------------------------- search space

def numeric_grid(values: np.ndarray) -> list[float]:
    """``GRID_POINTS`` thresholds over the densest ``GRID_MASS`` window of ``values`` (NaN
    dropped), rounded to 3 significant digits, distinct, ascending."""
    values = np.sort(values[~np.isnan(values)])
    if values.size == 0:
        return []
    width = int(GRID_MASS * values.size)
    if width == 0 or width >= values.size:
        low, high = values[0], values[-1]
    else:
        start = int(np.argmin(values[width:] - values[:-width]))
        low, high = values[start], values[start + width]
    return sorted({float(f"{alpha:.3g}") for alpha in np.linspace(low, high, GRID_POINTS)})


def _conditions(component, pilot_column: np.ndarray | None) -> list:
    if isinstance(component, (Additive, Index)):
        return [Equals(k) for k in component.values()]
    grid = numeric_grid(pilot_column)
    intervals = [Interval(-math.inf, a) for a in grid] + [Interval(a, math.inf) for a in grid]
    return ([IsBottom()] if isinstance(component, LastEntry) else []) + intervals


def search_space(view: View, pilots: list) -> list[Event]:
    """Every event of ``view``'s families; numeric grids come from the ``pilots`` (samples on
    D1 and D2)."""
    events = []
    for family in view.families:
        lists = []
        for name in family:
            component = view.component(name)
            pilot = (None if isinstance(component, (Additive, Index)) else
                     np.concatenate([component.column(p) for p in pilots]))
            lists.append([(name, c) for c in _conditions(component, pilot)])
        events.extend(Event(tuple(combo)) for combo in itertools.product(*lists))
    return events


def count_events(view: View, events: list[Event], samples) -> np.ndarray:
    """How many runs of ``samples`` fall in each event (one ``bincount`` per integer component
    for the events ``name=k``, masks for the rest)."""
    columns: dict = {}
    masks: dict = {}
    tallies: dict = {}

    def column(name):
        if name not in columns:
            columns[name] = view.column(name, samples)
        return columns[name]

    def mask(name, condition):
        if (name, condition) not in masks:
            masks[name, condition] = condition.mask(column(name))
        return masks[name, condition]

    def count(event):
        (name, condition), *rest = event.conditions
        if not rest and isinstance(condition, Equals):
            if name not in tallies:
                tallies[name] = np.bincount(column(name))
            return int(tallies[name][condition.value]) if condition.value < tallies[name].size \
                else 0
        return np.count_nonzero(functools.reduce(
            np.logical_and, [mask(name, c) for name, c in event.conditions]))

    return np.array([count(event) for event in events], dtype=np.int64)


# ----------------------------------------------------------------------------- parsing

_NUMBER = r"[-+]?(?:inf|\d+(?:\.\d*)?(?:e[-+]?\d+)?|\.\d+(?:e[-+]?\d+)?)"
_EQUALS = re.compile(r"^\s*(\w+)\s*=\s*(.+?)\s*$")
_INTERVAL = re.compile(rf"^\s*(\w+)\s+in\s+\(\s*({_NUMBER})\s*,\s*({_NUMBER})\s*\)\s*$", re.I)


def _parse_condition(part: str, view: View):
    interval = _INTERVAL.match(part)
    if interval:
        name, low, high = interval.group(1), float(interval.group(2)), float(interval.group(3))
        component = view.component(name)
        if isinstance(component, (Additive, Index, RawOutput)) or not low < high:
            raise InputError(f"interval events need a numeric component and low < high, got "
                             f"{part.strip()!r}")
        return name, Interval(low, high)
    equals = _EQUALS.match(part)
    if not equals:
        raise InputError(f"an event condition looks like name=k or name in (a, b), got "
                         f"{part.strip()!r}")
    name, value = equals.groups()
    component = view.component(name)
    if isinstance(component, RawOutput):
        tokens = as_output(value).expand()
        if any(t is not True and t is not False for t in tokens):
            raise InputError(f"output events are ⊤/⊥ vectors, got {value!r}")
        return name, OutputIs(tuple(tokens))
    if isinstance(component, LastEntry) and value.upper() == "F":
        return name, IsBottom()
    if isinstance(component, (Additive, Index)) and re.fullmatch(r"\d+", value):
        return name, Equals(int(value))
    raise InputError(f"cannot read the condition {part.strip()!r} for component {name}")


def parse_event(text: str, view: View) -> Event:
    """Read ``"false_count=3 & last in (-inf, 2.5)"`` (the spelling of :class:`Event`)."""
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"an event must be a non-empty string, got {text!r}")
    return Event(tuple(_parse_condition(part, view) for part in text.split("&")))
