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
