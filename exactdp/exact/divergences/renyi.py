"""The Rényi divergence ``D_α(M(d1) ‖ M(d2))`` of a mechanism on two neighbouring inputs.

``D_α(P ‖ Q) = (1/(α − 1)) ln Σ_a p(a)^α q(a)^{1−α}`` for ``α > 1`` (an integral of densities
for a released number), and ``D_∞ = sup_a ln(p(a)/q(a))`` (Mironov, "Rényi Differential
Privacy", IEEE CSF 2017, Definition 3):

* discrete outputs: the sum over every output of ``max_privacy_loss``'s enumeration (or a
  program's return values), each term ``e^{α ln p1 + (1−α) ln p2}`` in balls; an output with
  ``p1 > 0 = p2`` (exact zeros) makes the divergence ``+∞``;
* a Laplace shift by ``Δ`` with scale ``b``: the integral over the three pieces between the
  kinks ``0`` and ``Δ``, where both log densities are linear, each piece ``∫ e^{c + rx} dx``
  exactly (``exponential_sums.exp_integral``); ``D_∞ = Δ/b``;
* a Gaussian shift by ``Δ`` with ``σ``: the closed form ``αΔ²/(2σ²)`` (Mironov 2017,
  Proposition 7); ``D_∞ = +∞``;
* a discrete Gaussian shift: ``αΔ²/(2σ²)`` plus a ratio of theta functions
  (``divergences/discrete_shift.py``); ``D_∞ = +∞``;
* noisy max releasing its largest value: ``D_∞`` only, the supremum of the density ratio
  certified by a branch and bound over the values (``losses/value_supremum.py``).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import mpmath
from flint import arb, ctx

from ...discrete_gaussian_law import DiscreteGaussian
from ...errors import InputError, MethodUnavailableError
from ...noise import Kind, Laplace
from ...precision import (COMBINE_GUARD_DIGITS, PART_GUARD_DIGITS, Enclosure, check_dps, to_arb,
                         working_bits)
from ...sequences import Runs, format_number, to_fraction
from ..backends.arithmetics import BALLS
from ..backends.exponential_sums import exp_integral, piece_in
from ..form.integral_form import interior_point
from ..losses.privacy_loss import neighbouring_pair
from .discrete_shift import discrete_shift_divergence
from .output_pairs import (LocationShift, at_least_zero, complete_pairs, density_supremum,
                           location_shift, refined)
from ..backends.piece_series import flint_context

#: ``α = ∞``: the largest log ratio.
INFINITE_ORDER = math.inf
#: ``divergence(α, digits)`` → ``D_α`` of one pair to ``digits`` digits (:func:`pair_divergence`).
Divergence = Callable[..., "Enclosure"]


@dataclass(frozen=True)
class RenyiPoint:
    """``D_α`` at one order.

    Attributes
    ----------
    alpha : Fraction or float
        ``α`` exactly as given (``math.inf`` for ``α = ∞``).
    divergence : Enclosure
        ``D_α(M(d1) ‖ M(d2))`` in nats and its certified enclosure (``+inf`` when infinite).
    """

    alpha: Fraction | float
    divergence: Enclosure


def check_alphas(alphas) -> list:
    """The orders as exact rationals ``> 1`` (``math.inf`` for an infinite order, spelled
    ``inf``, ``math.inf`` or ``mpmath.inf``): a non-empty list."""
    if isinstance(alphas, (str, int, float, Fraction)):
        alphas = [alphas]
    values = []
    for alpha in alphas or ():
        if isinstance(alpha, str) and alpha.strip().lower() in ("inf", "+inf", "infinity"):
            alpha = math.inf
        if not isinstance(alpha, (bool, str)) and isinstance(alpha, (int, float, mpmath.mpf)) \
                and alpha == math.inf:
            values.append(INFINITE_ORDER)
            continue
        value = to_fraction(alpha, "alpha")
        if value <= 1:
            raise InputError(f"alpha must be greater than 1 (or inf), got alpha={alpha}")
        values.append(value)
    if not values:
        raise InputError(f"the list of alpha must not be empty, got {alphas!r}")
    return values


def renyi_divergence(mech, d1, d2, alphas, dps: int = 30,
                     allow_any_pair: bool = False) -> list[RenyiPoint]:
    """The exact Rényi divergences ``D_α(M(d1) ‖ M(d2))`` at every order of ``alphas``.

    Parameters
    ----------
    mech : mechanism description or program
        A ⊤/⊥ Sparse Vector variant, a program with discrete return values, a program
        returning one number ``q + η`` with Laplace or Gaussian ``η``, or noisy max releasing
        its index, or its largest value (``α = inf`` only).
    d1, d2 : str or sequence of numbers
        Query answers on the two inputs.
    alphas : sequence
        Orders ``α > 1``, or ``inf``.
    dps : int
        Significant digits of each divergence (an enclosure of relative width ``10^{−dps}``;
        where the divergence cannot be told from 0, two distributions equal but not provably
        so, an enclosure ``[0, u]`` with ``u ≤ 10^{−dps}``).
    allow_any_pair : bool
        Skip the neighbour check.

    Returns
    -------
    list of RenyiPoint

    Notes
    -----
    ``D_α = (1/(α−1)) ln Σ_a p1(a)^α p2(a)^{1−α}`` (Mironov, "Rényi Differential Privacy",
    IEEE CSF 2017, Definition 3); released numbers in docs/mathematics.md.  For the Laplace
    mechanism of sensitivity 1 and scale ``b`` this is Mironov's Proposition 6,
    ``(1/(α−1)) ln[(α/(2α−1)) e^{(α−1)/b} + ((α−1)/(2α−1)) e^{−α/b}]``.

    Examples
    --------
    >>> import exactdp
    >>> m = exactdp.mechanism("svt1", eps=1)
    >>> [p.divergence.value > 0 for p in exactdp.renyi_divergence(m, [0], [1], [2, "inf"])]
    [True, True]
    """
    check_dps(dps)
    orders = check_alphas(alphas)
    _check_released_value(mech, orders)
    divergence = pair_divergence(mech, d1, d2, dps, allow_any_pair)
    return [RenyiPoint(alpha, divergence(alpha)) for alpha in orders]


def pair_divergence(mech, d1, d2, dps: int = 30,
                    allow_any_pair: bool = False) -> Divergence:
    """``D_α(M(d1) ‖ M(d2))`` as a function ``divergence(α, digits=dps, absolute=False)`` → an
    :class:`Enclosure` of relative width ``≤ 10^{−digits}`` (``absolute``: or of absolute width
    ``≤ 10^{−digits}``, for two distributions that may be equal, ``D_α = 0``), at any order
    ``α > 1`` or ``inf`` (an exact rational or ``math.inf``), the two output distributions
    computed once, to ``dps`` digits, for every order asked (:func:`renyi_divergence`'s
    mechanisms).  Fewer ``digits`` than ``dps`` leave the probabilities' spare digits to a
    cancellation: near ``α = 1``, ``D_α`` loses about ``log10(1/(α − 1))`` of them.

    Examples
    --------
    >>> import exactdp
    >>> divergence = pair_divergence(exactdp.mechanism("svt1"), [0], [1], 10)
    >>> divergence(Fraction(2)) == renyi_divergence(exactdp.mechanism("svt1"), [0], [1], [2],
    ...                                             10)[0].divergence
    True
    """
    check_dps(dps)
    d1, d2 = neighbouring_pair(mech, d1, d2, allow_any_pair)
    shift = location_shift(mech, d1, d2)
    if shift is not None:
        return lambda alpha, digits=dps, absolute=False: shift_divergence(shift, alpha, digits)
    supremum = density_supremum(mech)
    if supremum is not None:
        def released_value(alpha, digits: int = dps, absolute: bool = False) -> Enclosure:
            _check_released_value(mech, [alpha])
            return supremum(mech, d1, d2, digits).divergence

        return released_value
    by_runs = divergence_by_runs(mech, d1, d2, dps)
    if by_runs is not None:
        return by_runs
    pairs = complete_pairs(mech, d1, d2, dps + PART_GUARD_DIGITS)
    if d1 == d2:
        return no_divergence
    return _pairs_divergence(pairs, dps, mech.name)


def no_divergence(alpha, digits=None, absolute=False) -> Enclosure:
    """``D_α`` of a distribution from itself (a :data:`Divergence`): 0 exactly, at every order
    and to any digits."""
    return Enclosure.of_ball(arb(0))


@functools.singledispatch
def divergence_by_runs(mech, d1: Runs, d2: Runs, dps: int) -> Divergence | None:
    """``D_α`` of ``d1 → d2`` (:func:`pair_divergence`'s function of ``α``) where the family
    sums the outputs run by run of equal queries instead of output by output (a generic
    function: ⊤/⊥ Sparse Vector with a cutoff of 1 beyond the enumeration's limit,
    ``divergences/renyi_runs.py``, registered by ``form/threshold_rules.py``); ``None`` (the
    default) otherwise."""
    return None


def _check_released_value(mech, orders: list) -> None:
    """:class:`~exactdp.errors.MethodUnavailableError` for a finite order of a mechanism that
    releases its largest noisy value (its ``D_∞`` alone is computed, by its own rule)."""
    finite = [alpha for alpha in orders if alpha != INFINITE_ORDER]
    if density_supremum(mech) is not None and finite:
        raise MethodUnavailableError(
            f"{mech.name} releases its largest noisy value: its Rényi divergence is computed "
            f"at alpha=inf only, got alpha={format_number(finite[0])}")


def divergences_both_ways(mech, d1, d2, dps: int = 30, allow_any_pair: bool = False
                          ) -> tuple[Divergence, Divergence]:
    """:func:`pair_divergence` of ``d1 → d2`` and of ``d2 → d1``, from one computation of the
    two output distributions.

    A location shift of a symmetric law (Laplace, Gaussian) depends on ``|μ1 − μ2|`` alone, so
    both directions agree; for discrete outputs the pairs ``(p1(a), p2(a))`` are swapped.
    """
    check_dps(dps)
    d1, d2 = neighbouring_pair(mech, d1, d2, allow_any_pair)
    if location_shift(mech, d1, d2) is not None or d1 == d2:
        divergence = pair_divergence(mech, d1, d2, dps, allow_any_pair=True)
        return divergence, divergence
    if density_supremum(mech) is not None:
        return tuple(pair_divergence(mech, one, two, dps, allow_any_pair=True)
                     for one, two in ((d1, d2), (d2, d1)))
    pairs = complete_pairs(mech, d1, d2, dps + PART_GUARD_DIGITS)
    return tuple(_pairs_divergence(side, dps, mech.name)
                 for side in (pairs, [pair.swapped() for pair in pairs]))


def renyi_both_ways(mech, d1, d2, alphas, dps: int = 30, allow_any_pair: bool = False
                    ) -> tuple[list[RenyiPoint], list[RenyiPoint]]:
    """``D_α(M(d1) ‖ M(d2))`` and ``D_α(M(d2) ‖ M(d1))`` at every order of ``alphas``, from one
    computation of the two output distributions (:func:`divergences_both_ways`;
    :func:`renyi_divergence` computes them once per direction).

    Examples
    --------
    >>> import exactdp
    >>> m = exactdp.mechanism("svt1")
    >>> forward, backward = renyi_both_ways(m, [0, 1], [1, 0], [2])
    >>> [forward, backward] == [renyi_divergence(m, [0, 1], [1, 0], [2]),
    ...                         renyi_divergence(m, [1, 0], [0, 1], [2])]
    True
    """
    check_dps(dps)
    orders = check_alphas(alphas)
    _check_released_value(mech, orders)
    return tuple([RenyiPoint(alpha, divergence(alpha)) for alpha in orders]
                 for divergence in divergences_both_ways(mech, d1, d2, dps, allow_any_pair))


def largest_log_ratio(pairs: list, dps: int, name: str) -> tuple[Enclosure, int]:
    """``D_∞(P ‖ Q) = max_a ln(p1(a)/p2(a))`` from the balls ``(p1(a), p2(a))`` of every class of
    outputs (:func:`~.output_pairs.complete_pairs`), to ``dps`` digits, and the position in
    ``pairs`` of a class that attains it: the first output with ``p1 > 0 = p2`` (exact zeros;
    ``+∞``), else the output of the largest centre of ``ln p1 − ln p2`` (the first of equal ones).

    Examples
    --------
    >>> from flint import arb, ctx
    >>> from exactdp.exact.divergences.output_pairs import OutputPair
    >>> divergence, position = largest_log_ratio(
    ...     [OutputPair(arb(0.5), arb(0.25)), OutputPair(arb(0.5), arb(0.75))], 10, "coin")
    >>> print(mpmath.nstr(divergence.value, 10), position)   # ln 2, at the first output
    0.6931471806 0
    """
    only_on_d1 = _first_only_on_d1(pairs)
    if only_on_d1 is not None:
        return Enclosure.of_ball(arb("inf")), only_on_d1
    bits = working_bits(dps + PART_GUARD_DIGITS, guard=COMBINE_GUARD_DIGITS)
    logs = _logs(pairs, bits)
    with flint_context(bits):
        position = _largest_log_ratio(logs)[0]
    return _discrete_divergence(logs, INFINITE_ORDER, dps, name), position


def _first_only_on_d1(pairs: list) -> int | None:
    """The position of the first output with ``p1 > 0 = p2`` (exact zeros: an output only d1
    can produce, which makes every ``D_α`` infinite), ``None`` when there is none."""
    return next((position for position, (p1, p2, _, _) in enumerate(pairs)
                 if p1 != 0 and p2 == 0), None)


def _logs(pairs: list, bits: int) -> dict[int, tuple[arb, arb, int]]:
    """``{position: (ln p1, ln p2, count)}`` of the classes of outputs with ``p1 > 0`` (the
    others contribute nothing to any ``D_α``), once for every order, to ``bits`` bits after the
    point."""
    return {position: (log_ball(p1, bits), log_ball(p2, bits), count)
            for position, (p1, p2, count, _) in enumerate(pairs) if p1 != 0}


def log_ball(p: arb, bits: int) -> arb:
    """``ln p`` of a positive ball to ``bits`` bits after the point: at ``bits`` plus the bits
    of the binary exponent of ``p`` (``p ≈ 2^{−10^{600}}``, a Gaussian of scale ``10^{−300}``,
    has a log of 600 digits before the point)."""
    exponent = int(p.mid().man_exp()[1])
    with flint_context(bits + abs(exponent).bit_length()):
        return p.log()


def _pairs_divergence(pairs: list, dps: int, name: str) -> Divergence:
    """``(α, digits) ↦ D_α`` from the balls ``(p1(a), p2(a))`` of every output: ``+∞`` when an
    output has ``p1 > 0 = p2`` (exact zeros), else :func:`_discrete_divergence` of the logs,
    taken once."""
    if _first_only_on_d1(pairs) is not None:
        return lambda alpha, digits=dps, absolute=False: Enclosure.of_ball(arb("inf"))
    logs = _logs(pairs, working_bits(dps + PART_GUARD_DIGITS, guard=COMBINE_GUARD_DIGITS))
    return lambda alpha, digits=dps, absolute=False: _discrete_divergence(logs, alpha, digits,
                                                                          name, absolute)


def _largest_log_ratio(logs: dict) -> tuple[int, arb]:
    """The position of the largest centre of ``ln p1 − ln p2`` (the first of equal ones) and a
    ball enclosing the largest exact ``ln p1 − ln p2`` (Arb's ``max`` of the balls)."""
    position, largest, top = None, None, None
    for where, (log1, log2, _) in logs.items():
        ratio = log1 - log2
        if largest is None or ratio.mid() > top:
            position, top = where, ratio.mid()
        largest = ratio if largest is None else largest.max(ratio)
    return position, largest


def _discrete_divergence(logs: dict, alpha, dps: int, name: str,
                         absolute: bool = False) -> Enclosure:
    """``(1/(α−1)) ln Σ c·e^{α ln p1 + (1−α) ln p2}``, or ``max ln(p1/p2)`` for ``α = ∞``, from
    the ``(ln p1, ln p2, c)`` of the classes of ``c`` outputs with ``p1 > 0``.

    The outputs are every output of ``d1`` (``Σ c·p1 = 1`` exactly), so with ``L = ln(p1/p2)``
    the sum is ``Σ c·p1·e^{(α−1)L} = 1 + Σ c·p1·(e^{(α−1)L} − 1)`` and ``D_α`` is
    ``log1p(Σ c·p1·expm1((α − 1)L))/(α − 1)``: no ``1`` is subtracted from a sum near 1, so near
    ``α = 1`` (the sum ``≈ 1 + (α − 1)·D_1``) the probabilities' digits are not lost in a
    cancellation of about ``log10(1/(α − 1))`` digits."""
    # the logs' integer parts (of a probability near e^{−2.5·10^599}) come on top of the bits
    # of the digits refined() asks for
    extra = max((_integer_bits(log) for *pair, _ in logs.values() for log in pair), default=0)

    def compute() -> arb:
        with flint_context(ctx.prec + extra):
            if alpha == INFINITE_ORDER:
                return _largest_log_ratio(logs)[1]
            step = to_arb(alpha - 1)
            excess = sum((count * log1.exp() * (step * (log1 - log2)).expm1()
                          for log1, log2, count in logs.values()), arb(0))
            return excess.log1p() / step

    return at_least_zero(refined(compute, dps, f"{name}: D_α (α = {alpha})", absolute))


def _integer_bits(x: arb) -> int:
    """The bits of the integer part of ``|x|`` (0 below 1)."""
    mantissa, exponent = x.mid().man_exp()
    return max(0, int(exponent) + int(mantissa).bit_length())


def shift_divergence(shift: LocationShift, alpha, dps: int) -> Enclosure:
    """``D_α`` of ``Δ + η`` against ``η`` (Laplace: three exact exponential integrals;
    Gaussian: ``αΔ²/(2σ²)``; discrete Gaussian: ``discrete_shift.py``), and ``D_∞`` (Laplace:
    ``Δ/b``; the Gaussians: ``+∞`` for ``Δ > 0``).  The laws are symmetric, so the divergence of
    the reverse direction is the same."""
    law, distance = shift.law, shift.distance
    if isinstance(law, DiscreteGaussian):
        return discrete_shift_divergence(shift, alpha, dps)
    if distance == 0:
        return Enclosure.of_ball(arb(0))
    if not isinstance(law, Laplace):  # Gaussian (Mironov 2017, Proposition 7)
        if alpha == INFINITE_ORDER:
            return Enclosure.of_ball(arb("inf"))
        exact = alpha * distance ** 2 / (2 * law.scale ** 2)
        return refined(lambda: to_arb(exact), dps, f"{law}: D_α")
    if alpha == INFINITE_ORDER:  # the log ratio (|x| − |x − Δ|)/b is largest, Δ/b, for x ≥ Δ
        return refined(lambda: to_arb(distance / law.scale), dps,
                                        f"{law}: D_∞")

    def compute() -> arb:
        order = to_arb(alpha)
        total = arb(0)
        for low, high in ((None, Fraction(0)), (Fraction(0), distance), (distance, None)):
            point = interior_point(low, high)
            # p1(x) = c1·e^{r1(x − Δ)}, p2(x) = c2·e^{r2·x} on this piece
            p1 = piece_in(law, Kind.PDF, point - distance, BALLS)
            p2 = piece_in(law, Kind.PDF, point, BALLS)
            log_constant = (order * p1.log_coefficient + (1 - order) * p2.log_coefficient
                            - to_arb(alpha * p1.rate * distance))
            total += log_constant.exp() * exp_integral(alpha * p1.rate + (1 - alpha) * p2.rate,
                                                       low, high, BALLS)
        return total.log() / (order - 1)

    return refined(compute, dps, f"{law} shift by {distance}: D_α (α = {alpha})")
