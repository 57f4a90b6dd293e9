"""Bounds of a product of smooth log-concave factors off the real line, from real values: what
the certified rules need of an integrand on a Bernstein ellipse (``certified.py`` on one
integrand in balls, ``smooth_shared_nodes.py`` on every Sparse Vector output at once in
double precision).

A law with an off-axis growth ``C`` (``NoiseLaw.off_axis_growth``: the Gaussian's ``1/(2σ²)``)
has ``|g(x + iy)| ≤ g(x)·e^{C·y²}`` for each of its functions ``g``, and ``log g`` concave on
the whole line.  For a product ``Π_j g_j(w − s_j)^{m_j}`` of such factors, ``w = x + iy`` with
``|x − c| ≤ r`` and ``|y| ≤ h``, the log sum ``G`` lies below its tangent at ``c``:

    log Π_j |g_j(w − s_j)|^{m_j} ≤ G(c) + |G'(c)|·r + h²·Σ_j m_j C_j          (tangent)

(:func:`tangent_log_bound`).  A CDF or survival function on its flat side (at least ``½``:
:func:`on_flat_side`) changes little but would add its growth ``C·h²``; there the other bound
holds: with ``T = 1 − g`` its complement, ``|g(w)| ≤ 1 + |T(w)| ≤ 1 + T(x)·e^{C·y²}``, and
``T`` is monotone, so over the extent it is largest at one end (:func:`flat_log_bound`).

That bound forgets that ``g < 1``: a factor raised to a large power ``m`` (a run of ``m`` equal
queries) is ``(1 − T)^m ≈ e^{−mT}`` on the real line but bounded by ``(1 + T)^m ≈ e^{mT}``.
:func:`decay_log_bound` keeps the decay, for a law whose density has ``p'(w) = −2C·w·p(w)``
(the Gaussian, ``C = 1/(2σ²)``; ``x`` measured from its centre).  ``Re T(x + iη)`` is even in
``η`` with second derivative ``−Re T''`` and ``|T''| = |p'|``, so by Taylor's formula with
integral remainder and ``|p'(x + iη)| ≤ 2C(|x| + η)·p(x)·e^{C·h²}``,

    |Re T(x + iy) − T(x)| ≤ ∫_0^h (h − η)|p'(x + iη)| dη ≤ K·p(x)·(|x| + h/3),   K = C·h²·e^{C·h²}

for ``|y| ≤ h``.  The law being log-concave, the hazard ``λ = p/T`` is largest where ``T`` is
least (``p/S`` increases, ``p/F`` decreases), so over an extent ``[a, b]`` with ``T_near``,
``T_far`` the least and largest ``T``, ``λ`` the hazard at ``T_near`` and ``x_max = max(|a|, |b|)``,
``Re T(w) ≥ T(x)·D``, ``D = 1 − K·λ·(x_max + h/3)``.  And for ``|T| < 1``,
``log|1 − T| = −Re T − Σ_{k≥2} Re T^k/k ≤ −Re T + |T|²/(2(1 − |T|))``, with
``|T(w)| ≤ T(x)·e^{C·h²} ≤ T' = T_far·e^{C·h²}``: at each ``x``,
``log|g(w)| ≤ f(T(x))``, ``f(τ) = −D·τ + τ²·e^{2C·h²}/(2(1 − T'))``, convex in ``τ``, so

    log|g(w)| ≤ max(f(T_near), f(T_far))                          (decay, for T' < 1)

(on the real segment, ``h = 0``, it is ``−T_near·(1 − T_near/(2(1 − T_far)))``, nearly
``log g``).
"""

from __future__ import annotations

import math

import numpy as np

from ...noise import Kind

#: ``log ½``: a CDF or survival factor above it is on its flat side.
LOG_HALF = -math.log(2)


def on_flat_side(kind: Kind, log_value) -> bool:
    """Whether a factor of ``kind`` whose log at the centre is ``log_value`` is a CDF or
    survival function on its flat side (at least ``½``; numpy arrays elementwise)."""
    return kind is not Kind.PDF and log_value > LOG_HALF


def tangent_log_bound(log_value, slope, reach, curvature, height):
    """The tangent bound (module docstring) ``G(c) + |G'(c)|·r + C·h²`` of the log modulus of a
    product of log-concave factors over ``|x − c| ≤ reach``, ``|y| ≤ height``, from its log
    sum ``log_value = G(c)``, ``slope = G'(c)`` and ``curvature = Σ_j m_j C_j`` (``arb`` balls
    or numpy arrays)."""
    return log_value + abs(slope) * reach + curvature * height ** 2


def flat_log_bound(log_complement, growth, height):
    """``log(1 + T·e^{C·h²})`` (module docstring) for a factor on its flat side whose
    complement is at most ``e^{log_complement}`` over the extent (numpy arrays)."""
    with np.errstate(over="ignore"):
        return np.logaddexp(0.0, log_complement + growth * height ** 2)


def decay_log_bound(log_near, log_far, hazard, distance, growth, height) -> tuple:
    """``(bound, size)``: the decay bound (module docstring) ``max(f(T_near), f(T_far))`` of a
    factor on its flat side, from ``log T_near``, ``log T_far``, the hazard ``λ`` at ``T_near``,
    the largest distance ``x_max`` of the extent from the law's centre, its growth ``C`` and the
    height ``h`` (numpy arrays broadcast together; ``+inf`` where ``T' ≥ 1``), and the sum of
    the sizes of its parts (what its rounding is relative to)."""
    with np.errstate(over="ignore", invalid="ignore"):
        spread = np.exp(growth * height ** 2)
        shrink = 1 - growth * height ** 2 * spread * hazard * (distance + height / 3)
        near, far = np.exp(log_near), np.exp(log_far)
        valid = far * spread < 1
        square = spread ** 2 / (2 * (1 - far * spread))
        bound = np.maximum(near * (square * near - shrink), far * (square * far - shrink))
        return (np.where(valid, bound, np.inf),
                np.where(valid, far * (1 + np.abs(shrink) + square * far), 0.0))
