"""The search for the neighbouring pair with the largest Rényi divergence ``D_α``.

A mechanism is ``(α, ε)``-RDP when ``D_α(M(D1) ‖ M(D2)) ≤ ε`` for every ordered pair of
neighbours (Mironov, "Rényi Differential Privacy", IEEE CSF 2017, Definition 4).  Each candidate
pair is scored in both directions from one computation of its two output distributions
(:func:`exactdp.exact.divergences.renyi.renyi_both_ways`, certified enclosures), and the larger
direction is
kept.  Two sets of candidates:

* :func:`grid_pairs` — every pair on a small grid: ``d1 = T + l·Δ`` with ``l`` in ``levels`` at
  each position and ``d2 = d1 + m·Δ`` with ``m`` in ``moves`` (``T`` the threshold of a Sparse
  Vector variant, else 0); exhaustive and free of randomness, for ``exactdp reproduce``;
* :func:`search_renyi` — the loss search's candidates (:func:`exactdp.search.explore`: StatDP's
  patterns, random pairs, mutations, one seeded generator), for ``exactdp search --alpha``.
"""

from __future__ import annotations

import itertools
import math
import shlex
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Sequence

import mpmath

from .precision import Enclosure
from .exact.divergences.renyi import check_alphas, renyi_both_ways
from .formatting import echoed_number, printed_number
from .search import explore, input_options, input_space, param_options
from .sequences import Runs, format_number


@dataclass(frozen=True)
class ScoredPair:
    """An ordered pair of inputs and ``D_α(M(d1) ‖ M(d2))`` at every order searched."""

    d1: Runs
    d2: Runs
    divergences: tuple

    def at(self, index: int) -> Enclosure:
        """The enclosure of ``D_α`` at the ``index``-th order."""
        return self.divergences[index]


def grid_pairs(mech, length: int, levels: Sequence = (0, 1), moves: Sequence = (-1, 1),
               lowest=None) -> list[tuple[tuple, tuple]]:
    """The neighbouring pairs of the grid, each unordered pair once.

    Parameters
    ----------
    mech
        A mechanism description (its threshold, sensitivity and neighbour relation are used).
    length : int
        Number of queries.
    levels, moves : sequence of int
        ``d1_i = T + k·Δ`` for ``k`` in ``levels``, ``d2_i = d1_i + m·Δ`` for ``m`` in ``moves``.
    lowest : number, optional
        Keep only pairs whose query answers are all at least ``lowest`` on both inputs.

    Returns
    -------
    list of (tuple, tuple)
        Exact rationals; ``d1 ≠ d2``, neighbours under the mechanism's relation.

    Examples
    --------
    >>> import exactdp
    >>> m = exactdp.mechanism("svt_gaussian", c=1)
    >>> [(list(map(str, a)), list(map(str, b))) for a, b in grid_pairs(m, 1)]
    [(['0'], ['-1']), (['0'], ['1']), (['1'], ['2'])]
    """
    space = input_space(mech)
    floor = None if lowest is None else Fraction(lowest)
    seen, pairs = set(), []
    for level in itertools.product(levels, repeat=length):
        d1 = tuple(space.origin + space.sensitivity * k for k in level)
        for move in itertools.product(moves, repeat=length):
            d2 = tuple(a + space.sensitivity * m for a, m in zip(d1, move))
            if (d1 == d2 or (d2, d1) in seen or not space.allows(d1, d2)
                    or (floor is not None and min(d1 + d2) < floor)):
                continue
            seen.add((d1, d2))
            pairs.append((d1, d2))
    return pairs


def score_pairs(mech, alphas, pairs, dps: int = 15,
                progress: Callable[[], None] = lambda: None) -> list[ScoredPair]:
    """Both directions of every pair: ``D_α(M(d1) ‖ M(d2))`` and ``D_α(M(d2) ‖ M(d1))`` at every
    order of ``alphas`` (``progress()`` after each pair)."""
    orders = check_alphas(alphas)
    scored = []
    for d1, d2 in pairs:
        d1, d2 = Runs.from_items(d1), Runs.from_items(d2)
        forward, backward = renyi_both_ways(mech, d1, d2, orders, dps)
        scored += [ScoredPair(d1, d2, tuple(point.divergence for point in forward)),
                   ScoredPair(d2, d1, tuple(point.divergence for point in backward))]
        progress()
    return scored


def worst(scored: Sequence[ScoredPair], index: int) -> ScoredPair:
    """The ordered pair with the largest ``D_α`` at the ``index``-th order (by the enclosures'
    centres; the first of equals)."""
    return max(scored, key=lambda pair: pair.at(index).value)


@dataclass(frozen=True)
class RenyiWitness:
    """A pair of inputs and the certified ``D_α`` of the direction ``d1 → d2`` (the larger of the
    two directions)."""

    d1: Runs
    d2: Runs
    divergence: Enclosure


def renyi_witness(mech, d1: Runs, d2: Runs, alpha, dps: int) -> RenyiWitness:
    """The pair scored by its larger ``D_α``, oriented so that ``d1 → d2`` is that direction."""
    forward, backward = score_pairs(mech, [alpha], [(d1.expand(), d2.expand())], dps)
    larger = backward if backward.at(0).value > forward.at(0).value else forward
    return RenyiWitness(larger.d1, larger.d2, larger.at(0))


@dataclass(frozen=True)
class RenyiSearchResult:
    """The largest ``D_α`` found by :func:`search_renyi`.

    Attributes
    ----------
    mechanism : object
        The mechanism searched.
    witness : RenyiWitness
        The best pair, oriented, with its enclosure of ``D_α``.
    alpha : Fraction or float
        The order (``math.inf`` for ``α = ∞``).
    evaluations, stopped_by, seconds
        As in :class:`exactdp.search.SearchResult` (``stopped_by`` is ``"D_α = ∞"`` when a pair
        has an infinite divergence).
    """

    mechanism: object
    witness: RenyiWitness
    alpha: Fraction | float
    evaluations: int
    stopped_by: str
    seconds: float

    def record(self, dps: int = 15, text: bool = False) -> dict:
        """The record of ``exactdp search --alpha`` (``text``: the table's spelling)."""
        mech, witness = self.mechanism, self.witness
        d1, d2 = str(witness.d1), str(witness.d2)
        divergence = witness.divergence
        printed = printed_number(divergence.value, dps,
                                 enclosure=(divergence.lower, divergence.upper))
        alpha = "inf" if self.alpha == math.inf else format_number(self.alpha)
        return {
            "mechanism": str(mech), "d1": d1, "d2": d2,
            "alpha": echoed_number(self.alpha, dps, text),
            **printed.fields("divergence", text),
            "evaluations": self.evaluations, "stopped_by": self.stopped_by,
            "recheck": f"exactdp renyi {mech.name} {param_options(mech)} "
                       f"{input_options(d1, d2)} --alpha {shlex.quote(alpha)}",
        }


def search_renyi(mech, alpha, max_length: int = 5, seed: int = 0, budget: float | None = None,
                 max_evaluations: int = 200, dps: int = 15,
                 progress: bool | None = False) -> RenyiSearchResult:
    """Search neighbouring inputs for the largest certified ``D_α`` of ``mech``.

    Parameters
    ----------
    mech
        A mechanism whose outputs :func:`~exactdp.exact.divergences.renyi.renyi_divergence`
        supports (⊤/⊥
        Sparse Vector variants, noisy max's index, one released number with Laplace or
        Gaussian noise); others are refused in one line.
    alpha : number or "inf"
        The order, ``α > 1`` or ``inf``.
    dps : int
        Significant digits of each ``D_α``.

    The other parameters are :func:`exactdp.search.search`'s.

    Returns
    -------
    RenyiSearchResult

    Examples
    --------
    >>> import exactdp
    >>> result = search_renyi(exactdp.mechanism("svt1"), "inf", max_length=2, max_evaluations=9)
    >>> 0 < result.witness.divergence.upper <= 1     # Alg. 1 is ε-DP (ε = 1): D_∞ ≤ ε
    True
    """
    input_space(mech)  # a mechanism description, else one line
    order, = check_alphas([alpha])
    best, explored = explore(
        mech, lambda d1, d2: renyi_witness(mech, d1, d2, order, dps),
        lambda witness: witness.divergence.value, lambda witness: False,
        max_length=max_length, seed=seed, budget=budget, max_evaluations=max_evaluations,
        stop_at_violation=False, progress=progress, ceiling=("D_α = ∞", mpmath.inf),
        noun="D_α")
    return RenyiSearchResult(mech, best, order, explored.evaluations, explored.stopped_by,
                             explored.seconds)
