"""Independent reference computations for the tests.

Nothing here calls exactdp's engine: the integrands are written out from the formulas of spec §1–2
(Lyu et al. Eq. 5) and integrated by brute force — Gauss–Legendre on a fine uniform subdivision of
a window around the peak, the peak located with scipy in double precision.  Slow but simple.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
from scipy.optimize import minimize_scalar


def lap_cdf(x, b):
    """F_b(x) of Lap(b), spec §1."""
    return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2


def lap_sf(x, b):
    """S_b(x) = F_b(−x), spec §1."""
    return lap_cdf(-x, b)


def lap_pdf(x, b):
    """p_b(x) = e^{−|x|/b}/(2b), spec §1."""
    return mpmath.exp(-abs(x) / b) / (2 * b)


def gptt_family_log_integrand_float(z, t, b_rho, b_nu):
    """log of p(z)·F(z)^t·S(z−1)^t in double precision (for locating the peak only)."""
    def log_cdf(x):
        return x / b_nu - math.log(2) if x < 0 else math.log1p(-0.5 * math.exp(-x / b_nu))
    return -abs(z) / b_rho - math.log(2 * b_rho) + t * log_cdf(z) + t * log_cdf(1 - z)


def gptt_family_probability(t, eps1, eps2, dps=50, half_width=30, pieces=120):
    """Pr[GPTT(0^t, 1^t) = (⊥^t, ⊤^t)] = ∫ p_{1/ε1}(z) F_{1/ε2}(z)^t S_{1/ε2}(z − 1)^t dz
    (Chen & Machanavajjhala Thm 4.7 family, spec §4 item 2) by Gauss–Legendre on ``pieces``
    uniform sub-intervals of [peak − half_width, peak + half_width]; the window ends are checked
    to carry less than 10^-(dps+5) of the peak value."""
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
        edges = sorted(set(edges) | {e for e in (mpmath.mpf(0), mpmath.mpf(1)) if edges[0] < e < edges[-1]})
        scaled = mpmath.quad(lambda z: mpmath.exp(log_f(z) - top), edges, method="gauss-legendre")
        return top + mpmath.log(scaled)


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
