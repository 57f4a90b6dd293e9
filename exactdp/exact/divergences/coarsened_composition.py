"""A certified bracket ``[δ_lower, δ_upper]`` of ``δ_K(ε)``, the ``K``-fold composition of a
pair's privacy-loss distribution, when its exact sum over types (``composition.py``) is too
large: every loss is coarsened to a cell of a grid of step ``h`` and the composition is a
polynomial power in ball arithmetic (docs/mathematics.md §15, "Coarsened composition").

Each atom ``j`` (loss ball ``ℓ_j``, mass ``P_j`` under ``d1``, mass ``Q_j = P_j e^{−ℓ_j}`` under
``d2``) lies in its cell ``[g_j, g_j + ρh]``, ``g_j = (k_j + θ)h`` (:func:`grid_cells`).  The
composed outputs of level ``s`` (``Σ k = s + K·min k``) then have losses in
``[G_s, G_s + w]``, ``G_s = Σ g``, ``w = Kρh``, and their masses ``p_s`` and ``q_s`` are the
coefficients of ``(Σ_j P_j x^{k_j − min k})^K`` and ``(Σ_j Q_j x^{k_j − min k})^K``
(``arb_poly`` powers, in balls).  With ``m_∞`` the mass of the infinite loss:

* lower: ``1 − (1 − m_∞)^K + Σ_s (p_s − e^ε q_s)₊``, the δ of the pair of level masses, a
  post-processing of the composed pair (data processing inequality);
* upper: a level with ``G_s ≥ ε`` gives ``p_s − e^ε q_s`` exactly, one with ``G_s + w ≤ ε``
  gives 0, and one between, ``Σ p(a)·f(R(a))`` with ``R = L − G_s ∈ [0, w]`` and
  ``f(R) = (1 − e^{ε − G_s − R})₊``, at most the smaller of two bounds: the chord
  ``(1 − e^{ε − G_s − w})·(p_s − e^{G_s} q_s)/(1 − e^{−w})`` of the convex ``u ↦ (1 − e^ε u)₊``
  over ``u = e^{−L}``, and ``α p_s + β m_s + γ e^{G_s} q_s`` for a majorant
  ``α + βR + γe^{−R} ≥ f`` on ``[0, w]`` (:func:`_majorant_bound`), with
  ``m_s = Σ p(a) R(a)`` the coefficients of ``K·F^{K−1}·F_R``, ``F = Σ_j P_j x^{k_j − min k}``
  and ``F_R = Σ_j P_j (ℓ_j − g_j) x^{k_j − min k}``.

Both ends are sharper than rounding every loss up (pessimistic) or down (optimistic); the chord
alone leaves a gap like ``w²`` (the mass of the levels straddling ``ε`` times their width), the
majorant, which sees each level's mean and spread of ``R``, a few hundred times less at the
sizes of ``benchmarks/compose_speed.py``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, arb_poly, ctx

from ...precision import COMBINE_GUARD_DIGITS, Enclosure, exact_mpf, to_arb, working_bits
from ...refinement import refine
from ...sequences import to_fraction
from ..backends.piece_series import flint_context
from .composition import composed_infinite_mass
from .loss_distribution import LossAtoms

#: Most levels of the composed polynomial: ``benchmarks/compose_speed.py`` brackets 100 runs of 11
#: distinct losses at this size in about 2 s (nearly all of it the polynomial products), twice
#: as long at twice the size.
MAX_GRID_LEVELS = 2 ** 16

#: Levels of the first, coarsest grid.
FIRST_GRID_LEVELS = 2 ** 12

#: Most runs bracketed on a grid: beyond, the cells' total width ``K·h ≥ K²·spread/2^16`` is
#: more than 15 times the spread of one run's losses, and the bracket says next to nothing
#: (while the powers' cost grows with ``K``: more squarings, wider ranges of magnitude).
MAX_GRID_COMPOSITIONS = 1000


@dataclass(frozen=True)
class CoarsenedDelta:
    """``δ_K(ε)`` bracketed by a coarsened composition.

    Attributes
    ----------
    delta : Enclosure
        ``[δ_lower, δ_upper]`` (each end rounded outward) and a point between.
    grid_step : Fraction
        The step ``h`` of the grid the losses were coarsened to.
    """

    delta: Enclosure
    grid_step: Fraction


@dataclass(frozen=True)
class Grid:
    """Every loss ball in its cell ``[(k_j + θ)h, (k_j + θ + ρ)h]``.

    Attributes
    ----------
    step : Fraction
        ``h``.
    offset : Fraction
        ``θ``.
    width : Fraction
        ``ρ``, the cells' width in steps (below 1 when the balls are narrow).
    cells : list of int
        ``k_j``, one per atom.
    """

    step: Fraction
    offset: Fraction
    width: Fraction
    cells: list


def grid_cells(losses: list, step: Fraction) -> Grid:
    """The cells of step ``h`` holding the loss balls, with ``θ`` at the end of the widest gap
    between the balls' positions modulo ``h`` (taken circularly), so the cells are as narrow as
    that step allows: ``ρ`` is 1 less that gap, in steps.

    Examples
    --------
    >>> from flint import arb
    >>> grid = grid_cells([arb("0.25"), arb("1.375"), arb("2.75")], Fraction(1))
    >>> grid.offset, grid.width, grid.cells   # positions 1/4, 3/8, 3/4 modulo 1
    (Fraction(1, 4), Fraction(1, 2), [0, 1, 2])
    """
    ends = [(_rational(loss.lower()) / step, _rational(loss.upper()) / step) for loss in losses]
    positions = sorted((low % 1, high - low) for low, high in ends)
    # (gap before a position, that position), the first position once more one step on
    following = positions[1:] + [(positions[0][0] + 1, positions[0][1])]
    offset = max((start - (low + length), start % 1) for (low, length), (start, _)
                 in zip(positions, following))[1]
    cells = [math.floor(low - offset) for low, _ in ends]
    width = max(high - offset - cell for cell, (_, high) in zip(cells, ends))
    return Grid(step, offset, width, cells)


def grid_bracket(atoms: LossAtoms, eps_values: list[Fraction], compositions: int,
                 grid: Grid) -> list[tuple[arb, arb]]:
    """``(δ_lower, δ_upper)`` balls of ``δ_K(ε)`` for every ``ε`` of ``eps_values``, the
    losses coarsened to the cells of ``grid`` (module docstring), at flint's current precision.

    Parameters
    ----------
    atoms : LossAtoms
        The pair's privacy-loss distribution (``loss_distribution.pair_loss_atoms``).
    eps_values : list of Fraction
        Values ``ε ≥ 0``.
    compositions : int
        ``K ≥ 1``.
    grid : Grid
        The cells of the losses (:func:`grid_cells`).

    Returns
    -------
    list of (arb, arb)
        Per ``ε``, a ball holding a lower bound of ``δ_K(ε)`` and one holding an upper bound,
        each clamped to ``[0, 1]``.

    Examples
    --------
    >>> from flint import arb
    >>> atoms = LossAtoms([-arb(2).log(), arb(2).log()], [arb(1) / 3, arb(2) / 3], arb(0))
    >>> grid = grid_cells(atoms.losses, Fraction(1, 64))
    >>> (low, high), (low_0, high_0) = grid_bracket(atoms, [Fraction(1, 2), Fraction(0)], 2,
    ...                                             grid)
    >>> exact = (4 - arb(0.5).exp()) / 9   # from the composed loss 2 ln 2 alone (p = 4/9)
    >>> low.overlaps(exact) and high.overlaps(exact) and high - low < 1e-12
    True
    >>> round(float(low_0.mid()), 6), round(float(high_0.mid()), 6)   # 1/3: a loss 0 at ε = 0
    (0.333333, 0.333334)
    """
    step, lowest = grid.step, min(grid.cells)
    width = compositions * grid.width * step   # w: every level's losses in [G_s, G_s + w]
    p_coefficients, q_coefficients, r_coefficients = (
        [arb(0)] * (max(grid.cells) - lowest + 1) for _ in range(3))
    for cell, loss, mass in zip(grid.cells, atoms.losses, atoms.masses):
        p_coefficients[cell - lowest] += mass
        q_coefficients[cell - lowest] += mass * (-loss).exp()
        r_coefficients[cell - lowest] += mass * (loss - to_arb((cell + grid.offset) * step))
    all_but_one = _power(p_coefficients, compositions - 1)
    p_levels = all_but_one * arb_poly(p_coefficients)
    r_levels = compositions * all_but_one * arb_poly(r_coefficients)   # m_s
    q_levels = _power(q_coefficients, compositions)
    infinity = composed_infinite_mass(atoms, compositions)
    base = compositions * (lowest + grid.offset) * step   # G_0
    p_total, q_total = p_levels(arb(1)), q_levels(arb(1))
    w = to_arb(width)
    decay = (-w).expm1()   # −(1 − e^{−w}), to its relative precision however small w is
    brackets = []
    for eps in eps_values:
        # levels s ≥ above have G_s ≥ ε; levels s < straddle have G_s + w ≤ ε
        above = min(max(math.ceil((eps - base) / step), 0), p_levels.length())
        straddle = min(max(math.floor((eps - width - base) / step) + 1, 0), above)
        threshold = to_arb(eps)
        factor = threshold.exp()
        high = (p_total - p_levels.truncate(above)(arb(1))
                - factor * (q_total - q_levels.truncate(above)(arb(1))))
        lower, upper = infinity + high, infinity + high   # then each clamped to [0, 1]
        for level in range(straddle, above):
            p, q = p_levels[level], q_levels[level]
            cut = to_arb(base + level * step)
            lower += (p - factor * q).max(arb(0))
            shifted = cut.exp() * q   # Σ p(a) e^{−R(a)}
            # the chord's slope (1 − e^{ε − G − w})/(1 − e^{−w}), which lies in [0, 1]
            slope = ((threshold - cut - w).expm1() / decay).max(arb(0)).min(arb(1))
            chord = slope * (p - shifted).max(arb(0))
            majorant = _majorant_bound(p, r_levels[level], shifted,
                                       eps - base - level * step, width)
            upper += chord if majorant is None else chord.min(majorant.max(arb(0)))
        brackets.append((lower.max(arb(0)), upper.min(arb(1))))
    return brackets


def _majorant_bound(mass: arb, moment: arb, shifted: arb, reach: Fraction,
                    width: Fraction) -> arb | None:
    """An upper bound of ``Σ p(a)·f(R(a))``, ``f(R) = (1 − e^{r − R})₊`` with ``r = reach``
    (``ε − G_s``, in ``(0, w)``), over outputs with ``R ∈ [0, w]``, from ``mass = Σ p``,
    ``moment = Σ p R`` and ``shifted = Σ p e^{−R}``; ``None`` when the mass is too small to
    estimate from.

    Any ``g(R) = α + βR + γe^{−R} ≥ f`` on ``[0, w]`` gives ``Σ p f ≤ α·mass + β·moment +
    γ·shifted``.  ``g`` is taken convex (``γ > 0``), tangent to 0 at ``A = r − d`` and with the
    slope of ``1 − e^{r − R}`` at ``B = r + d``, ``d = √(σ² + (μ − r)²)`` for the level's mean
    ``μ`` and spread ``σ`` of ``R`` estimated in floating point (a quadratic tangent to
    ``(R − r)₊`` at ``r ± d`` bounds its mean best for that mean and spread); its coefficients are
    then exact binary numbers, and ``α`` is raised by what a proof of ``g ≥ 0`` and
    ``g ≥ 1 − e^{r − R}`` on ``[0, w]`` finds missing (:func:`_convex_minimum`), so the bound
    holds whatever the estimates were.
    """
    p, r, w = float(mass.mid()), float(reach), float(width)
    if not (p > 1e-300 and w > 1e-100):
        return None
    mean = min(max(float(moment.mid()) / p, 0.0), w)
    spread = min(max(2 * (float(shifted.mid()) / p * math.exp(mean) - 1), (w / 1000) ** 2),
                 w ** 2)   # E e^{−R} ≈ e^{−μ}(1 + σ²/2)
    d = math.sqrt(spread + (mean - r) ** 2)
    gamma = math.exp(-d) / (math.exp(d - r) - math.exp(-d - r))
    beta = gamma * math.exp(d - r)
    alpha = -beta * (r - d + 1)
    alpha, beta, gamma = arb(alpha), arb(beta), arb(gamma)   # exact binary numbers
    missing = arb(0).max(-_convex_minimum(alpha, beta, gamma, width)).max(
        -_convex_minimum(alpha - 1, beta, gamma + to_arb(reach).exp(), width))
    return (alpha + missing) * mass + beta * moment + gamma * shifted


def _convex_minimum(c0: arb, c1: arb, c2: arb, end: Fraction) -> arb:
    """A lower bound of ``min_{R ∈ [0, end]} c0 + c1 R + c2 e^{−R}`` for ``c2 > 0`` (a convex
    function): its tangent at any point ``t`` lies below it, so the minimum is at least the
    tangent's least value on ``[0, end]``; ``t`` is the minimiser ``ln(c2/c1)`` clipped to
    ``[0, end]`` in floating point (then exact), where the tangent is nearly flat."""
    high, low = float(c1.mid()), float(c2.mid())
    point = end if high <= 0 else Fraction(min(max(math.log(low) - math.log(high), 0.0),
                                               float(end)))
    at = to_arb(point)
    value, slope = c0 + c1 * at + c2 * (-at).exp(), c1 - c2 * (-at).exp()
    return arb((value + (slope * to_arb(-point)).min(slope * to_arb(end - point))).lower())


def _power(coefficients: list, exponent: int) -> arb_poly:
    """``(Σ c_i x^i)^K`` for non-negative ``c_i`` (``n_1`` of them, of sum at most 1), by
    repeated squaring in balls, each product's coefficients of upper end
    ``≤ τ = 2^{−(prec + bitlength(K·n_1))}`` replaced by the ball ``[0 ± τ]``, which holds them
    (they are ``≥ 0``): Arb multiplies polynomials of coefficients of like magnitudes faster,
    and the composed distribution's far tails span hundreds of orders of magnitude.  Each of
    the at most ``2·log₂ K`` products adds at most ``K·n_1·τ ≤ 2^{−prec}`` to the sum of the
    radii, which later products (of total mass at most 1) do not enlarge."""
    base = arb_poly(coefficients)
    if exponent == 0:
        return arb_poly([1])
    floor = arb(2) ** -(ctx.prec + (exponent * len(coefficients)).bit_length())
    result = base
    for bit in bin(exponent)[3:]:
        result = _trimmed(result * result, floor)
        if bit == "1":
            result = _trimmed(result * base, floor)
    return result


def _trimmed(poly: arb_poly, floor: arb) -> arb_poly:
    """``poly`` with every coefficient whose ball lies below ``floor`` replaced by
    ``[0 ± floor]`` (:func:`_power`)."""
    tiny = arb(0, floor)
    return arb_poly([c if c.upper() > floor else tiny for c in poly.coeffs()])


def coarsened_profile(atoms: LossAtoms, eps_values: list[Fraction], compositions: int,
                      dps: int) -> list[CoarsenedDelta]:
    """``δ_K(ε)`` of every ``ε`` bracketed by :func:`grid_bracket` on grids refined until every
    bracket is at most ``10^{−dps}`` wide, or until the composed polynomial would have more than
    :data:`MAX_GRID_LEVELS` levels: the last brackets are returned then, however wide (they
    prove the digits they prove).  The caller keeps ``K`` at most
    :data:`MAX_GRID_COMPOSITIONS`.

    The gap shrinks like ``h²``, so each next grid has the levels the last gap asks for,
    ``levels·√(gap/10^{−dps})`` (a quarter more), at least twice as many and at most
    :data:`MAX_GRID_LEVELS` (:func:`~exactdp.refinement.refine`).  The balls carry the digits
    of the gap the next grid is expected to reach, ``gap·(levels/next)²``, not more (they cost
    time), with :data:`~exactdp.precision.COMBINE_GUARD_DIGITS` to spare.

    Parameters
    ----------
    atoms : LossAtoms
        The pair's privacy-loss distribution, at least one finite atom.
    eps_values : list of Fraction
        Values ``ε ≥ 0``.
    compositions : int
        ``K``, from 1 to :data:`MAX_GRID_COMPOSITIONS`.
    dps : int
        The bracket's width asked, ``10^{−dps}``.

    Returns
    -------
    list of CoarsenedDelta
        Per ``ε``, the bracket and the grid step of the last grid.
    """
    tolerance = Fraction(1, 10 ** dps)
    last = {}   # the previous attempt's levels and gap

    def attempt(levels: int) -> tuple[bool, tuple[Fraction, Fraction, list[Enclosure]]]:
        digits = dps
        if last.get("gap"):
            expected = last["gap"] * Fraction(last["levels"], levels) ** 2
            digits = min(dps, max(1, len(str(expected.denominator))
                                  - len(str(expected.numerator))))   # ≈ −log10
        grid = _grid(atoms.losses, compositions, levels)
        with flint_context(working_bits(digits,
                                        guard=COMBINE_GUARD_DIGITS + len(str(compositions)))):
            brackets = [Enclosure.of_ball(lower.union(upper)) for lower, upper
                        in grid_bracket(atoms, eps_values, compositions, grid)]
        gap = max(_rational_mpf(bracket.upper) - _rational_mpf(bracket.lower)
                  for bracket in brackets)
        last.update(levels=levels, gap=gap)
        return gap <= tolerance or levels >= MAX_GRID_LEVELS, (gap, grid.step, brackets)

    def following(result, levels: int) -> int:
        ratio = result[0] / tolerance   # the gap shrinks like levels^−2
        if ratio >= (Fraction(4, 5) * Fraction(MAX_GRID_LEVELS, levels)) ** 2:
            return MAX_GRID_LEVELS
        return min(max(math.ceil(Fraction(5, 4) * levels * math.sqrt(ratio)), 2 * levels),
                   MAX_GRID_LEVELS)

    _, step, brackets = refine(attempt, FIRST_GRID_LEVELS, MAX_GRID_LEVELS,
                               lambda result, levels: "the last grid is always accepted",
                               following)
    return [CoarsenedDelta(delta, step) for delta in brackets]


def _grid(losses: list, compositions: int, levels: int) -> Grid:
    """The grid for a composed polynomial of about ``levels`` levels: of the steps
    ``h_i = h_0·(1 + i/64)``, ``i < 16``, from ``h_0 ≥ K·spread/levels`` (the least one in
    units of ``2^{−20}``), the one with the narrowest cells ``ρh`` (:func:`grid_cells`): the
    gap of the bracket grows like ``(Kρh)²``, the work like ``1/h``.  A polynomial of more
    than ``2·levels`` levels (``K`` times the cells' span, when ``K`` is near ``levels``) is
    not taken; the step ``2·spread`` puts every loss in one cell (one level, however large
    ``K``)."""
    spread = _rational(losses[-1].upper()) - _rational(losses[0].lower())
    unit = Fraction(1, 2 ** 20)
    least = max(unit, math.ceil(compositions * spread / levels / unit) * unit)
    grids = [grid for grid in (grid_cells(losses, least * (64 + i) / 64) for i in range(16))
             if compositions * (max(grid.cells) - min(grid.cells)) < 2 * levels]
    return min(grids or [grid_cells(losses, 2 * spread)],
               key=lambda grid: grid.width * grid.step)


def _rational(end: arb) -> Fraction:
    """An exact end of a ball as a rational."""
    return _rational_mpf(exact_mpf(end))


def _rational_mpf(value) -> Fraction:
    """An exact binary mpf as a rational."""
    return to_fraction(value, "an end of an enclosure")
