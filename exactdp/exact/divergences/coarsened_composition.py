"""A certified bracket ``[δ_lower, δ_upper]`` of ``δ_K(ε)``, the ``K``-fold composition of a
pair's privacy-loss distribution, when its exact sum over types (``composition.py``) is too
large: every loss is coarsened to a grid of step ``h`` and the composition is a polynomial power
in ball arithmetic (docs/mathematics.md §15, "Coarsened composition").

Each atom ``j`` (loss ball ``ℓ_j``, mass ``P_j`` under ``d1``, mass ``Q_j = P_j e^{−ℓ_j}`` under
``d2``) is put in the grid cell ``[g_j, g_j + h]``, ``g_j = (k_j + θ)h``, that holds its whole
ball (the offset ``θ`` is chosen so that no ball straddles a grid point).  The composed outputs
of level ``s`` (``Σ k = s + K·min k``) then have losses in ``[G_s, G_s + w]``,
``G_s = Σ g``, ``w = Kh``, and their masses ``p_s``, ``q_s`` are the coefficients of
``(Σ_j P_j x^{k_j − min k})^K`` and ``(Σ_j Q_j x^{k_j − min k})^K`` (``arb_poly`` powers, in
balls).  With ``m_∞`` the mass of the infinite loss:

* lower: ``1 − (1 − m_∞)^K + Σ_s (p_s − e^ε q_s)₊``, the δ of the pair of level masses, which
  is a post-processing of the composed pair (data processing inequality);
* upper: levels with ``G_s ≥ ε`` give ``p_s − e^ε q_s`` exactly, levels with ``G_s + w ≤ ε``
  give 0, and a level between gives at most
  ``(1 − e^{ε − G_s − w})·(p_s − e^{G_s} q_s)/(1 − e^{−w})``, the chord of the convex
  ``u ↦ (1 − e^ε u)₊`` over ``u = e^{−L} ∈ [e^{−G_s−w}, e^{−G_s}]``.

Both ends are sharper than rounding every loss up (pessimistic) or down (optimistic), and
their gap shrinks like ``w²`` (the levels straddling ``ε`` times their width ``w``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, arb_poly

from ...errors import PrecisionError
from ...precision import COMBINE_GUARD_DIGITS, Enclosure, exact_mpf, to_arb, working_bits
from ...refinement import refine
from ...sequences import to_fraction
from ..backends.piece_series import flint_context
from .loss_distribution import LossAtoms

#: Most levels of the composed polynomial: ``benchmarks/compose_speed.py`` measures its two
#: ``arb_poly`` powers at about 2 s at this size (11 distinct losses composed 100 times).
MAX_GRID_LEVELS = 2 ** 17

#: Levels of the first, coarsest attempt.
FIRST_GRID_LEVELS = 2 ** 12


@dataclass(frozen=True)
class CoarsenedDelta:
    """``δ_K(ε)`` bracketed by a coarsened composition.

    Attributes
    ----------
    delta : Enclosure
        ``[δ_lower, δ_upper]`` (each end rounded outward) and its midpoint.
    grid_step : Fraction
        The step ``h`` the losses were coarsened to.
    """

    delta: Enclosure
    grid_step: Fraction


def grid_bracket(atoms: LossAtoms, eps_values: list[Fraction], compositions: int,
                 step: Fraction) -> list[tuple[arb, arb]]:
    """``(δ_lower, δ_upper)`` balls of ``δ_K(ε)`` for every ``ε`` of ``eps_values``, the
    losses coarsened to the grid of step ``step`` (module docstring), at flint's current
    precision; :class:`~exactdp.errors.PrecisionError` when a loss ball is too wide for the
    grid.

    Examples
    --------
    >>> from flint import arb
    >>> atoms = LossAtoms([arb(2).log(), -arb(2).log()], [arb(2) / 3, arb(1) / 3], arb(0))
    >>> [(float(low), float(high)) for low, high in
    ...  grid_bracket(atoms, [Fraction(0)], 2, Fraction(1, 64))]   # exact: 1/3
    [(0.333333333333333, 0.333333333333333)]
    """
    offset, cells = _grid_cells(atoms.losses, step)
    lowest = min(cells)
    width = compositions * step
    p_coefficients, q_coefficients = ([arb(0)] * (max(cells) - lowest + 1) for _ in range(2))
    for cell, loss, mass in zip(cells, atoms.losses, atoms.masses):
        p_coefficients[cell - lowest] += mass
        q_coefficients[cell - lowest] += mass * (-loss).exp()
    p_levels, q_levels = (arb_poly(coefficients) ** compositions
                          for coefficients in (p_coefficients, q_coefficients))
    infinity = 1 - (1 - atoms.infinity_mass) ** compositions
    base = compositions * (lowest + offset) * step   # G_0
    size = p_levels.length()
    p_total, q_total = p_levels(arb(1)), q_levels(arb(1))
    w, decay = to_arb(width), 1 - (-to_arb(width)).exp()
    brackets = []
    for eps in eps_values:
        # levels s ≥ above have G_s ≥ ε; levels s < straddle have G_s + w ≤ ε
        above = min(max(math.ceil((eps - base) / step), 0), size)
        straddle = min(max(math.floor((eps - width - base) / step) + 1, 0), above)
        threshold = to_arb(eps)
        factor = threshold.exp()
        high_mass = (p_total - p_levels.truncate(above)(arb(1))
                     - factor * (q_total - q_levels.truncate(above)(arb(1))))
        lower, upper = infinity + high_mass, infinity + high_mass
        for level in range(straddle, above):
            p, q = p_levels[level], q_levels[level]
            cut = to_arb(base + level * step)
            lower += (p - factor * q).max(arb(0))
            upper += ((1 - (threshold - cut - w).exp()) * (p - cut.exp() * q).max(arb(0))
                      / decay)
        brackets.append((lower, upper))
    return brackets


def coarsened_profile(atoms: LossAtoms, eps_values: list[Fraction], compositions: int,
                      dps: int) -> list[CoarsenedDelta]:
    """``δ_K(ε)`` of every ``ε`` bracketed by :func:`grid_bracket` on grids refined until every
    bracket is at most ``10^{−dps}`` wide, or until the composed polynomial would have more than
    :data:`MAX_GRID_LEVELS` levels: the last brackets are returned then, however wide (they
    prove the digits they prove).

    The gap shrinks like ``h²``, so each next grid has the levels the last gap asks for,
    ``levels·√(gap/10^{−dps})`` (a quarter more), at least twice as many and at most
    :data:`MAX_GRID_LEVELS` (:func:`~exactdp.refinement.refine`).  The balls carry the digits
    of the gap that grid is expected to reach, ``gap·(levels/next)²``, not more (they cost
    time), with :data:`~exactdp.precision.COMBINE_GUARD_DIGITS` to spare.
    """
    spread = _fraction(atoms.losses[-1].upper()) - _fraction(atoms.losses[0].lower())
    tolerance = Fraction(1, 10 ** dps)
    last = {}   # the previous attempt's levels and gap

    def attempt(levels: int) -> tuple[bool, tuple[Fraction, Fraction, list[Enclosure]]]:
        digits = dps
        if last:
            expected = last["gap"] * Fraction(last["levels"], levels) ** 2
            digits = min(dps, max(1, -math.floor(math.log10(expected)))) if expected else dps
        bits = working_bits(digits, guard=COMBINE_GUARD_DIGITS + len(str(compositions)))
        step = _grid_step(spread, compositions, levels)
        with flint_context(bits):
            brackets = [Enclosure.of_ball(lower.union(upper))
                        for lower, upper in grid_bracket(atoms, eps_values, compositions, step)]
        gap = max(_fraction_of_mpf(e.upper) - _fraction_of_mpf(e.lower) for e in brackets)
        last.update(levels=levels, gap=gap)
        return gap <= tolerance or levels >= MAX_GRID_LEVELS, (gap, step, brackets)

    def following(result, levels: int) -> int:
        wanted = math.ceil(1.25 * levels * math.sqrt(result[0] / tolerance))
        return min(max(wanted, 2 * levels), MAX_GRID_LEVELS)

    _, step, brackets = refine(attempt, min(FIRST_GRID_LEVELS, MAX_GRID_LEVELS),
                               MAX_GRID_LEVELS, lambda result, levels: "unreachable",
                               following)
    return [CoarsenedDelta(delta, step) for delta in brackets]


def _grid_step(spread: Fraction, compositions: int, levels: int) -> Fraction:
    """``h`` for a composed polynomial of about ``levels`` levels, ``K·spread/h + K``: a
    dyadic rational (``2^{−20}`` units) at least ``K·spread/levels``, so a ball of it is
    exact."""
    unit = Fraction(1, 2 ** 20)
    return max(unit, math.ceil(compositions * spread / levels / unit) * unit)


def _grid_cells(losses: list, step: Fraction) -> tuple[Fraction, list[int]]:
    """``(θ, [k_j])``: every loss ball in ``[(k_j + θ)h, (k_j + θ + 1)h]``, ``θ`` the first of
    ``0, 1/(2m+2), …`` (``m`` balls) for which that holds; a ball narrower than
    ``h/(2m + 2)`` holds at most one of them modulo ``h``, so one fits when every ball is that
    narrow, else :class:`~exactdp.errors.PrecisionError`."""
    ends = [(_fraction(loss.lower()) / step, _fraction(loss.upper()) / step) for loss in losses]
    candidates = 2 * len(losses) + 2
    for index in range(candidates):
        offset = Fraction(index, candidates)
        cells = [math.floor(low - offset) for low, _ in ends]
        if all(high <= cell + offset + 1 for cell, (_, high) in zip(cells, ends)):
            return offset, cells
    raise PrecisionError(f"a privacy loss's ball is too wide for a grid of step {step}: "
                         f"no offset puts every loss in one grid cell")


def _fraction(end: arb) -> Fraction:
    """An exact end of a ball as a rational."""
    return _fraction_of_mpf(exact_mpf(end))


def _fraction_of_mpf(value) -> Fraction:
    """An exact binary mpf as a rational."""
    return to_fraction(value, "an end of an enclosure")
