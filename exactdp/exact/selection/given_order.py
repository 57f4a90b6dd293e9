"""Sparse Vector with one threshold noise ``z`` and queries examined in the given order.

Query ``i`` is selected when it passes and fewer than ``c`` of the queries before it passed:

    P_i = ∫ p_ρ(z) S_i(z) Pr[fewer than c of the queries before i pass | z] dz,

``S_j(z) = Pr[q_j + ν_j ≥ T + z]`` (Lyu, Su & Li, "Understanding the Sparse Vector Technique for
Differential Privacy", PVLDB 10(6), 2017, Eq. 5; docs/mathematics.md, "Selection
probabilities"), the last factor the sum of the first ``c`` coefficients of a prefix of the
generating polynomial (:func:`~exactdp.exact.selection.generating.fewer_before`), every ``P_i``
integrated together by the certified vector quadrature (``exact/backends/vector_quadrature.py``).
"""

from __future__ import annotations

import bisect
import functools
from fractions import Fraction

import numpy as np
from flint import arb

from ...precision import to_arb
from ..backends.rounding_bounds import UNDERFLOW, enclosures, factor_bound, fits
from ..backends.vector_quadrature import Leading, integrate_vector
from .fewer_in_doubles import fewer_before_in_doubles, sweep_bounds
from .generating import at_least_bound, fewer_before, fewer_than_bound
from .pass_probabilities import PassProbabilities

#: :data:`~exactdp.exact.selection.kinds.EVALUATION_COST` for the given-order sweep
#: (:func:`fewer_before`), which costs dozens of bounds: on the Zipf workload at n = 10,000, 12
#: takes 22% fewer nodes than 4 (more gains none).
SWEEP_EVALUATION_COST = 12
#: The share of the tolerance below which the rest of a sweep over the queries is enclosed by
#: one ball instead of being computed (the given-order sweep, :func:`fewer_before`).
NEGLIGIBLE = 1 / 16


def given_order_probabilities(laws: PassProbabilities, c: int, tolerance: arb, progress,
                              jobs: int) -> list:
    """``P_i`` in the given order (module docstring), within ``tolerance``: on the pieces
    between the kinks that matter (:func:`merged_cuts`), the integrands from the first one a
    left-out kink touches are bounded instead of integrated; where ``c`` or more passing
    queries are provably unlikely (:func:`~exactdp.exact.selection.generating.at_least_bound`)
    every ``Pr[fewer than c before i pass]`` is taken as ``[1 − that bound, 1]``; elsewhere the
    sweep over the queries stops once it is negligible, in doubles where the a-priori bound on
    their rounding fits ``tolerance`` (:func:`integrands_in_doubles`), else in Arb balls.
    ``progress`` and ``jobs`` as
    :func:`~exactdp.exact.backends.vector_quadrature.integrate_vector`."""
    negligible = tolerance * NEGLIGIBLE
    cuts, limits = merged_cuts(laws, c, negligible)

    def piece_of(middle: Fraction) -> int:
        """The index of the piece containing ``middle`` (among ``cuts``)."""
        return bisect.bisect_right(cuts, middle) - 1

    @functools.lru_cache(maxsize=None)
    def few_pass(piece: int):
        """A bound on ``Pr[c or more of all the queries pass]`` on the piece if it is
        negligible, else ``None``: at the piece's left end, since it falls as ``z`` grows."""
        a = cuts[piece]
        _, passes, fails = laws.distinct_values(to_arb(a), a)
        bound = at_least_bound(passes, fails, laws.counts, c)
        return bound if bound <= negligible else None

    order = np.asarray(laws.positions)

    def evaluate(z, middle):
        piece = piece_of(middle)
        first, most = limits[piece][0], few_pass(piece)
        quick = integrands_in_doubles(laws, order, z, middle, c, negligible, first, most,
                                      tolerance)
        if quick is not None:
            return quick
        density, passes, fails = laws.distinct_values(z, middle)
        weighted = [density * s for s in passes]  # p_ρ S_i, once per distinct answer
        if most is not None:  # then every sum lies in [1 − most, 1]: no sweep
            almost = arb(1) - arb(0, most.upper())
            return Leading([weighted[k] * almost for k in laws.positions[:first]],
                           arb(0), len(laws.positions))
        fewer, rest = fewer_before(passes, fails, laws.positions, c, negligible, first)
        return Leading([weighted[k] * f for k, f in zip(laws.positions, fewer)],
                       density * rest, len(laws.positions))  # S_i ≤ 1 in the others

    def beyond(a: Fraction, b: Fraction):
        first, bound = limits[piece_of((a + b) / 2)]
        if first == len(laws.positions):
            return None
        return first, arb(0, (laws.hub_mass(a, b) * bound).upper())

    return integrate_vector(evaluate, functools.partial(laws.bound, cutoff=c), cuts,
                            laws.tails, tolerance, progress, SWEEP_EVALUATION_COST,
                            beyond=beyond, jobs=jobs)


def integrands_in_doubles(laws: PassProbabilities, positions: np.ndarray, z, middle: Fraction,
                          c: int, negligible: arb, limit: int, most: arb | None,
                          tolerance: arb) -> Leading | None:
    """The given-order integrands ``p_ρ S_i h_i`` of the first ``limit`` queries at ``z``
    (``positions``: ``laws.positions`` as an array), ``h_i = Pr[fewer than c of the queries
    before i pass | z]``, from the doubles of :meth:`PassProbabilities.pass_fail_doubles`, as
    :class:`Leading` values: where ``most`` (a bound on ``Pr[c or more of all the queries
    pass]``) is given, ``h_i ∈ [1 − most, 1]``; otherwise by the sweep in doubles
    (:func:`~exactdp.exact.selection.fewer_in_doubles.fewer_before_in_doubles`), the queries
    after its stop in one ball as in :func:`given_order_probabilities`.  ``None`` without those
    doubles, or where the bound on their rounding does not fit ``tolerance``.

    With ``p_ρ``, ``S`` within ``ε`` of their doubles, ``p_ρ S_i`` lies within
    ``θ_1 v̂ + 2^{−1075}`` of its double ``v̂`` (``θ_1 = factor_bound(1, 2, ε)``), so with
    ``h_i ∈ 1 ± most`` the integrand within ``θ v̂ + 2^{−1073}``, ``θ = (1 + θ_1)(1 + most) − 1``.
    With ``ĥ_i`` within ``θ_h ĥ_i + η`` of ``h_i`` (:func:`sweep_bounds`) the product
    ``p_ρ S_i h_i``, two roundings, lies within ``θ·v̂ + p̂_ρ(1 + ε)η + 2^{−1073}`` of its
    double ``v̂``, ``θ = (1 + θ_h)(1 + θ_2) − 1``, ``θ_2 = factor_bound(2, 2, ε)``; the sweep
    stops where ``ĥ_i(1 + θ_h) + η`` is at most ``negligible``."""
    lifted = laws.pass_fail_doubles([(z, arb(1), middle)])
    if lifted is None:
        return None
    scale, passes, fails, scale_error, pass_error = lifted
    error = max(scale_error, pass_error)
    density = float(scale[0, 0])
    weighted = density * passes[:, 0]
    if most is not None:
        rounding = factor_bound(1, 2, error)
        if not fits(rounding, tolerance):
            return None
        theta = (1 + rounding) * (1 + arb(most.upper())) - 1
        return Leading(enclosures(weighted[positions[:limit]], theta, 4 * UNDERFLOW), arb(0),
                       len(positions))
    theta_h, eta = sweep_bounds(limit, c, pass_error)
    theta = (1 + theta_h) * (1 + factor_bound(2, 2, error)) - 1
    if not fits(theta, tolerance):
        return None
    stop_below = float(((negligible - eta) / (1 + theta_h)).lower())
    swept, stop = fewer_before_in_doubles(passes[:, 0], fails[:, 0], positions, c,
                                          float(np.nextafter(stop_below, 0)), limit)
    values = weighted[positions[:len(swept)]] * swept
    largest = arb(density) * (1 + error)
    balls = enclosures(values, theta, largest * eta + 4 * UNDERFLOW)
    rest = arb(0) if stop is None else arb(0, (largest * (arb(stop) * (1 + theta_h) + eta)).upper())
    return Leading(balls, rest, len(positions))


def merged_cuts(laws: PassProbabilities, c: int, negligible: arb) -> tuple:
    """The cuts of the given-order integrals with the kinks that matter to no integrand left
    out, and for each piece ``(j, h)``: the integrands ``i ≥ j`` are not integrated there but
    bounded, ``Pr[fewer than c of the queries before i pass | z] ≤ h`` on the piece.

    A kink of the query noise at an answer whose first query is ``j`` touches only the
    integrands ``i ≥ j``, each at most ``p_ρ(z)·Pr[fewer than c of the first j pass | z]``; that
    probability grows with ``z``, so if its Chernoff bound (:func:`fewer_than_bound`) at the
    right end of the piece is at most ``negligible``, the kink may lie inside the piece: the
    integrands before ``j`` are analytic there, and the others integrate to at most the piece's
    probability times the bound.  From the right, each kink is left out when that holds at the
    end of the piece it falls in (``j`` the least first query of the kinks left out, ``h`` the
    largest bound); the ends and the threshold noise's kinks stay."""
    n = len(laws.positions)
    first = {}
    for i, k in enumerate(laws.positions):
        first.setdefault(k, i)
    owner = {}  # a kink of the query noise → the first query of the answers having it there
    for k, q in enumerate(laws.distinct):
        for kink in laws.noise.kink_points():
            point = q - laws.threshold + kink
            owner[point] = min(owner.get(point, n), first[k])
    for point in laws.hub.kink_points():
        owner[point] = -1  # kept
    wanted = sorted({owner[x] for x in laws.cuts[1:-1] if owner.get(x, -1) >= 0})
    counts_before, running, i = {}, [0] * len(laws.distinct), 0  # counts among the first j
    for j in wanted:
        for k in laws.positions[i:j]:
            running[k] += 1
        counts_before[j], i = list(running), j
    kept, limits = [laws.cuts[-1]], []
    least, largest = n, arb(0)

    @functools.lru_cache(maxsize=1)  # the same right end for every kink left out before it
    def at(right: Fraction) -> tuple:
        return laws.distinct_values(to_arb(right), right)[1:]

    for point in reversed(laws.cuts[1:-1]):
        j = owner.get(point, -1)
        if j >= 0:
            passes, fails = at(kept[-1])
            bound = fewer_than_bound(passes, fails, counts_before[j], c)
            if bound <= negligible:
                least, largest = min(least, j), max(largest, arb(bound.upper()))
                continue
        limits.append((least, largest))
        kept.append(point)
        least, largest = n, arb(0)
    limits.append((least, largest))
    kept.append(laws.cuts[0])
    return kept[::-1], limits[::-1]
