"""The exact worst-case search: ``exactdp search`` (docs/search.md).

For a mechanism ``M`` with claimed budget ε the search looks for neighbouring inputs ``D1, D2``
and an output ``a`` with ``ln(Pr[M(D1) = a] / Pr[M(D2) = a]) > ε`` (Dwork & Roth, Def. 2.4).
Every candidate pair is scored by its *exact* worst output, so a reported witness is a proof, to
the stated error, and can be re-checked with ``exactdp loss``.

Candidates, in this order (all from one ``numpy.random.Generator`` seeded with ``seed``):

1. StatDP's input patterns (Ding et al. CCS 2018, Table 1) for every length
   ``1..max_length``, on the values ``origin + {0, 1, 2}·Δ``;
2. then, alternately, a random neighbouring pair and a mutation of the best pair so far (one
   position changed, or the pair extended by one position): a stochastic local search.

A family plugs in with a generic function (``functools.singledispatch``):

* :func:`worst_output` — the exact worst output of one pair: enumerated for ⊤/⊥ outputs
  (``max_privacy_loss``) and noisy-max indices; for released numbers (Sparse Vector variants
  that release values or gaps, the noisy maximum) a search over each value's kinks and grid
  refined by Brent's method (:func:`maximise_over_values`); the maximising point density for the
  noisy sums and the histogram.

Reproducibility: the search stops after ``max_evaluations`` distinct pairs, at an infinite loss
(nothing can beat it), or after ``budget`` seconds if one is given, whichever comes first.  The
result records which one stopped it; when it is not the clock (the default has no clock), the same
seed gives the same witness on any machine.
"""

from __future__ import annotations

import functools
import math
import shlex
import time
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Callable

import mpmath
import numpy as np
from scipy.optimize import minimize_scalar

from .errors import InputError
from .exact.events import event_privacy_loss
from .precision import to_mpf
from .exact import all_outputs
from .exact.loss import (MAX_ENUMERATED_QUERIES, PrivacyLoss, loss_from_probabilities,
                         possible_outputs, privacy_loss, worst_of_all_outputs)
from .exact.loss_supremum import max_privacy_loss
from .exact.probability import probability
from .exact.sums import noiseless_output
from .formatting import echoed_number, format_value, printed_log_ratio
from .mechanisms.base import Mechanism, Neighbours
from .mechanisms.description import Release, ThresholdMechanism
from .mechanisms.histogram import HistogramMechanism
from .mechanisms.noisy_max import NoisyMaxMechanism
from .mechanisms.sums import NoisySum
from .programs.model import Program
from .sampling.inputs import input_patterns
from .progress import Progress
from .checks import check_positive, check_seed
from .sequences import Runs, format_number

#: Values of a random query, in units of Δ from the origin.
RANDOM_LEVELS = (-1, 0, 1, 2)
#: Most ⊤/⊥ patterns scored per pair: all outputs of 12 queries, as ``max_privacy_loss``
#: enumerates (svt6 at ``max_length=10``, 1024 patterns, takes about 4 minutes).
MAX_PATTERNS = 2**MAX_ENUMERATED_QUERIES


@dataclass(frozen=True)
class InputSpace:
    """Which query vectors are neighbours, and around which value queries are interesting.

    Attributes
    ----------
    mechanism : Mechanism
        Its sensitivity and neighbour relation decide which pairs are neighbours.
    origin : Fraction
        Query values are ``origin + k·Δ`` (the threshold ``T`` of an SVT variant).
    """

    mechanism: Mechanism
    origin: Fraction = Fraction(0)

    @property
    def sensitivity(self) -> Fraction:
        """``Δ``: a query moves by at most this much."""
        return self.mechanism.sensitivity

    @property
    def one_differ(self) -> bool:
        """At most one query differs (CheckDP's ``ONE_DIFFER``)."""
        return self.mechanism.neighbours is Neighbours.ONE_DIFFER

    @property
    def monotone(self) -> bool:
        """All moving queries move in the same direction."""
        return self.mechanism.neighbours is Neighbours.MONOTONE

    def allows(self, d1: tuple, d2: tuple) -> bool:
        """Whether ``d1`` and ``d2`` are neighbours (the mechanism's own check)."""
        return self.mechanism.neighbour_violation(Runs.from_items(d1), Runs.from_items(d2)) is None


def input_space(mech: Mechanism) -> InputSpace:
    """The neighbouring inputs of ``mech``, around its threshold for an SVT variant."""
    if not isinstance(mech, Mechanism):
        raise InputError(f"exactdp search needs a mechanism description, got "
                         f"{type(mech).__name__}")
    return InputSpace(mech, mech.threshold if isinstance(mech, ThresholdMechanism) else Fraction(0))


@dataclass(frozen=True)
class Witness:
    """A pair of inputs, an output and its exact privacy loss ``ln(p1/p2)``; optionally an event
    (``exactdp loss --event`` syntax) and its exact loss ``ln(Pr[M(d1) ∈ E]/Pr[M(d2) ∈ E])``."""

    d1: Runs
    d2: Runs
    output: Runs
    loss: PrivacyLoss
    event: str | None = None
    event_loss: PrivacyLoss | None = None


def _score(witness: Witness | None):
    return mpmath.mpf(-1) if witness is None else abs(witness.loss.log_ratio)


def _better(witness: Witness | None, best: Witness | None) -> bool:
    return witness is not None and _score(witness) > _score(best)


@functools.lru_cache(maxsize=100_000)
def _cached_probability(mech, queries: Runs, output: str, dps: int, method: str):
    # the same input recurs across candidate pairs (StatDP's patterns all share D1)
    return probability(mech, queries, output, dps, method)


def _pair_witness(mech, d1: Runs, d2: Runs, output: Runs, dps: int,
                  method: str = "closed") -> Witness | None:
    """The witness of one output (``None`` when it is impossible under both inputs)."""
    p1, p2 = (_cached_probability(mech, d, str(output), dps, method) for d in (d1, d2))
    if p1.is_zero and p2.is_zero:
        return None
    return Witness(d1, d2, output, loss_from_probabilities(p1, p2))


def _best_witness(witnesses) -> Witness | None:
    best = None
    for witness in witnesses:
        if _better(witness, best):
            best = witness
    return best


#: The value grid reaches this many noise scales beyond the outermost kink (steps of half a scale).
GRID_SCALES = 8


def value_grid(kinks, scale: Fraction, lower: Fraction | None = None) -> list[Fraction]:
    """Candidate released values: the kinks and a grid ``min(kinks) − 8b, …, max(kinks) + 8b``
    in steps of ``b/2`` (``b`` the noise scale), all ``≥ lower`` when given; sorted, exact.

    Examples
    --------
    >>> [str(v) for v in value_grid([0], Fraction(1, 4), lower=Fraction(3, 2))]
    ['3/2', '13/8', '7/4', '15/8', '2']
    """
    low, high = min(kinks) - GRID_SCALES * scale, max(kinks) + GRID_SCALES * scale
    steps = int((high - low) / (scale / 2))
    points = set(kinks) | {low + k * scale / 2 for k in range(steps + 1)}
    return sorted(v for v in points if lower is None or v >= lower)


def _decimal(x: float) -> Fraction:
    # a short exact decimal near x (6 significant digits), so the witness prints compactly
    return Fraction(f"{x:.6g}")


def maximise_over_values(witness_at: Callable[[list], Witness | None],
                         grids: list[list[Fraction]], refine: bool) -> tuple[list, Witness | None]:
    """Maximise ``|ln(f1(v)/f2(v))|`` over released values ``v`` (one grid per value).

    Coordinate ascent over the candidates of :func:`value_grid` (one sweep for one value, two
    otherwise); with ``refine``, each coordinate is then polished by Brent's bounded method
    (``scipy.optimize.minimize_scalar``) between the grid points next to it, on the floats of the
    exact engine, and the polished point is kept only if its *exact* loss is larger.

    Notes
    -----
    Given the pattern, ``ln f(v)`` is smooth except where a kink of the integrand (docs/mathematics.md: the
    threshold, the query values) crosses the released value, so the maximum of ``|ln f1 − ln f2|``
    is at a kink, at a smooth interior extremum (found by the refinement), or approached at
    ``±∞``, where it is typically attained exactly once every factor is a pure exponential
    (BadGapSVT, Lyu Alg. 3, BadNoisyMax: the grid's outermost points).
    """
    values = [grid[len(grid) // 2] for grid in grids]
    best = witness_at(values)
    for _ in range(1 if len(grids) == 1 else 2):
        for j, grid in enumerate(grids):
            for v in grid:
                trial = values[:j] + [v] + values[j + 1:]
                witness = witness_at(trial)
                if _better(witness, best):
                    values, best = trial, witness
    if not refine or best is None or mpmath.isinf(_score(best)):
        return values, best
    for j, grid in enumerate(grids):
        k = grid.index(values[j])
        low, high = grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)]

        def objective(x, j=j):
            return -float(_score(witness_at(values[:j] + [_decimal(x)] + values[j + 1:])))

        if low < high:
            x = minimize_scalar(objective, bounds=(float(low), float(high)), method="bounded",
                                options={"xatol": 1e-6 * float(high - low)}).x
            trial = values[:j] + [_decimal(x)] + values[j + 1:]
            witness = witness_at(trial)
            if _better(witness, best):
                values, best = trial, witness
    return values, best


@functools.singledispatch
def worst_output(mech, d1: Runs, d2: Runs, dps: int) -> Witness:
    """The output maximising ``|ln(Pr[M(d1) = a]/Pr[M(d2) = a])|`` for one pair, exactly.

    A generic function on the description type; a family registers its own.
    """
    raise InputError(f"exactdp search has no worst-output rule for {type(mech).__name__}")


def _release_candidates(mech: ThresholdMechanism, d1: Runs, d2: Runs) -> list[Fraction]:
    """:func:`value_grid` of a released number: kinks at ``T`` and the query values (a released
    value ``v``: the bound ``z ≤ v − T`` meets the kinks ``0, s_j`` of the integral form, and ``p(v − q_i)``
    has its own at ``v = q_i``); for a gap ``g ≥ 0`` the kink ``z = s_i − g`` of ``p_ν`` meets
    them at ``g = s_i − s_j`` and ``g = s_i``, differences of the same levels."""
    levels = {mech.threshold} | set(d1.expand()) | set(d2.expand())
    if mech.release is Release.GAP:
        return value_grid({a - b for a in levels for b in levels if a >= b}, mech.query_scale,
                          lower=Fraction(0))
    scale = mech.release_scale if mech.release is Release.FRESH_VALUE else mech.query_scale
    return value_grid(levels, scale)


def pattern_count(mech: ThresholdMechanism, n: int) -> int:
    """How many ⊤/⊥ patterns ``mech`` can produce on ``n`` queries: ``Σ_{k ≤ min(c, n)} C(n, k)``
    with cutoff ``c`` (fewer than ``c`` ⊤'s, or stopped at the ``c``-th ⊤ after ``m ≤ n``
    queries: ``Σ_{m=c}^{n} C(m−1, c−1) = C(n, c)``), ``2^n`` without.

    Examples
    --------
    >>> import exactdp
    >>> m = exactdp.mechanism("svt1", c=2)
    >>> pattern_count(m, 4) == sum(1 for _ in possible_outputs(m, 4))
    True
    """
    cutoff = n if mech.cutoff is None else min(mech.cutoff, n)
    return sum(math.comb(n, k) for k in range(cutoff + 1))


@worst_output.register
def _(mech: ThresholdMechanism, d1: Runs, d2: Runs, dps: int) -> Witness:
    """Every ⊤/⊥ pattern of ``possible_outputs`` (on the flag version of ``mech``) scored with
    the closed form (all at once where ``all_outputs.applies``); for a mechanism that releases
    numbers at the ⊤'s, the numbers of each pattern are chosen by :func:`maximise_over_values`
    (coarse), and the best pattern's are refined.  The sum-to-one check and two-method
    recomputation of ``max_privacy_loss`` are left to :func:`search`, which does them once for
    the final witness.  Discrete noise has no closed form: its patterns are scored by the
    certified sum over the integers."""
    method = "certified" if mech.law.integer_valued else "closed"
    if not mech.releases_numbers and all_outputs.applies(mech):  # every output at once
        best, _ = worst_of_all_outputs(mech, d1, d2, list(possible_outputs(mech, len(d1))), dps)
        return _pair_witness(mech, d1, d2, Runs.from_items(best), dps)
    flags = replace(mech, release=Release.FLAG, release_scale=None)
    grid = _release_candidates(mech, d1, d2) if mech.releases_numbers else []

    def pattern_witness(pattern, refine):
        tops = [i for i, answer in enumerate(pattern) if answer]

        def witness_at(values):
            items = list(pattern)
            for i, v in zip(tops, values):
                items[i] = v
            return _pair_witness(mech, d1, d2, Runs.from_items(items), dps, method)

        if not mech.releases_numbers or not tops:
            return witness_at([])
        return maximise_over_values(witness_at, [grid] * len(tops), refine)[1]

    patterns = list(possible_outputs(flags, len(d1)))
    best = _best_witness(pattern_witness(pattern, False) for pattern in patterns)
    pattern = [item is not False for item in best.output.expand()]
    return pattern_witness(pattern, True) if mech.releases_numbers and any(pattern) else best


@worst_output.register
def _(mech: NoisyMaxMechanism, d1: Runs, d2: Runs, dps: int) -> Witness:
    """The index: one index per distinct ``(d1_i, d2_i)`` (two such indices are swapped by a
    permutation that fixes both inputs, so their probabilities agree), by peak-aware quadrature.
    The largest value: :func:`maximise_over_values` with kinks at the query values — below all
    of them the Laplace density ratio is exactly ``e^{Σ_j (d2_j − d1_j)/b}`` (``nε/2`` when every
    query moves by Δ: CheckDP's BadNoisyMax)."""
    if mech.releases_value:
        grid = value_grid(set(d1.expand()) | set(d2.expand()), mech.noise.scale)
        return maximise_over_values(
            lambda values: _pair_witness(mech, d1, d2, Runs.from_items(values), dps), [grid],
            True)[1]
    first_index = {}
    for i, pair in enumerate(zip(d1.expand(), d2.expand())):
        first_index.setdefault(pair, i)
    return _best_witness(_pair_witness(mech, d1, d2, Runs.from_items([Fraction(i)]), dps, "quad")
                         for i in first_index.values())


@worst_output.register
def _(mech: HistogramMechanism, d1: Runs, d2: Runs, dps: int) -> Witness:
    """The noiseless output ``v = d1`` (its first bin for StatDP's views): the log density ratio
    ``Σ_i (|v_i − d2_i| − |v_i − d1_i|)/b`` is at most ``Σ_i |d1_i − d2_i|/b`` (triangle
    inequality), with equality at ``v = d1`` (Dwork & Roth §3.3)."""
    output = d1.prefix(1) if mech.first_bin_only else d1
    return _pair_witness(mech, d1, d2, output, dps)


@worst_output.register
def _(mech: NoisySum, d1: Runs, d2: Runs, dps: int) -> Witness:
    """The noiseless output of ``d1``.

    ``ln(f1/f2) = Σ_j (|r_j + δ_j| − |r_j|)/b_j`` with ``r_j`` the residuals under ``d1`` and
    ``δ_j = s_j(d1) − s_j(d2)`` independent of the output (``exactdp.exact.sums``); each term is at
    most ``|δ_j|/b_j`` (``+∞`` for a deterministic coordinate, ``b_j = 0``), with equality at
    ``r = 0``.  So the point ``r = 0`` attains the supremum ``Σ_j |δ_j|/b_j`` exactly.
    """
    output = Runs.from_items(noiseless_output(mech, d1))
    return Witness(d1, d2, output, privacy_loss(mech, d1, d2, output, dps, allow_any_pair=True))


@worst_output.register
def _(mech: Program, d1: Runs, d2: Runs, dps: int) -> Witness:
    """Every return value of the program on ``d1`` and ``d2``, from its traced paths, or the
    output of ``d1`` without noise for one released number ``q + η`` (``max_privacy_loss``; a
    program that releases numbers otherwise is refused there in one line, and a supremum that
    no output attains, a Gaussian release's ``+∞``, here)."""
    result = max_privacy_loss(mech, d1, d2, dps, allow_any_pair=True)
    if result.output is None:
        raise InputError(f"{mech.name}: no output attains the largest loss on d1={d1}, d2={d2} "
                         f"(it is approached as {result.approached}): the search reports a "
                         f"witness output")
    return Witness(d1, d2, result.output, result.loss)


@functools.singledispatch
def worst_event(mech, d1: Runs, d2: Runs) -> str | None:
    """An event whose probability ratio matches the worst point loss, or ``None`` (the default:
    the point output is the witness).  A generic function; families with numeric outputs may
    register one."""
    return None


@worst_event.register
def _(mech: NoisySum, d1: Runs, d2: Runs) -> str | None:
    """For an infinite loss, ``o_j = s_j(d1)`` on every deterministic coordinate where the inputs
    differ (probability 1 under ``d1``, 0 under ``d2``); for PartialSum's single output the tail
    ``o ≥ s(d1)`` (or ``≤``), whose ratio ``S_b(0)/S_b(|δ|) = e^{|δ|/b}`` is the density supremum.
    Otherwise ``None``."""
    mode1, mode2 = noiseless_output(mech, d1), noiseless_output(mech, d2)
    terms = mech.terms(len(d1))
    exact = [f"out{j} = {format_number(a)}"
             for j, (a, b, term) in enumerate(zip(mode1, mode2, terms)) if term.scale == 0 and a != b]
    if exact:
        return " and ".join(exact)
    if len(terms) == 1 and mode1[0] != mode2[0]:
        return f"out0 {'>=' if mode1[0] > mode2[0] else '<='} {format_number(mode1[0])}"
    return None


def param_options(mech) -> str:
    """``--param k=v`` for every parameter of ``mech`` that is set (for a re-check command)."""
    def spell(value):
        return format_number(value) if isinstance(value, Fraction) else value

    return " ".join(f"--param {key}={spell(value)}" for key, value in mech.params.items()
                    if value is not None)


def input_options(d1: str, d2: str) -> str:
    """``--d1=… --d2=…`` quoted for a shell (``--d2=-1,0``: a value starting with ``-`` would
    otherwise be read as an option)."""
    return f"--d1={shlex.quote(d1)} --d2={shlex.quote(d2)}"


@dataclass(frozen=True)
class SearchResult:
    """The largest privacy loss found, oriented so that ``log_ratio ≥ 0``.

    Attributes
    ----------
    mechanism : object
        The mechanism searched.
    witness : Witness
        The best pair and output (``witness.loss.log_ratio ≥ 0``).
    claimed : Fraction or None
        The claimed budget ε.
    evaluations : int
        Distinct pairs scored.
    stopped_by : str
        ``"evaluations"``, ``"time"``, ``"infinite loss"`` or ``"violation"`` (with
        ``stop_at_violation``).
    seconds : float
        Wall-clock time of the search.
    first_violation : int or None
        The evaluation count at which a loss above the claim was first seen.
    """

    mechanism: object
    witness: Witness
    claimed: Fraction | None
    evaluations: int
    stopped_by: str
    seconds: float
    first_violation: int | None

    @property
    def verdict(self) -> str:
        """``"violation"`` when the loss exceeds the claim by more than its error estimate."""
        if self.claimed is None:
            return "no claim"
        loss = self.witness.loss
        return "violation" if loss.log_ratio - loss.error > to_mpf(self.claimed) else "within claim"

    def record(self, dps: int = 15, text: bool = False) -> dict:
        """The JSON record of ``exactdp search --json`` (``text``: the claimed ε spelled
        exactly, for the table)."""
        loss, mech, witness = self.witness.loss, self.mechanism, self.witness
        params = param_options(mech)
        ratio = printed_log_ratio(loss, dps)
        d1, d2, output = (str(x) for x in (witness.d1, witness.d2, witness.output))
        record = {
            "mechanism": str(mech), "d1": d1, "d2": d2, "output": output,
            "log_ratio": ratio.value, "log_ratio_error": ratio.error,
            "claimed": "none" if self.claimed is None else echoed_number(self.claimed, dps,
                                                                         text),
            "verdict": self.verdict, "evaluations": self.evaluations,
            "stopped_by": self.stopped_by, "first_violation": self.first_violation,
            "recheck": f"exactdp loss {mech.name} {params} {input_options(d1, d2)} "
                       f"--output={shlex.quote(output)}",
        }
        if witness.event is not None:
            record.update({
                "event": witness.event,
                "event_log_ratio": printed_log_ratio(witness.event_loss, dps).value,
                "event_recheck": f"exactdp loss {mech.name} {params} {input_options(d1, d2)} "
                                 f"--event {shlex.quote(witness.event)}"})
        return record


def _pattern_pairs(space: InputSpace, max_length: int):
    for n in range(1, max_length + 1):
        for d1, d2 in input_patterns(space.mechanism, n, space.origin):
            yield list(d1), list(d2)


def _random_move(space: InputSpace, rng: np.random.Generator) -> Fraction:
    return space.sensitivity * int(rng.integers(-1, 2))


def _random_pair(space: InputSpace, max_length: int, rng: np.random.Generator):
    n = int(rng.integers(1, max_length + 1))
    d1 = [space.origin + space.sensitivity * int(rng.choice(RANDOM_LEVELS)) for _ in range(n)]
    if space.one_differ:
        d2 = list(d1)
        d2[int(rng.integers(n))] += space.sensitivity * int(rng.choice((-1, 1)))
        return d1, d2
    sign = int(rng.choice((-1, 1)))
    moves = [abs(_random_move(space, rng)) * sign if space.monotone else _random_move(space, rng)
             for _ in range(n)]
    return d1, [a + m for a, m in zip(d1, moves)]


def _mutate(pair, space: InputSpace, max_length: int, rng: np.random.Generator):
    d1, d2 = list(pair[0]), list(pair[1])
    if len(d1) < max_length and rng.random() < 0.3:
        position = int(rng.integers(len(d1) + 1))
        d1.insert(position, d1[min(position, len(d1) - 1)])
        d2.insert(position, d2[min(position, len(d2) - 1)])
    i = int(rng.integers(len(d1)))
    level = space.origin + space.sensitivity * int(rng.choice(RANDOM_LEVELS))
    move = d2[i] - d1[i] if space.one_differ else _random_move(space, rng)
    d1[i], d2[i] = level, level + move
    return d1, d2


def _check_patterns(mech, max_length: int) -> None:
    """An :class:`InputError` when a Sparse Vector variant has more than :data:`MAX_PATTERNS`
    ⊤/⊥ patterns on ``max_length`` queries, naming the longest length that is searched."""
    if not isinstance(mech, ThresholdMechanism) or pattern_count(mech, max_length) <= MAX_PATTERNS:
        return
    longest = max(n for n in range(1, max_length) if pattern_count(mech, n) <= MAX_PATTERNS)
    raise InputError(f"{mech.name} has {pattern_count(mech, max_length):,} ⊤/⊥ patterns on "
                     f"max_length={max_length} queries, each scored for every pair; at most "
                     f"{MAX_PATTERNS:,} are searched, so max_length may be at most {longest}")


@dataclass(frozen=True)
class Exploration:
    """How :func:`explore` ended: distinct pairs scored, why it stopped (``"evaluations"``,
    ``"time"``, ``"exhausted"``, ``"violation"`` or the ceiling's name), its wall-clock time and
    the evaluation count at which a violation was first seen (``None``: never)."""

    evaluations: int
    stopped_by: str
    seconds: float
    first_violation: int | None


def explore(mech, score_pair: Callable, score: Callable, violates: Callable, *,
            max_length: int, seed: int, budget: float | None, max_evaluations: int,
            stop_at_violation: bool, progress: bool | None, ceiling: tuple[str, object],
            noun: str) -> tuple[object, Exploration]:
    """The candidate pairs of the search (module docstring), each scored, and the best one.

    Parameters
    ----------
    mech
        A mechanism whose family registers :func:`input_space`.
    score_pair : callable
        ``score_pair(d1, d2)`` (two :class:`~exactdp.sequences.Runs`) → a candidate with
        attributes ``d1`` and ``d2`` (mutations start from the best candidate's pair).
    score : callable
        ``score(candidate)`` → a real number; the largest wins (the first of equals).
    violates : callable
        ``violates(candidate)`` → whether it refutes the claim.
    ceiling : (str, number)
        A score nothing can beat (``+∞`` for a loss, 1 for ``δ``) and the ``stopped_by`` it gives.
    noun : str
        What the score is, for the progress line.

    The other parameters are :func:`search`'s.
    """
    max_length = check_positive("max_length", max_length)
    max_evaluations = check_positive("max_evaluations", max_evaluations)
    if budget is not None and not budget > 0:
        raise InputError(f"budget must be a positive number of seconds, got budget={budget!r}")
    rng = np.random.default_rng(check_seed(seed))
    space = input_space(mech)
    _check_patterns(mech, max_length)
    start = time.perf_counter()
    seen: set = set()
    best = None
    first_violation = None
    patterns = _pattern_pairs(space, max_length)
    stopped_by = "evaluations"
    attempts = 0
    with Progress(max_evaluations, "searching", "pair", progress) as bar:
        while len(seen) < max_evaluations:
            if best is not None and budget is not None and time.perf_counter() - start > budget:
                stopped_by = "time"
                break
            attempts += 1
            pair = next(patterns, None)
            if pair is None:
                use_mutation = best is not None and attempts % 2 == 0
                pair = (_mutate((best.d1.expand(), best.d2.expand()), space, max_length, rng)
                        if use_mutation else _random_pair(space, max_length, rng))
            key = (tuple(pair[0]), tuple(pair[1]))
            if (key in seen or (key[1], key[0]) in seen or key[0] == key[1]
                    or not space.allows(*key)):
                if attempts > 50 * max_evaluations:
                    stopped_by = "exhausted"
                    break
                continue
            seen.add(key)
            candidate = score_pair(Runs.from_items(key[0]), Runs.from_items(key[1]))
            if best is None or score(candidate) > score(best):
                best = candidate
            bar.update(note=f"largest {noun} so far {format_value(score(best), 6)}")
            exceeds = violates(candidate)
            if exceeds and first_violation is None:
                first_violation = len(seen)
            if score(best) >= ceiling[1] or (exceeds and stop_at_violation):
                stopped_by = ceiling[0] if score(best) >= ceiling[1] else "violation"
                break
    return best, Exploration(len(seen), stopped_by, time.perf_counter() - start, first_violation)


def search(mech, max_length: int = 5, seed: int = 0, budget: float | None = None,
           max_evaluations: int = 200, dps: int = 15,
           stop_at_violation: bool = False, progress: bool | None = False) -> SearchResult:
    """Search neighbouring inputs for the largest exact privacy loss of ``mech``.

    Parameters
    ----------
    mech
        A catalogue mechanism whose family registers :func:`input_space` and :func:`worst_output`.
    max_length : int
        Longest query vector tried; for a Sparse Vector variant at most as long as gives
        :data:`MAX_PATTERNS` ⊤/⊥ patterns (:func:`pattern_count`), each scored for every pair.
    seed : int
        Seed of the only random generator (``numpy.random.default_rng``), a non-negative integer.
    budget : float, optional
        Wall-clock limit in seconds (default: none, so the result depends on the seed only).
    max_evaluations : int
        Limit on distinct pairs scored (the reproducible limit, see the module docstring).
    dps : int
        Digits of the exact computations.
    stop_at_violation : bool
        Stop at the first pair whose loss exceeds the claim (for timing).
    progress : bool or None
        Report the pairs scored on stderr (``None``: only on a terminal;
        :class:`~exactdp.progress.Progress`).

    Returns
    -------
    SearchResult

    Examples
    --------
    >>> import exactdp, exactdp.search
    >>> result = exactdp.search.search(exactdp.mechanism("bad_partial_sum"), max_length=2)
    >>> result.verdict, str(result.witness.loss.log_ratio)
    ('violation', '2.0')
    """
    best, explored = explore(
        mech, lambda d1, d2: worst_output(mech, d1, d2, dps), _score,
        lambda witness: (mech.claimed_eps is not None
                         and _score(witness) > to_mpf(mech.claimed_eps)),
        max_length=max_length, seed=seed, budget=budget, max_evaluations=max_evaluations,
        stop_at_violation=stop_at_violation, progress=progress,
        ceiling=("infinite loss", mpmath.inf), noun="|ln ratio|")
    d1, d2 = (best.d1, best.d2) if best.loss.log_ratio >= 0 else (best.d2, best.d1)
    event = worst_event(mech, d1, d2)
    best = Witness(d1, d2, best.output,
                   privacy_loss(mech, d1, d2, str(best.output), dps, allow_any_pair=True), event,
                   None if event is None else event_privacy_loss(mech, d1, d2, event, dps,
                                                                 allow_any_pair=True))
    return SearchResult(mech, best, mech.claimed_eps, explored.evaluations, explored.stopped_by,
                        explored.seconds, explored.first_violation)


