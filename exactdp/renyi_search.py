"""The search for the neighbouring pair with the largest Rényi divergence ``D_α``, or the largest
zCDP ``ρ = sup_α D_α/α``.

A mechanism is ``(α, ε)``-RDP when ``D_α(M(D1) ‖ M(D2)) ≤ ε`` for every ordered pair of
neighbours (Mironov, "Rényi Differential Privacy", IEEE CSF 2017, Definition 4), and ``ρ``-zCDP
when ``D_α ≤ ρα`` for every order ``α > 1`` (Bun & Steinke, TCC 2016, Definition 1.1).  Each
candidate pair is scored in both directions from one computation of its two output
distributions (:func:`exactdp.exact.divergences.renyi.renyi_both_ways`,
:func:`exactdp.exact.divergences.zcdp.zcdp_both_ways`, certified enclosures), and the larger
direction is kept.  Two sets of candidates:

* :func:`grid_pairs` — every pair on a small grid: ``d1 = T + l·Δ`` with ``l`` in ``levels`` at
  each position and ``d2 = d1 + m·Δ`` with ``m`` in ``moves`` (``T`` the threshold of a Sparse
  Vector variant, else 0); exhaustive and free of randomness, for ``exactdp reproduce``;
* :func:`search_renyi`, :func:`search_zcdp` — the loss search's candidates
  (:func:`exactdp.search.explore`: StatDP's patterns, random pairs, mutations, one seeded
  generator), for ``exactdp search --alpha`` and ``--rho``.
"""

from __future__ import annotations

import itertools
import math
import shlex
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Sequence

import mpmath

from .errors import InputError
from .precision import Enclosure
from .exact.divergences.renyi import check_alphas, renyi_both_ways
from .exact.divergences.zcdp import zcdp_both_ways
from .formatting import echoed_number, printed_number
from .search import explore, input_options, input_space, param_options
from .sequences import Runs, format_number, to_fraction


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
    """A pair of inputs and the certified divergence (``D_α``, or ``ρ``) of the direction
    ``d1 → d2``, the larger of the two directions."""

    d1: Runs
    d2: Runs
    divergence: Enclosure


def larger_direction(d1: Runs, d2: Runs, forward: Enclosure, backward: Enclosure) -> RenyiWitness:
    """The pair oriented towards its larger divergence (by the enclosures' centres)."""
    if backward.value > forward.value:
        return RenyiWitness(d2, d1, backward)
    return RenyiWitness(d1, d2, forward)


def renyi_witness(mech, d1: Runs, d2: Runs, alpha, dps: int) -> RenyiWitness:
    """The pair scored by its larger ``D_α``, oriented so that ``d1 → d2`` is that direction."""
    forward, backward = score_pairs(mech, [alpha], [(d1.expand(), d2.expand())], dps)
    return larger_direction(d1, d2, forward.at(0), backward.at(0))


def zcdp_witness(mech, d1: Runs, d2: Runs, dps: int) -> RenyiWitness:
    """The pair scored by its larger ``ρ``, oriented so that ``d1 → d2`` is that direction."""
    forward, backward = zcdp_both_ways(mech, d1, d2, dps, allow_any_pair=True)
    return larger_direction(d1, d2, forward.rho, backward.rho)


@dataclass(frozen=True)
class RenyiSearchResult:
    """The largest ``D_α`` (or ``ρ``) found by :func:`search_renyi` (:func:`search_zcdp`).

    Attributes
    ----------
    mechanism : object
        The mechanism searched.
    witness : RenyiWitness
        The best pair, oriented, with its enclosure of ``D_α`` (of ``ρ``).
    alpha : Fraction or float or None
        The order (``math.inf`` for ``α = ∞``; ``None`` for ``ρ``).
    evaluations, stopped_by, seconds, first_violation
        As in :class:`exactdp.search.SearchResult` (``stopped_by`` is ``"D_α = ∞"`` or
        ``"ρ = ∞"`` when a pair has an infinite divergence).
    claimed_rho : Fraction or None
        The ``ρ`` checked by :func:`search_zcdp`.
    """

    mechanism: object
    witness: RenyiWitness
    alpha: Fraction | float | None
    evaluations: int
    stopped_by: str
    seconds: float
    first_violation: int | None = None
    claimed_rho: Fraction | None = None

    @property
    def verdict(self) -> str | None:
        """For ``ρ``: ``"violation"`` when the enclosure's lower end exceeds the claimed ``ρ``,
        ``"within"`` when its upper end does not, ``"undecided"`` otherwise."""
        if self.claimed_rho is None:
            return None
        return self.witness.divergence.compared_with(self.claimed_rho)

    def record(self, dps: int = 15, text: bool = False) -> dict:
        """The record of ``exactdp search --alpha`` or ``--rho`` (``text``: the table's
        spelling)."""
        mech, witness = self.mechanism, self.witness
        d1, d2 = str(witness.d1), str(witness.d2)
        divergence = witness.divergence
        printed = printed_number(divergence.value, dps,
                                 enclosure=(divergence.lower, divergence.upper))
        command = f"exactdp {{}} {mech.name} {param_options(mech)} {input_options(d1, d2)}"
        if self.claimed_rho is not None:
            return {"mechanism": str(mech), "d1": d1, "d2": d2,
                    "claimed_rho": echoed_number(self.claimed_rho, dps, text),
                    **printed.fields("rho", text), "verdict": self.verdict,
                    "evaluations": self.evaluations, "stopped_by": self.stopped_by,
                    "first_violation": self.first_violation,
                    "recheck": command.format("zcdp")}
        alpha = "inf" if self.alpha == math.inf else format_number(self.alpha)
        return {
            "mechanism": str(mech), "d1": d1, "d2": d2,
            "alpha": echoed_number(self.alpha, dps, text),
            **printed.fields("divergence", text),
            "evaluations": self.evaluations, "stopped_by": self.stopped_by,
            "recheck": f"{command.format('renyi')} --alpha {shlex.quote(alpha)}",
        }


def _explore(mech, witness_of, noun: str, violates=lambda witness: False,
             stop_at_violation: bool = False, **options):
    """:func:`exactdp.search.explore` of the pairs scored by ``witness_of(d1, d2)``'s larger
    divergence (``noun``: ``"D_α"`` or ``"ρ"``; an infinite one ends the search)."""
    return explore(mech, witness_of, lambda witness: witness.divergence.value, violates,
                   stop_at_violation=stop_at_violation, ceiling=(f"{noun} = ∞", mpmath.inf),
                   noun=noun, **options)


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
    best, explored = _explore(
        mech, lambda d1, d2: renyi_witness(mech, d1, d2, order, dps), "D_α",
        max_length=max_length, seed=seed, budget=budget, max_evaluations=max_evaluations,
        progress=progress)
    return RenyiSearchResult(mech, best, order, explored.evaluations, explored.stopped_by,
                             explored.seconds)


def check_rho(rho) -> Fraction:
    """A claimed ``ρ`` as an exact rational ``> 0``, else a one-line
    :class:`~exactdp.errors.InputError`."""
    value = to_fraction(rho, "rho")
    if not value > 0:
        raise InputError(f"rho must be greater than 0, got rho={format_number(value)}")
    return value


def search_zcdp(mech, rho, max_length: int = 5, seed: int = 0, budget: float | None = None,
                max_evaluations: int = 200, dps: int = 15, stop_at_violation: bool = False,
                progress: bool | None = False) -> RenyiSearchResult:
    """Search neighbouring inputs for the largest certified ``ρ = sup_α D_α/α`` of ``mech``,
    against a claimed ``ρ`` (the mechanism is then not ``ρ``-zCDP where a pair's enclosure lies
    above it).

    Parameters
    ----------
    mech
        A mechanism whose outputs :func:`~exactdp.exact.divergences.zcdp.zcdp` supports; others are
        refused in one line.
    rho : number
        The claimed ``ρ > 0``.
    stop_at_violation : bool
        Stop at the first pair whose ``ρ`` is proven above the claim.

    The other parameters are :func:`search_renyi`'s (``dps``: digits of each ``ρ``); the result
    is a :class:`RenyiSearchResult` with ``claimed_rho`` and a ``verdict``.

    Examples
    --------
    >>> import exactdp
    >>> m = exactdp.mechanism("noisy_max_exponential", eps=2)      # claimed: ε²/8 = 1/2
    >>> result = search_zcdp(m, "1/2", max_length=2, max_evaluations=20, dps=5)
    >>> result.verdict, result.witness.divergence.lower > 0.7
    ('violation', True)
    """
    input_space(mech)  # a mechanism description, else one line
    claimed = check_rho(rho)
    best, explored = _explore(
        mech, lambda d1, d2: zcdp_witness(mech, d1, d2, dps), "ρ",
        violates=lambda witness: witness.divergence.compared_with(claimed) == "violation",
        stop_at_violation=stop_at_violation, max_length=max_length, seed=seed, budget=budget,
        max_evaluations=max_evaluations, progress=progress)
    return RenyiSearchResult(mech, best, None, explored.evaluations, explored.stopped_by,
                             explored.seconds, explored.first_violation, claimed)
