"""Zero-concentrated differential privacy of a pair: ``ρ = sup_{α>1} D_α(M(d1) ‖ M(d2))/α``.

A mechanism is ``ρ``-zCDP when ``D_α(M(D1) ‖ M(D2)) ≤ ρα`` for every order ``α > 1`` and every
ordered pair of neighbours (Bun & Steinke, "Concentrated Differential Privacy: Simplifications,
Extensions, and Lower Bounds", TCC 2016, arXiv:1605.02065, Definition 1.1); the smallest such
``ρ`` of one pair is the supremum of ``f(α) = D_α/α``.  It is bracketed rigorously from finitely
many certified ``D_α`` (``renyi.pair_divergence``), by two facts about
``g(α) = (α − 1)·D_α = ln Σ_a p1(a)^α p2(a)^{1−α}`` (docs/mathematics.md §13):

* ``g`` is convex (the log of a moment generating function, Hölder's inequality), so on
  ``[a, b]`` it lies below its chord and ``f(α) ≤ chord(α)/(α(α − 1))``, whose largest value on
  ``[a, b]`` is at an end or at a root of its derivative, solved in balls (the chord's excess is
  of second order in ``b − a``); ``D_α`` is non-decreasing (van Erven & Harremoës, "Rényi
  Divergence and Kullback-Leibler Divergence", IEEE Trans. Inf. Theory 60(7), 2014, Thm 3), so
  also ``f(α) ≤ D_b/a`` there;
* near ``α = 1``: ``f(α) ≤ D_b`` on ``(1, b]``; beyond the largest order ``A`` computed:
  ``f(α) ≤ D_∞/A``.

The grid is bisected where the bound is largest until the largest bound is within
``10^{−dps}`` (relative) of the largest certified ``f`` at a grid point.  A Gaussian location
shift has ``D_α = αΔ²/(2σ²)`` (Mironov, "Rényi Differential Privacy", IEEE CSF 2017, Prop. 7)
and so ``ρ = Δ²/(2σ²)`` exactly, every order reaching it; a discrete Gaussian shift by an
integer ``Δ`` has the same ``ρ``, reached at every integer order (``discrete_shift.py``); where
``D_∞ = ∞`` otherwise, ``ρ`` is ``∞`` if some output only ``d1`` can produce (every ``D_α``
infinite), else refused.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import mpmath
from flint import arb

from ...discrete_gaussian_law import DiscreteGaussian
from ...errors import InputError, PrecisionError
from ...formatting import format_bound, printed_number
from ...noise import Gaussian
from ...precision import (COMBINE_GUARD_DIGITS, Enclosure, check_dps, exact_mpf, to_arb,
                          working_bits)
from ..backends.piece_series import flint_context
from ..losses.privacy_loss import neighbouring_pair
from .discrete_shift import integer_distance
from .output_pairs import density_supremum, location_shift
from .renyi import INFINITE_ORDER, Divergence, divergences_both_ways, pair_divergence

#: Digits of each ``D_α`` beyond the digits asked of ``ρ``: their widths stay far below it.
ORDER_GUARD_DIGITS = 3
#: Digits of the output probabilities beyond those of each ``D_α`` (``renyi``'s sum loses no
#: digits as ``α → 1⁺``: the same probabilities serve every order).
PROBABILITY_GUARD_DIGITS = 2
#: The first grid: ``α = 1 + 2^j`` from ``j = −4``, doubling ``α − 1`` until ``D_∞/α`` falls
#: below the largest ``f`` found.
FIRST_STEP = Fraction(1, 16)
#: Most orders evaluated before :class:`~exactdp.errors.PrecisionError`.
MAX_ORDERS = 2000
#: Most doublings of the grid's last order (``α`` up to ``1 + 2^200``).
MAX_DOUBLINGS = 200


@dataclass(frozen=True)
class ZCDPResult:
    """``ρ`` of one ordered pair and where the supremum lies.

    Attributes
    ----------
    rho : Enclosure
        ``sup_{α>1} D_α(M(d1) ‖ M(d2))/α`` and its certified enclosure (``+inf`` when every
        ``D_α`` is infinite).
    alpha : Enclosure
        An order where ``D_α/α`` reaches the supremum (``value``: the grid's best order) and an
        enclosure of the orders where it can (outside it ``D_α/α`` is proven below ``ρ``); ``1``
        when the supremum is approached as ``α → 1⁺`` (the Kullback–Leibler divergence);
        ``+inf`` when every order reaches it (a Gaussian shift, ``ρ = 0``, ``ρ = ∞``).
    orders : int
        The orders at which ``D_α`` was computed.
    """

    rho: Enclosure
    alpha: Enclosure
    orders: int

    def fields(self, dps: int, text: bool = False) -> dict[str, str]:
        """``rho`` to the digits its enclosure supports with ``rho_lower``, ``rho_upper``
        (JSON; a table: ``rho_enclosure``), and ``alpha`` to the digits its enclosure of the
        orders supports (``"inf"``: every order reaches ``ρ``)."""
        rho, alpha = self.rho, self.alpha
        printed = printed_number(rho.value, dps, enclosure=(rho.lower, rho.upper))
        where = printed_number(alpha.value, dps, enclosure=(alpha.lower, alpha.upper))
        return {**printed.fields("rho", text), "alpha": where.value}


#: ``alpha`` when every order reaches the supremum.
EVERY_ORDER = Enclosure(mpmath.inf, mpmath.inf, mpmath.inf)


def zcdp(mech, d1, d2, dps: int = 30, allow_any_pair: bool = False) -> ZCDPResult:
    """The certified ``ρ = sup_{α>1} D_α(M(d1) ‖ M(d2))/α`` of one ordered pair.

    Parameters
    ----------
    mech : mechanism description or program
        Any mechanism :func:`~exactdp.exact.divergences.renyi.renyi_divergence` computes at finite
        orders (⊤/⊥ Sparse Vector variants, noisy max's index, programs with discrete return values,
        one released number ``q + η`` with Laplace or Gaussian ``η``, Laplace histograms).
    d1, d2 : str or sequence of numbers
        Query answers on the two inputs.
    dps : int
        Significant digits of ``ρ``: an enclosure of relative width at most ``10^{−dps}``.
    allow_any_pair : bool
        Skip the neighbour check.

    Returns
    -------
    ZCDPResult

    Notes
    -----
    The bracket and its refinement: the module docstring and docs/mathematics.md §13.

    Examples
    --------
    >>> import exactdp
    >>> def release(prng, queries):
    ...     return queries[0] + prng.normal(scale=2)
    >>> result = exactdp.zcdp(exactdp.program(release), [0], [1])     # Δ²/(2σ²) = 1/8
    >>> print(result.rho.value, result.alpha.value)
    0.125 +inf
    """
    d1, d2 = _checked(mech, d1, d2, dps, allow_any_pair)
    exact = _gaussian_shift(mech, d1, d2, dps)
    if exact is not None:
        return exact
    digits = dps + ORDER_GUARD_DIGITS + PROBABILITY_GUARD_DIGITS
    return supremum_over_orders(pair_divergence(mech, d1, d2, digits, allow_any_pair=True), dps,
                                mech.name)


def zcdp_both_ways(mech, d1, d2, dps: int = 30, allow_any_pair: bool = False
                   ) -> tuple[ZCDPResult, ZCDPResult]:
    """:func:`zcdp` of ``d1 → d2`` and of ``d2 → d1``, from one computation of the two output
    distributions (``renyi.divergences_both_ways``)."""
    d1, d2 = _checked(mech, d1, d2, dps, allow_any_pair)
    exact = _gaussian_shift(mech, d1, d2, dps)
    if exact is not None:
        return exact, exact
    digits = dps + ORDER_GUARD_DIGITS + PROBABILITY_GUARD_DIGITS
    both = divergences_both_ways(mech, d1, d2, digits, allow_any_pair=True)
    return tuple(supremum_over_orders(divergence, dps, mech.name) for divergence in both)


def _checked(mech, d1, d2, dps: int, allow_any_pair: bool):
    """The digits and the pair checked (:func:`~.loss.neighbouring_pair`); a mechanism whose
    ``D_α`` is known at ``α = ∞`` only (noisy max releasing its largest value) is refused in
    one line (:class:`~exactdp.errors.InputError`)."""
    check_dps(dps)
    if density_supremum(mech) is not None:
        raise InputError(f"{mech.name} releases its largest noisy value: its Rényi divergence "
                         f"is computed at alpha=inf only, so its zCDP ρ = sup_α D_α/α is not")
    return neighbouring_pair(mech, d1, d2, allow_any_pair)


def _gaussian_shift(mech, d1, d2, dps: int) -> ZCDPResult | None:
    """``ρ = D_2/2 = Δ²/(2σ²)`` of a Gaussian location shift (``D_α/α`` is the same at every
    order) and of a discrete Gaussian one (``D_α/α ≤ Δ²/(2σ²)`` with equality at every integer
    order, ``divergences/discrete_shift.py``; ``+∞`` when ``Δ`` is not an integer), ``None``
    for every other pair."""
    shift = location_shift(mech, d1, d2)
    if shift is None or not isinstance(shift.law, (Gaussian, DiscreteGaussian)):
        return None
    divergence = pair_divergence(mech, d1, d2, dps, allow_any_pair=True)(Fraction(2))
    half = [mpmath.ldexp(end, -1) for end in (divergence.value, divergence.lower,
                                              divergence.upper)]   # exact, at any precision
    every = isinstance(shift.law, Gaussian) or integer_distance(shift) in (None, 0)
    return ZCDPResult(Enclosure(*half), EVERY_ORDER if every else Enclosure.exact(2), 1)


def supremum_over_orders(divergence_at: Divergence, dps: int, name: str) -> ZCDPResult:
    """``sup_{α>1} D_α/α`` bracketed on a refined grid of orders (module docstring).

    Parameters
    ----------
    divergence_at : callable
        The pair's ``divergence(α, digits)``
        (:func:`~exactdp.exact.divergences.renyi.pair_divergence`), its output probabilities to
        ``PROBABILITY_GUARD_DIGITS`` more digits than ``dps + ORDER_GUARD_DIGITS``.
    dps : int
        Significant digits of ``ρ``.
    name : str
        The mechanism, for messages.

    Returns
    -------
    ZCDPResult
    """
    digits = dps + ORDER_GUARD_DIGITS
    nearest = Fraction(1, 2 ** working_bits(dps + 2, guard=0))   # α − 1 ≥ 10^{−dps−2}
    largest = divergence_at(INFINITE_ORDER, digits, absolute=True)
    if largest.upper == 0:
        return ZCDPResult(Enclosure.of_ball(arb(0)), EVERY_ORDER, 1)
    if largest.lower <= 0:  # equal distributions, not proven equal: 0 ≤ ρ < D_∞ ≤ 10^{−digits}
        return ZCDPResult(Enclosure(mpmath.mpf(0), mpmath.mpf(0), largest.upper), EVERY_ORDER, 1)
    if mpmath.isinf(largest.value):
        if mpmath.isinf(divergence_at(Fraction(2), digits).value):
            return ZCDPResult(Enclosure(mpmath.inf, mpmath.inf, mpmath.inf), EVERY_ORDER, 2)
        raise InputError(
            f"{name}: D_∞ = ∞ while D_2 is finite: ρ needs a finite D_∞ (beyond the largest "
            f"order computed, D_α/α ≤ D_∞/α) or a Gaussian location shift")

    def divergence(alpha: Fraction) -> arb:
        return divergence_at(alpha, digits).ball()

    with flint_context(working_bits(digits, guard=COMBINE_GUARD_DIGITS)):
        return _Bracket(divergence, largest.ball(), nearest, dps, name).run()


def _middle(a: Fraction, b: Fraction) -> Fraction:
    """Where ``[a, b]`` is split: at ``1 + 2^k`` near the geometric mean of ``a − 1`` and
    ``b − 1`` when ``b − 1 > 4(a − 1)`` (near ``α = 1`` the bounds scale with ``α − 1``), else at
    the centre."""
    if b - 1 <= 4 * (a - 1):
        return (a + b) / 2
    exponent = _log2(a - 1) + _log2(b - 1)
    return 1 + Fraction(2) ** (exponent // 2)


def _log2(x: Fraction) -> int:
    """``⌊log2 x⌋`` of a positive rational."""
    exponent = x.numerator.bit_length() - x.denominator.bit_length()
    return exponent if Fraction(2) ** exponent <= x else exponent - 1


def _decimal(end: arb, upward: bool) -> str:
    """An exact bracket end rounded outward to 12 digits, for a message."""
    return format_bound(exact_mpf(end), 12, upward)


class _Bracket:
    """The grid of orders, the bound of ``f = D_α/α`` on each piece between them, and its
    refinement (:func:`supremum_over_orders`).  Bounds and the best value are exact balls (an
    upper end, a lower end), compared exactly."""

    def __init__(self, divergence: Callable[[Fraction], arb], largest: arb, nearest: Fraction,
                 dps: int, name: str):
        self.divergence, self.largest, self.nearest = divergence, largest, nearest
        self.tolerance = arb(10) ** (-dps)
        self.dps, self.name = dps, name
        self.balls: dict[Fraction, arb] = {}      # α → D_α
        self.best: tuple[arb, Fraction] | None = None  # (lower end of the largest f, its α)

    def evaluate(self, alpha: Fraction) -> arb:
        """``D_α``, kept, and the best ``f`` so far updated."""
        ball = self.balls[alpha] = self.divergence(alpha)
        low = arb((ball / to_arb(alpha)).lower())
        if self.best is None or low > self.best[0]:
            self.best = (low, alpha)
        return ball

    def run(self) -> ZCDPResult:
        alpha = 1 + FIRST_STEP
        self.evaluate(alpha)
        for _ in range(MAX_DOUBLINGS):      # the tail α ≥ A: f ≤ D_∞/A < the best f
            if arb((self.largest / to_arb(alpha)).upper()) < self.best[0]:
                break
            alpha = 2 * alpha - 1
            self.evaluate(alpha)
        else:
            raise PrecisionError(f"{self.name}: D_∞/α stays above the largest D_α/α found up "
                                 f"to α = 1 + 2^{MAX_DOUBLINGS}")
        if alpha == 1 + FIRST_STEP:  # one order: the grid needs a second one
            self.evaluate(alpha := 2 * alpha - 1)
        orders = sorted(self.balls)
        pieces = [(None, orders[0], self.near_one_bound(orders[0]))]
        pieces += [(a, b, self.interval_bound(a, b)) for a, b in zip(orders, orders[1:])]
        while True:
            top = max(range(len(pieces)), key=lambda i: pieces[i][2].mid())
            upper, lower = pieces[top][2], self.best[0]
            if upper - lower <= self.tolerance * lower:
                return self.result(pieces, upper)
            if len(self.balls) >= MAX_ORDERS:
                raise PrecisionError(
                    f"{self.name}: ρ bracketed to [{_decimal(lower, False)}, "
                    f"{_decimal(upper, True)}] after "
                    f"{MAX_ORDERS} orders, not to {self.dps} digits (D_α/α nearly flat where "
                    f"its supremum lies, e.g. as α → 1⁺: ask fewer digits, --dps)")
            a, b, _ = pieces[top]
            if a is None:
                if b == 1 + self.nearest:
                    raise PrecisionError(f"{self.name}: ρ not bracketed to {self.dps} digits "
                                         f"near α = 1")
                self.evaluate(1 + self.nearest)
                pieces[top:top + 1] = [(None, 1 + self.nearest,
                                        self.near_one_bound(1 + self.nearest)),
                                       (1 + self.nearest, b,
                                        self.interval_bound(1 + self.nearest, b))]
            else:
                middle = _middle(a, b)
                self.evaluate(middle)
                pieces[top:top + 1] = [(a, middle, self.interval_bound(a, middle)),
                                       (middle, b, self.interval_bound(middle, b))]

    def near_one_bound(self, b: Fraction) -> arb:
        """``f(α) = D_α/α ≤ D_b`` for ``1 < α ≤ b`` (``D_α`` non-decreasing)."""
        return arb(self.balls[b].upper())

    def interval_bound(self, a: Fraction, b: Fraction) -> arb:
        """An upper end of ``f`` on ``[a, b]``: the smaller of ``D_b/a`` (``D_α``
        non-decreasing) and the largest value on ``[a, b]`` of
        ``h(α) = ℓ(α)/(α(α − 1))``, ``ℓ(α) = u + sα`` the chord of the convex
        ``g(α) = (α − 1)D_α`` from ``a`` to ``b``: at an end, or where ``h′ = 0``, a root of
        ``sα² + 2uα − u``."""
        low, high = to_arb(a), to_arb(b)
        g_low, g_high = (low - 1) * self.balls[a], (high - 1) * self.balls[b]
        slope = (g_high - g_low) / (high - low)
        offset = g_low - slope * low
        monotone = (self.balls[b] / low).upper()

        def h(x: arb) -> arb:   # the chord through g_low, not u + sα: no cancellation of u
            return (g_low + slope * (x - low)) / (x * (x - 1))

        def derivative(x: arb) -> arb:
            return (slope * x * (x - 1) - (g_low + slope * (x - low)) * (2 * x - 1)) \
                / (x * (x - 1)) ** 2

        values = [self.balls[a] / low, self.balls[b] / high]
        if slope != 0:
            root = (offset * offset + slope * offset).sqrt()
            for sign in (1, -1):
                critical = (sign * root - offset) / slope
                if not (critical < low or critical > high):
                    # h′ vanishes at the exact root, so its ball is small there: the mean
                    # value form loses only its square of the root's width
                    centre = arb(critical.mid())
                    values.append(h(centre) + derivative(critical) * (critical - centre))
        if not all(value.is_finite() for value in values):
            return arb(monotone)  # a root not separated from 0 or from 1 at this precision
        return arb(min(max(value.upper() for value in values), monotone))

    def result(self, pieces: list, upper: arb) -> ZCDPResult:
        """``ρ`` in ``[best, upper]``, and the orders of the pieces whose bound reaches the best
        value (outside them ``f`` is proven smaller)."""
        lower, best_alpha = self.best
        candidates = [(a, b) for a, b, bound in pieces if not bound < lower]
        low = 1 if any(a is None for a, _ in candidates) else min(a for a, _ in candidates)
        high = max(b for _, b in candidates)
        rho = Enclosure.of_ball(lower.union(upper))
        alpha = Enclosure(*(exact_mpf(to_arb(x).mid()) for x in (best_alpha, low, high)))
        return ZCDPResult(rho, alpha, len(self.balls))
