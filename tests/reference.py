"""Independent reference computations for the tests.

Nothing here calls exactdp's engine: the integrands are written out from the Laplace law and the
master integral of Lyu, Su & Li, "Understanding the Sparse Vector Technique for Differential
Privacy", PVLDB 10(6), 2017 (arXiv:1603.01699), Eq. 5, and integrated by brute force —
Gauss–Legendre on a fine uniform subdivision of
a window around the peak, the peak located with scipy in double precision.  Slow but simple.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
from scipy.optimize import minimize_scalar


def lap_cdf(x, b):
    """F_b(x) of Lap(b): ½e^{x/b} for x < 0, 1 − ½e^{−x/b} otherwise."""
    return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2


def lap_sf(x, b):
    """S_b(x) = F_b(−x), the survival function of Lap(b)."""
    return lap_cdf(-x, b)


def lap_pdf(x, b):
    """p_b(x) = e^{−|x|/b}/(2b), the density of Lap(b)."""
    return mpmath.exp(-abs(x) / b) / (2 * b)


def gptt_family_log_integrand_float(z, t, b_rho, b_nu):
    """log of p(z)·F(z)^t·S(z−1)^t in double precision (for locating the peak only)."""
    def log_cdf(x):
        return x / b_nu - math.log(2) if x < 0 else math.log1p(-0.5 * math.exp(-x / b_nu))
    return -abs(z) / b_rho - math.log(2 * b_rho) + t * log_cdf(z) + t * log_cdf(1 - z)


def gptt_family_probability(t, eps1, eps2, dps=50, half_width=30, pieces=120, with_error=False):
    """Pr[GPTT(0^t, 1^t) = (⊥^t, ⊤^t)] = ∫ p_{1/ε1}(z) F_{1/ε2}(z)^t S_{1/ε2}(z − 1)^t dz
    (the family of Chen & Machanavajjhala, "On the Privacy Properties of Variants on the Sparse
    Vector Technique", 2015, arXiv:1508.07306, Thm 4.7) by Gauss–Legendre on ``pieces``
    uniform sub-intervals of [peak − half_width, peak + half_width]; the window ends are checked
    to carry less than 10^-(dps+5) of the peak value.  Returns the log of the probability, and
    with ``with_error`` also its absolute error estimate (mpmath's Gauss–Legendre estimate divided
    by the integral, plus the window's neglected tails, at most 2·10^-(dps+5)·(window)/integral)."""
    b_rho, b_nu = 1 / eps1, 1 / eps2
    peak = minimize_scalar(lambda z: -gptt_family_log_integrand_float(z, t, b_rho, b_nu),
                           bounds=(-50, 50 + 3 * b_nu * math.log(t + 1)), method="bounded").x
    with mpmath.workdps(dps + 10):
        b_rho, b_nu = mpmath.mpf(1) / mpmath.mpf(eps1), mpmath.mpf(1) / mpmath.mpf(eps2)

        def log_f(z):
            return (-abs(z) / b_rho - mpmath.log(2 * b_rho) + t * mpmath.log(lap_cdf(z, b_nu))
                    + t * mpmath.log(lap_sf(z - 1, b_nu)))

        centre = mpmath.mpf(peak)
        top = log_f(centre)
        for end in (centre - half_width, centre + half_width):
            assert log_f(end) - top < -(dps + 5) * math.log(10), "window too narrow"
        edges = [centre - half_width + 2 * half_width * k / pieces for k in range(pieces + 1)]
        # keep the kinks z = 0 and z = 1 as edges so that every piece is smooth
        edges = sorted(set(edges) | {e for e in (mpmath.mpf(0), mpmath.mpf(1))
                                     if edges[0] < e < edges[-1]})
        scaled, error = mpmath.quad(lambda z: mpmath.exp(log_f(z) - top), edges,
                                    method="gauss-legendre", error=True)
        if not with_error:
            return top + mpmath.log(scaled)
        # the integrand is log-concave, so beyond each window end it stays below its value there
        # and falls at least as fast as from the peak to that end: the tails are bounded by
        # end value × half_width / ln(peak / end value) ≤ 10^-(dps+5) · half_width.
        tails = 2 * mpmath.mpf(10) ** -(dps + 5) * half_width
        return top + mpmath.log(scaled), (error + tails) / scaled


def svt4_first_tight_log_ratio(dps=50):
    """ln(P1/P2) for Alg. 4 of Lyu, Su & Li (PVLDB 2017, arXiv:1603.01699) with ε = 1, c = 1,
    Δ = 1, T = 0 (ρ ~ Lap(4), ν ~ Lap(4/3)), q(D) = (0, 1), q(D') = (1, 0), output (⊥, ⊤).

    ``P1 = ∫ p_4(z) F_{4/3}(z) S_{4/3}(z − 1) dz`` and ``P2 = ∫ p_4(z) F_{4/3}(z − 1) S_{4/3}(z)
    dz``
    integrated by hand on (−∞, 0), (0, 1), (1, ∞), where every factor is ``a + b·e^{λz}``
    (``sympy.integrate`` of the expanded pieces gives the same)::

        P1 = 1/2 − 9e^{−1/4}/16 + 13e^{−3/4}/56 − 9e^{−1}/112
        P2 = 19e^{−3/4}/112 − 9e^{−1}/112
    """
    with mpmath.workdps(dps):
        e = mpmath.exp
        p1 = mpmath.mpf(1) / 2 - 9 * e(-0.25) / 16 + 13 * e(-0.75) / 56 - 9 * e(-1) / 112
        p2 = 19 * e(-0.75) / 112 - 9 * e(-1) / 112
        return mpmath.log(p1 / p2)


def integrate_explicit(integrand, kinks, dps=40):
    """∫_{−∞}^{∞} integrand(z) dz with mpmath tanh-sinh split at ``kinks`` (for small cases where
    no narrow peak forms)."""
    with mpmath.workdps(dps):
        points = [-mpmath.inf] + sorted(set(mpmath.mpf(k) for k in kinks)) + [mpmath.inf]
        return mpmath.quad(integrand, points)


def rng_queries(seed, n, low=-2, high=2):
    """Reproducible small query vectors with one decimal."""
    rng = np.random.default_rng(seed)
    return [round(float(x), 1) for x in rng.uniform(low, high, n)]


def binomial_interval(count, runs, z=3.29):
    """Wilson's interval for a binomial proportion, ``count`` successes in ``runs`` trials (99.9 %
    for the default ``z``): ``(p̂ + z²/2n ± z√(p̂(1 − p̂)/n + z²/4n²))/(1 + z²/n)``."""
    p = count / runs
    centre = (p + z * z / (2 * runs)) / (1 + z * z / runs)
    half = z * math.sqrt(p * (1 - p) / runs + z * z / (4 * runs * runs)) / (1 + z * z / runs)
    return centre - half, centre + half
