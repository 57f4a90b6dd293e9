"""Laplace noise: log density, log CDF and log survival function in mpmath, and their
derivatives; a seeded numpy sampler.

Notation of spec §1: ``Lap(b)`` has density ``p_b(x) = exp(-|x|/b)/(2b)``, CDF
``F_b(x) = ½e^{x/b}`` for ``x < 0`` and ``1 - ½e^{-x/b}`` for ``x ≥ 0``, survival
``S_b(x) = F_b(-x)``.  ``S`` is computed directly, never as ``1 - F`` (cancellation).  All three
are log-concave, which the quadrature relies on (``exactdp.exact.quadrature``).

``b = 0`` (no noise) is handled by the callers: ``F_0`` and ``S_0`` are indicators and become
interval constraints on the threshold noise.
"""

from __future__ import annotations

import mpmath
import numpy as np
from mpmath import mpf

_HALF = mpf(1) / 2


def laplace_logpdf(x: mpf, b: mpf) -> mpf:
    """``log p_b(x) = -|x|/b - log(2b)``."""
    return -abs(x) / b - mpmath.log(2 * b)


def laplace_dlogpdf(x: mpf, b: mpf) -> mpf:
    """``d/dx log p_b(x) = −sign(x)/b`` (the right derivative ``−1/b`` at 0)."""
    return -1 / b if x >= 0 else 1 / b


def laplace_logcdf(x: mpf, b: mpf) -> mpf:
    """``log F_b(x)``: ``x/b - log 2`` for ``x < 0``, ``log(1 - ½e^{-x/b})`` for ``x ≥ 0``.

    Accurate in absolute terms (``1 - ½e^{-x/b} ≥ ½``), which is what a sum of logs needs; for a
    tiny result the relative accuracy is lower than ``log1p`` would give, at half the cost.
    """
    if x < 0:
        return x / b - mpmath.ln2
    return mpmath.log(1 - _HALF * mpmath.exp(-x / b))


def laplace_logsf(x: mpf, b: mpf) -> mpf:
    """``log S_b(x) = log F_b(-x)``."""
    return laplace_logcdf(-x, b)


def laplace_dlogcdf(x: mpf, b: mpf) -> mpf:
    """``d/dx log F_b(x)``: ``1/b`` for ``x < 0``, ``1/(b(2e^{x/b} - 1))`` for ``x ≥ 0``."""
    if x < 0:
        return 1 / b
    return 1 / (b * (2 * mpmath.exp(x / b) - 1))


def laplace_dlogsf(x: mpf, b: mpf) -> mpf:
    """``d/dx log S_b(x) = -(d log F_b)(-x)``."""
    return -laplace_dlogcdf(-x, b)


def laplace_noise(rng: np.random.Generator, scale: float, size) -> np.ndarray:
    """Draw ``Lap(scale)`` noise of the given shape; ``scale = 0`` gives exact zeros."""
    if scale == 0:
        return np.zeros(size)
    return rng.laplace(0.0, scale, size)
