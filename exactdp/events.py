"""Events on a mechanism's output: one interval type, one grammar, one set of views.

An event is a conjunction of conditions on named *components* of an output; the same
:class:`Event` is decided on one concrete output (:meth:`Event.contains`), on many sampled runs
at once (:meth:`Event.mask`) and exactly
(``exactdp.exact.event_probability.rules.event_probability``).

Grammar (:func:`parse_event`): clauses joined by ``and`` (``&`` and ``;`` are synonyms), each

* ``name=k`` for a count or an index (``false_count=3``, ``hamming=2``, ``index=0``);
* ``name OP x`` with ``OP`` one of ``<``, ``<=``, ``>``, ``>=``, ``=`` for a number
  (``out0<3.5``, ``value>=1``);
* ``name in (a,b)``, ``[a,b]``, ``[a,b)``, ``(a,b]`` for a number, ends ``-inf``/``inf`` allowed
  (``out1 in [0,2)``, ``last in (-inf, 2.5)``);
* ``last=F`` (the last entry is ⊥) and ``output=F,T`` (the raw ⊤/⊥ vector; on a program's
  tuple of booleans and counts, every entry at once, ``output=F,T,3``, which is also how such
  an event prints).

Bounds are exact decimals (``0.7`` is seven tenths, :func:`exactdp.sequences.to_fraction`), like
every other input: an event's probability does not depend on how a binary float rounds its ends.

Components of each output (:func:`view_of`):

* numeric outputs — ``outJ`` is the J-th number of the output, counted from 0: the bins of a
  histogram (``out0`` is bin 1, also spelled ``bin1``), the value of noisy max (``out0``, also
  ``value``), the outputs of a noisy sum (``out0``…);
* noisy max with an index output: ``index``;
* Sparse Vector family, StatDP's post-processing (``statdp_view`` of the catalogue entry; Ding et
  al., "Detecting Violations of Differential Privacy", CCS 2018, §4.3): the number of ⊥
  (``false_count``); the Hamming distance to ⊤ on the first ⌊n/2⌋ positions and ⊥ on the rest
  (``hamming``; an entry after the cutoff differs, as in StatDP's ``zip_longest``); the number
  of ⊥ and the ``last`` entry (⊥ or the released number);
* any other Sparse Vector mechanism: the Hamming distance to the noise-free output on D1
  (``hamming``), ``true_count``, ``false_count``, ``length`` (with a cutoff) and the raw
  ``output``; ``last`` when numbers are released.

Search spaces of the tester (:func:`search_space`): every possible value of a count or index;
for a number, ``(−inf, α)`` and ``(α, inf)`` for ten ``α`` spread over the densest 70% of a pilot
sample (StatDP's code), rounded to 3 significant digits; ``last`` adds the event "is ⊥".
"""

from __future__ import annotations

import functools
import itertools
import re
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .errors import InputError
from .mechanisms.description import ThresholdMechanism
from .mechanisms.histogram import HistogramMechanism
from .mechanisms.noisy_max import NoisyMaxMechanism
from .mechanisms.sums import NoisySum
from .sampled_outputs import ABSENT, Columns, Samples
from .sequences import Runs, as_output, as_queries, format_number, to_fraction

#: Number of grid points ``α`` for a numeric component (StatDP: ``np.linspace(..., num=10)``).
GRID_POINTS = 10
#: Fraction of the pilot sample the grid spans (StatDP: the densest 70% range).
GRID_MASS = 0.7


# ----------------------------------------------------------------------------- conditions

@dataclass(frozen=True)
class Equals:
    """The component equals ``value`` (an integer: a count or an index)."""

    value: int

    def contains(self, x) -> bool:
        """Whether the component's value ``x`` satisfies the condition."""
        return x == self.value

    def mask(self, column: np.ndarray) -> np.ndarray:
        """Which runs satisfy the condition, given the component's column."""
        return column == self.value

    def __str__(self) -> str:
        return f"={self.value}"


@dataclass(frozen=True)
class Interval:
    """A real interval with exact ends; ``None`` ends are infinite (and open).

    ⊥ (``None`` or NaN as a value) is never inside.
    """

    low: Fraction | None = None
    high: Fraction | None = None
    low_closed: bool = False
    high_closed: bool = False

    @property
    def is_empty(self) -> bool:
        """True when no real number is inside."""
        if self.low is None or self.high is None:
            return False
        return self.low > self.high or (self.low == self.high
                                         and not (self.low_closed and self.high_closed))

    def contains(self, x) -> bool:
        """Exact membership of a number (``False`` for ⊥)."""
        if x is None or isinstance(x, bool):
            return False
        x = to_fraction(x, "value")
        above = self.low is None or x > self.low or (self.low_closed and x == self.low)
        below = self.high is None or x < self.high or (self.high_closed and x == self.high)
        return above and below

    def mask(self, column: np.ndarray) -> np.ndarray:
        """Which runs' (float) values are inside (NaN, i.e. ⊥, never is)."""
        inside = np.ones(column.shape, dtype=bool)
        if self.low is not None:
            inside &= (column >= float(self.low)) if self.low_closed else \
                (column > float(self.low))
        if self.high is not None:
            inside &= (column <= float(self.high)) if self.high_closed else \
                (column < float(self.high))
        return inside & ~np.isnan(column)

    def intersect(self, other: "Interval") -> "Interval":
        """The intersection (possibly empty)."""
        low, low_closed = _tighter(self.low, self.low_closed, other.low, other.low_closed, max)
        high, high_closed = _tighter(self.high, self.high_closed, other.high, other.high_closed,
                                     min)
        return Interval(low, high, low_closed, high_closed)

    def shift(self, by: Fraction) -> "Interval":
        """``{x − by : x in self}``."""
        return Interval(None if self.low is None else self.low - by,
                        None if self.high is None else self.high - by,
                        self.low_closed, self.high_closed)

    def __str__(self) -> str:
        low = "-inf" if self.low is None else format_number(self.low)
        high = "inf" if self.high is None else format_number(self.high)
        return (f" in {'[' if self.low_closed else '('}{low}, {high}"
                f"{']' if self.high_closed else ')'}")


def _tighter(a, a_closed, b, b_closed, pick):
    if a is None:
        return b, b_closed
    if b is None or a != b:
        chosen = a if b is None else pick(a, b)
        return chosen, a_closed if chosen == a else b_closed
    return a, a_closed and b_closed


@dataclass(frozen=True)
class IsBottom:
    """The entry is ⊥ (``None``/``False`` in an output, NaN in a numeric column)."""

    def contains(self, x) -> bool:
        """Whether the entry ``x`` is ⊥."""
        return x is None or x is False

    def mask(self, column: np.ndarray) -> np.ndarray:
        """Which runs satisfy the condition, given the component's column."""
        return np.isnan(column)

    def __str__(self) -> str:
        return "=F"


@dataclass(frozen=True)
class OutputIs:
    """The raw ⊤/⊥ output vector equals ``tokens`` (``True``/``False``; shorter = cut off)."""

    tokens: tuple[bool, ...]

    def contains(self, x) -> bool:
        """Whether the output's tokens ``x`` are :attr:`tokens`."""
        return tuple(x) == self.tokens

    def mask(self, column: np.ndarray) -> np.ndarray:
        """Which runs satisfy the condition, given the component's column."""
        pattern = np.full(column.shape[1], ABSENT, dtype=np.int8)
        pattern[:len(self.tokens)] = self.tokens
        return (column == pattern).all(axis=1)

    def __str__(self) -> str:
        return "=" + ",".join("T" if t else "F" for t in self.tokens)


@dataclass(frozen=True)
class Event:
    """A conjunction of conditions ``((component name, condition), ...)`` on the components of
    :attr:`view`."""

    conditions: tuple
    view: "View"

    def contains(self, output) -> bool:
        """Whether one concrete output (an output string or token list, a number, an index)
        falls in the event."""
        return all(condition.contains(self.view.component(name).value(output))
                   for name, condition in self.conditions)

    def mask(self, samples) -> np.ndarray:
        """Which runs of ``samples`` fall in the event."""
        masks = [condition.mask(self.view.column(name, samples))
                 for name, condition in self.conditions]
        return functools.reduce(np.logical_and, masks)

    def __str__(self) -> str:
        entries = _categorical_entries(self.view)
        fixed = dict(self.conditions)
        if entries is not None and len(fixed) == len(entries) and all(
                isinstance(fixed.get(name), Equals) for name, _ in entries):
            return "output=" + ",".join(_category_text(component, fixed[name].value)
                                        for name, component in entries)
        return " and ".join(
            f"{name}={_category_text(self.view.component(name), condition.value)}"
            if isinstance(condition, Equals) else f"{name}{condition}"
            for name, condition in self.conditions)


def _categorical_entries(view: "View") -> tuple | None:
    """The components of an output made of two or more categorical entries, each an
    :class:`Index` (a program's tuple of booleans and counts), else ``None``: an event that
    fixes every one of them reads and prints as the output it fixes, ``output=F,T,T``."""
    if len(view.components) < 2 or not all(isinstance(component, Index)
                                           for _, component in view.components):
        return None
    return view.components


def _category_text(component, value: int) -> str:
    """A value of a count or index, ``T``/``F`` (⊤/⊥, the output notation) for a boolean."""
    if getattr(component, "booleans", False):
        return "T" if value else "F"
    return str(value)


# ----------------------------------------------------------------------------- components

def _tokens(output) -> list:
    """An output's entries (``True`` ⊤, ``False`` ⊥, a number for a released value)."""
    return as_output(output).expand() if isinstance(output, str) else list(output)


@dataclass(frozen=True)
class Additive:
    """``Σ_i w_i(a_i)`` over the answers ``a_i ∈ {⊤, ⊥, absent}``: counts and Hamming distances.

    ``weights[i] = (w(⊤), w(⊥), w(absent))`` for position ``i``; a released number counts as ⊤.
    """

    weights: tuple[tuple[int, int, int], ...]

    def value(self, output) -> int:
        """The statistic of one output."""
        tokens = _tokens(output)
        return sum(w[2] if i >= len(tokens) else w[1] if tokens[i] is False else w[0]
                   for i, w in enumerate(self.weights))

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
    """The last entry present: ⊥, or the released number (StatDP's iSVT4 ``out[-1]``), or ⊤
    when the output releases no number (``numbers`` false: ``last=F`` is its one condition)."""

    numbers: bool = True

    def value(self, output):
        """The last entry of one output (``None`` for ⊥)."""
        last = _tokens(output)[-1]
        return None if last is False else last

    def column(self, samples: Samples) -> np.ndarray:
        """The last entry of every run (:meth:`entries`)."""
        runs = np.arange(len(samples.answers))
        last = (samples.answers != ABSENT).sum(axis=1) - 1
        return self.entries(samples.answers[runs, last] == 1,
                            None if samples.values is None else samples.values[runs, last])

    @staticmethod
    def entries(above: np.ndarray, released: np.ndarray | None) -> np.ndarray:
        """The column of last entries that are ⊤ where ``above`` (⊥ elsewhere): the
        ``released`` numbers (NaN at ⊥), or when none are released 1 at ⊤ and NaN at ⊥."""
        return np.where(above, 1.0, np.nan) if released is None else released


@dataclass(frozen=True)
class RawOutput:
    """The raw answer matrix (``1`` ⊤, ``0`` ⊥, ``-1`` absent), for :class:`OutputIs`."""

    def value(self, output) -> tuple:
        """The ⊤/⊥ tokens of one output."""
        return tuple(t is not False for t in _tokens(output))

    def column(self, samples: Samples) -> np.ndarray:
        """The answer matrix itself."""
        return samples.answers


@dataclass(frozen=True)
class Index:
    """A categorical output ``0..size−1`` (noisy max's index).  ``booleans``: its values are
    ⊥/⊤ (0/1), so the events ``=F`` and ``=T`` are accepted too."""

    size: int
    booleans = False

    def value(self, output) -> int:
        """The index of one output."""
        return int(_tokens(output)[0]) if isinstance(output, str) else int(output)

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

    def value(self, output):
        """The number of one output."""
        if self.position is None:
            return output if not isinstance(output, (str, list, tuple)) else _tokens(output)[0]
        return _tokens(output)[self.position]

    def column(self, draws) -> np.ndarray:
        """The number of every run."""
        return draws.values if self.position is None else draws.values[:, self.position]


@dataclass(frozen=True)
class View:
    """The components of one mechanism's output on ``n`` queries and its search families.

    Attributes
    ----------
    components : tuple of (name, component)
        Several names may denote one component (``out0`` and ``bin1``).
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
        """Component ``name`` of every run of ``samples`` (a sampler's output, or the
        :class:`~exactdp.sampled_outputs.Columns` accumulated while sampling)."""
        component = self.component(name)
        if isinstance(samples, Columns):
            return samples.column(component)
        return component.column(samples)


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


def _last(mech: ThresholdMechanism) -> tuple:
    """The component ``last`` of every Sparse Vector output."""
    return "last", LastEntry(mech.releases_numbers)


def _statdp_view(mech: ThresholdMechanism, n: int) -> View | None:
    false_count = ("false_count", Additive(((0, 1, 0),) * n))
    if mech.statdp_view == "false_count":
        return View((false_count, _last(mech)), (("false_count",),))
    if mech.statdp_view == "hamming_half":
        pattern = [i < n // 2 for i in range(n)]
        return View((("hamming", Additive(reference_weights(pattern))), _last(mech)),
                    (("hamming",),))
    if mech.statdp_view == "false_count_last":
        return View((false_count, _last(mech)), (("false_count", "last"),))
    return None


def _numbers(count: int | None, legacy: str | None = None) -> View:
    """The view of a numeric output: ``out0…`` for ``count`` numbers (``None``: one number, not a
    vector), each also named ``legacy`` + its number from 1 (``bin1``), or ``legacy`` alone for a
    single number (``value``); the tester searches the legacy names."""
    if count is None:
        names = (("out0", Coordinate()),) + (((legacy, Coordinate()),) if legacy else ())
        return View(names, ((legacy or "out0",),))
    components = tuple((f"out{i}", Coordinate(i)) for i in range(count))
    aliases = tuple((f"{legacy}{i + 1}", Coordinate(i)) for i in range(count)) if legacy else ()
    return View(components + aliases, tuple((name,) for name, _ in (aliases or components)))


@functools.singledispatch
def view_of(mech, d1) -> View:
    """The :class:`View` of ``mech``'s output when run on ``d1`` (and its neighbours)."""
    raise InputError(f"no events are defined on the output of mechanisms of type "
                     f"{type(mech).__name__}")


@functools.singledispatch
def sampled_view(mech, d1, pilots, searched: bool) -> View:
    """The :class:`View` the tester reads events on: :func:`view_of` for a family whose output's
    shape is known before any run; a family whose shape is read from runs (a program's return
    type) registers its own reading of ``pilots()``, the pilot runs on both inputs.
    ``searched``: the candidate events will be enumerated (the tester's search)."""
    return view_of(mech, d1)


@view_of.register
def _(mech: ThresholdMechanism, d1) -> View:
    queries = as_queries(d1).expand()
    n = len(queries)
    statdp = _statdp_view(mech, n)
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
    return View(tuple(components) + (("output", RawOutput()), _last(mech)), families)


@view_of.register
def _(mech: NoisyMaxMechanism, d1) -> View:
    if mech.releases_value:
        return _numbers(None, "value")
    return View((("index", Index(len(as_queries(d1)))),), (("index",),))


@view_of.register
def _(mech: HistogramMechanism, d1) -> View:
    if mech.first_bin_only:
        return _numbers(None, "value")
    return _numbers(len(as_queries(d1)), "bin")


@view_of.register
def _(mech: NoisySum, d1) -> View:
    return _numbers(len(mech.terms(len(as_queries(d1)))))


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
    grid = [to_fraction(a, "grid point") for a in numeric_grid(pilot_column)]
    intervals = [Interval(high=a) for a in grid] + [Interval(low=a) for a in grid]
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
        events.extend(Event(tuple(combo), view) for combo in itertools.product(*lists))
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
            if name not in tallies:  # −1: a program's entry that is absent or not an integer
                values = column(name)
                tallies[name] = np.bincount(values[values >= 0])
            return int(tallies[name][condition.value]) if condition.value < tallies[name].size \
                else 0
        return np.count_nonzero(functools.reduce(
            np.logical_and, [mask(name, c) for name, c in event.conditions]))

    return np.array([count(event) for event in events], dtype=np.int64)


# ----------------------------------------------------------------------------- parsing

_NAME = r"(?P<name>[A-Za-z_]\w*)"
_COMPARISON = re.compile(rf"^{_NAME}\s*(?P<op><=|>=|<|>|=)\s*(?P<value>.+?)$")
_MEMBERSHIP = re.compile(rf"^{_NAME}\s+in\s*(?P<left>[\[(])\s*(?P<low>[^,]+?)\s*,"
                         rf"\s*(?P<high>[^,]+?)\s*(?P<right>[\])])$", re.I)
_NUMERIC = (Coordinate, LastEntry)


def _bound(text: str, clause: str, infinite: str) -> Fraction | None:
    if text.lower().lstrip("+") in {"inf", "infinity"} and infinite == "+":
        return None
    if text.lower() in {"-inf", "-infinity"} and infinite == "-":
        return None
    return to_fraction(text, f"the bound {text!r} of the event clause {clause!r}")


def _numeric(name: str, component, clause: str) -> None:
    if isinstance(component, LastEntry) and not component.numbers:
        raise InputError(f"the event clause {clause!r} compares {name} with a number, but {name} "
                         f"is ⊤ or ⊥ in this output: write {name}=F")
    if not isinstance(component, _NUMERIC):
        raise InputError(f"the event clause {clause!r} compares {name} with a number, but {name} "
                         f"is a count or index: write {name}=k")


def _parse_condition(clause: str, view: View):
    membership = _MEMBERSHIP.match(clause)
    if membership:
        name = membership["name"]
        _numeric(name, view.component(name), clause)
        interval = Interval(_bound(membership["low"], clause, "-"),
                            _bound(membership["high"], clause, "+"),
                            membership["left"] == "[", membership["right"] == "]")
        if interval.is_empty:
            raise InputError(f"the interval of the event clause {clause!r} is empty")
        return name, interval
    comparison = _COMPARISON.match(clause)
    if not comparison:
        raise InputError(f"an event clause looks like out0<3.5, out1 in [0,2), false_count=3 or "
                         f"last=F, got {clause!r}")
    name, op, value = comparison["name"], comparison["op"], comparison["value"]
    component = view.component(name)
    if isinstance(component, RawOutput) and op == "=":
        tokens = as_output(value).expand()
        if any(t is not True and t is not False for t in tokens):
            raise InputError(f"the event clause {clause!r} needs a ⊤/⊥ vector such as F,T")
        return name, OutputIs(tuple(tokens))
    if isinstance(component, LastEntry) and op == "=" and value.upper() == "F":
        return name, IsBottom()
    if isinstance(component, Index) and component.booleans and op == "=" \
            and value.upper() in ("T", "F"):
        return name, Equals(int(value.upper() == "T"))
    if isinstance(component, (Additive, Index)):
        if op != "=" or not re.fullmatch(r"\d+", value):
            raise InputError(f"the event clause {clause!r} needs {name}=k with a whole number k")
        return name, Equals(int(value))
    _numeric(name, component, clause)
    x = to_fraction(value, f"the value {value!r} of the event clause {clause!r}")
    return name, {"<": Interval(high=x), "<=": Interval(high=x, high_closed=True),
                  ">": Interval(low=x), ">=": Interval(low=x, low_closed=True),
                  "=": Interval(x, x, True, True)}[op]


def _clause_conditions(clause: str, view: View) -> list:
    """The ``(name, condition)`` pairs of one clause: ``output=v0,v1,…`` on an output of
    categorical entries (:func:`_categorical_entries`) fixes each entry, ``T``/``F`` for a
    boolean and a whole number for a count; any other clause is one condition."""
    entries = _categorical_entries(view)
    comparison = _COMPARISON.match(clause)
    if entries is None or not comparison or comparison["name"] != "output" \
            or comparison["op"] != "=":
        return [_parse_condition(clause, view)]
    tokens = as_output(comparison["value"]).expand()
    if len(tokens) != len(entries):
        raise InputError(f"the event clause {clause!r} fixes {len(tokens)} entries, but the "
                         f"output has {len(entries)} ({entries[0][0]} to {entries[-1][0]})")
    conditions = []
    for (name, component), token in zip(entries, tokens):
        boolean = isinstance(token, bool)
        if boolean != component.booleans or not (boolean or (token.denominator == 1
                                                             and token >= 0)):
            expected = "T or F" if component.booleans else "a whole number"
            raise InputError(f"the event clause {clause!r} needs {expected} for {name}, got "
                             f"{Runs.from_items([token])}")
        conditions.append((name, Equals(int(token))))
    return conditions


def parse_event(text: str, view: View) -> Event:
    """Read an event (the grammar of the module docstring) on the components of ``view``.

    Two conditions on one number are intersected.

    Examples
    --------
    >>> import exactdp
    >>> view = view_of(exactdp.mechanism("histogram"), [0, 1])
    >>> str(parse_event("out0<3.5 and out1 in [0,2); bin1>=-1", view))
    'out0 in [-1, 3.5) and out1 in [0, 2)'
    """
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"an event must be a non-empty string, got {text!r}")
    conditions: dict = {}
    for part in re.split(r"[;&]|\band\b", text):
        clause = part.strip()
        if not clause:
            raise InputError(f"the event {text!r} has an empty clause")
        for name, condition in _clause_conditions(clause, view):
            component = view.component(name)
            canonical = next(known for known, c in view.components if c == component)
            if canonical in conditions:
                previous = conditions[canonical]
                if not (isinstance(previous, Interval) and isinstance(condition, Interval)):
                    raise InputError(f"the event {text!r} constrains {name} twice")
                condition = previous.intersect(condition)
            conditions[canonical] = condition
    return Event(tuple(conditions.items()), view)
