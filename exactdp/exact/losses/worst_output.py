"""The exact worst output of one pair of inputs (``exactdp search``, docs/search.md).

:func:`worst_output` is a generic function on the mechanism's description type: each family
registers its rule from its own module — the Sparse Vector family
``losses/threshold_worst_output.py``, noisy max ``form/noisy_max.py``, histograms
``form/histogram.py``, noisy sums ``form/sums.py`` (which also registers :func:`worst_event`),
programs ``exactdp.programs.exact``.  This module holds what the rules share: the :class:`Witness`,
the exact loss of one output (:func:`pair_witness`), and the search over released values
(:func:`value_grid`, :func:`maximise_over_values`).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import mpmath

from ...errors import InputError
from ...precision import PrivacyLoss
from ...sequences import Runs
from .privacy_loss import loss_from_probabilities
from ..probability import probability


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


def witness_score(witness: Witness | None):
    """``|ln(p1/p2)|`` of ``witness``, −1 for none (any witness beats none)."""
    return mpmath.mpf(-1) if witness is None else abs(witness.loss.log_ratio)


def is_better(witness: Witness | None, best: Witness | None) -> bool:
    """Whether ``witness`` has a strictly larger loss than ``best``."""
    return witness is not None and witness_score(witness) > witness_score(best)


@functools.lru_cache(maxsize=100_000)
def _cached_probability(mech, queries: Runs, output: str, dps: int, method: str):
    # the same input recurs across candidate pairs (StatDP's patterns all share D1)
    return probability(mech, queries, output, dps, method)


def pair_witness(mech, d1: Runs, d2: Runs, output: Runs, dps: int,
                  method: str = "closed") -> Witness | None:
    """The witness of one output (``None`` when it is impossible under both inputs)."""
    p1, p2 = (_cached_probability(mech, d, str(output), dps, method) for d in (d1, d2))
    if p1.is_zero and p2.is_zero:
        return None
    return Witness(d1, d2, output, loss_from_probabilities(p1, p2))


def best_witness(witnesses) -> Witness | None:
    """The witness of largest loss (the first of equals; ``None`` when there is none)."""
    best = None
    for witness in witnesses:
        if is_better(witness, best):
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
    Given the pattern, ``ln f(v)`` is smooth except where a kink of the integrand
    (docs/mathematics.md: the threshold, the query values) crosses the released value, so the
    maximum of ``|ln f1 − ln f2|`` is at a kink, at a smooth interior extremum (found by the
    refinement), or approached at ``±∞``, where it is typically attained exactly once every
    factor is a pure exponential (BadGapSVT, Lyu Alg. 3, BadNoisyMax: the grid's outermost
    points).
    """
    from scipy.optimize import minimize_scalar  # only here: loading the engine stays light

    values = [grid[len(grid) // 2] for grid in grids]
    best = witness_at(values)
    for _ in range(1 if len(grids) == 1 else 2):
        for j, grid in enumerate(grids):
            for v in grid:
                trial = values[:j] + [v] + values[j + 1:]
                witness = witness_at(trial)
                if is_better(witness, best):
                    values, best = trial, witness
    if not refine or best is None or mpmath.isinf(witness_score(best)):
        return values, best
    for j, grid in enumerate(grids):
        k = grid.index(values[j])
        low, high = grid[max(k - 1, 0)], grid[min(k + 1, len(grid) - 1)]

        def objective(x, j=j, values=values):
            return -float(witness_score(witness_at(values[:j] + [_decimal(x)] + values[j + 1:])))

        if low < high:
            x = minimize_scalar(objective, bounds=(float(low), float(high)), method="bounded",
                                options={"xatol": 1e-6 * float(high - low)}).x
            trial = values[:j] + [_decimal(x)] + values[j + 1:]
            witness = witness_at(trial)
            if is_better(witness, best):
                values, best = trial, witness
    return values, best


@functools.singledispatch
def worst_output(mech, d1: Runs, d2: Runs, dps: int) -> Witness:
    """The output maximising ``|ln(Pr[M(d1) = a]/Pr[M(d2) = a])|`` for one pair, exactly.

    A generic function on the description type; a family registers its own.
    """
    raise InputError(f"exactdp search has no worst-output rule for {type(mech).__name__}")


@functools.singledispatch
def scored_outputs(mech, n: int) -> int | None:
    """How many outputs :func:`worst_output` scores for one pair of ``n`` queries, or ``None``
    when it does not enumerate them (a search bounds its input length by this count).  A generic
    function; families whose rule enumerates outputs register one."""
    return None


@functools.singledispatch
def worst_event(mech, d1: Runs, d2: Runs) -> str | None:
    """An event whose probability ratio matches the worst point loss, or ``None`` (the default:
    the point output is the witness).  A generic function; families with numeric outputs may
    register one."""
    return None
