"""A-priori bounds on the rounding errors of sums and products of non-negative numbers in double
precision, for recurrences run with numpy and BLAS matrix products instead of ball arithmetic
(docs/mathematics.md §12.5).

The standard model of floating-point arithmetic with gradual underflow (Higham, *Accuracy and
Stability of Numerical Algorithms*, 2nd ed., SIAM 2002, §2.2, Eq. (2.8)): every operation
returns ``fl(x ∘ y) = (x ∘ y)(1 + δ) + η``, ``|δ| ≤ u = 2^{−53}``, with ``η = 0`` for sums and
differences (a sum of doubles in the subnormal range is exact) and ``|η| ≤ 2^{−1075}`` for
products and quotients, ``η = 0`` again when ``|x ∘ y|`` is at least the smallest normal
``2^{−1022}``.  A quotient's factor ``(1 + δ)`` and its inverse both lie in ``[1 − u', 1 + u']``,
``u' = u/(1 − u)``.  A dot product of length ``n`` of non-negative numbers, summed in any order,
gives each term at most ``n`` such factors (Higham §3.1, Eq. (3.4): ``γ_n = nu/(1 − nu)``), and
a fused multiply-add rounds once where a product and a sum round twice, so BLAS's reordered and
fused sums are covered by the same count.
"""

from __future__ import annotations

import numpy as np
from flint import arb

#: The unit roundoff of doubles.
UNIT_ROUNDOFF = arb(2) ** -53
#: The largest error ``|η|`` of a product or quotient that underflows, ``2^{−1075}``.
UNDERFLOW = arb(2) ** -1075
#: Doubles below ``2^{−500}`` are not lifted with a relative error (:func:`relative_doubles`):
#: products of two of them stay normal.
LIFT_FLOOR = 2.0 ** -500
#: A sum in doubles is taken where its a-priori rounding bound is at most this share of the
#: tolerance (the quadrature's errors take about a quarter of it); ``0`` turns every sum in
#: doubles off (their Arb balls are then computed instead).
DOUBLE_SHARE = arb(1) / 16


def factor_bound(roundings: int, inputs: int, input_error: arb) -> arb:
    """``θ`` with ``(1 ± u')^roundings·(1 ± ε)^inputs ⊂ [1 − θ, 1 + θ]`` (module docstring):
    the relative error of a term that went through ``roundings`` roundings and has ``inputs``
    factors each known within the relative error ``ε = input_error``.

    Both ends are covered by the upper one: ``(1 + x)^a − 1 ≥ 1 − (1 − x)^a`` for ``x ≥ 0``.
    """
    slack = UNIT_ROUNDOFF / (1 - UNIT_ROUNDOFF)
    return arb(((1 + slack) ** roundings * (1 + input_error) ** inputs - 1).upper())


def fits(theta: arb, tolerance: arb) -> bool:
    """Whether a relative rounding bound ``θ`` on values at most 1 fits the accuracy
    ``tolerance`` asked (:data:`DOUBLE_SHARE` of it; never when that is 0)."""
    return DOUBLE_SHARE > 0 and theta <= DOUBLE_SHARE * tolerance


def enclosures(values: np.ndarray, relative: arb, absolute: arb) -> list:
    """The balls ``v ± (θ·v + η)`` of non-negative doubles ``v`` (``θ = relative``,
    ``η = absolute``): each exact value ``x`` with ``|x − v| ≤ θv + η``.  The radii are
    computed in doubles from ``θ`` and ``η`` rounded up, then times ``1 + 2^{−50} = 1 + 8u``:
    three roundings (the product, the sum and that product) leave at least
    ``(θv + η)(1 − u)³(1 + 8u) ≥ θv + η``; Arb rounds a radius up."""
    theta = float(np.nextafter(float(relative.upper()), np.inf))
    eta = float(np.nextafter(float(absolute.upper()), np.inf))
    radii = (values * theta + eta) * (1 + 2.0 ** -50)
    return [arb(v, r) for v, r in zip(values.tolist(), radii.tolist())]


def relative_doubles(columns: list) -> tuple:
    """Doubles ``v`` for the non-negative Arb balls ``x`` of ``columns`` (a list of lists, all
    of one length), with one relative error ``ε`` for all: ``|x − v| ≤ ε·v``.

    ``v`` is the ball's midpoint converted to a double and ``r̂`` its radius; each conversion is
    within a factor ``1 ± 2^{−52}``, so ``|x − v| ≤ r̂(1 + 2^{−52}) + 2^{−52}·v`` and
    ``ε = max(r̂/v)(1 + 2^{−52})² + 2^{−52}`` (the quotient rounded at most one unit).  Balls
    whose double is below :data:`LIFT_FLOOR` are lifted as ``v = 0``, their upper ends bounded
    instead.

    Returns
    -------
    tuple
        ``(values, ε, dropped, largest)``: the doubles (a 2-d array, one row per column), the
        relative error, an upper bound on every ball lifted as 0 (``0`` when there are none)
        and on every ball.
    """
    middle = np.array([[float(x.mid()) for x in column] for column in columns], dtype=float)
    radius = np.array([[float(x.rad()) for x in column] for column in columns], dtype=float)
    unit = arb(2) ** -52
    small = middle < LIFT_FLOOR
    values = np.where(small, 0.0, middle)
    ratios = np.divide(radius, values, out=np.zeros_like(radius), where=~small)
    error = arb((arb(float(ratios.max())) * (1 + unit) ** 2 + unit).upper())
    upper = (middle + radius)[small]
    dropped = arb(float(upper.max())) * (1 + unit) ** 2 if small.any() else arb(0)
    largest = arb(float((middle + radius).max())) * (1 + unit) ** 2
    return values, error, dropped, largest
