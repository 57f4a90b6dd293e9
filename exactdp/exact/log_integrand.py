"""The logarithm of a Laplace-threshold integrand and its derivative, at mpmath precision.

For ``I = ∫ p_{b_ρ}(z) Π F_{b_ν}(z − s_j)^{m_j} Π S_{b_ν}(z − s_k)^{n_k} dz`` this module evaluates
``g(z) = log p_{b_ρ}(z) + Σ m_j log F(z − s_j) + Σ n_k log S(z − s_k)`` (plus ``log p_{b_ν}(z − s)``
for released gaps) and ``g'(z)``.  Every term is
concave (the Laplace law is log-concave), so ``g`` is concave on the constraint interval: it has a
single peak and ``g'`` is non-increasing.  The quadrature (``quadrature.py``) relies on this.
"""

from __future__ import annotations

import mpmath
from mpmath import mpf

from ..noise import (laplace_dlogcdf, laplace_dlogpdf, laplace_dlogsf, laplace_logcdf,
                     laplace_logpdf, laplace_logsf)
from .integrand import FactorKind, ThresholdIntegral

#: log of each factor kind, and its derivative, as functions of (z − shift, b_ν).
LOG_FACTOR = {FactorKind.BELOW: laplace_logcdf, FactorKind.ABOVE: laplace_logsf,
              FactorKind.GAP: laplace_logpdf}
DLOG_FACTOR = {FactorKind.BELOW: laplace_dlogcdf, FactorKind.ABOVE: laplace_dlogsf,
               FactorKind.GAP: laplace_dlogpdf}


def to_mpf(value) -> mpf:
    """An exact rational (``Fraction``) as an mpf at the current working precision."""
    return mpf(value.numerator) / value.denominator


class LogIntegrand:
    """``g`` and ``g'`` of a :class:`ThresholdIntegral`; build it inside the working precision."""

    def __init__(self, integral: ThresholdIntegral):
        self.integral = integral
        self.b_rho = to_mpf(integral.threshold_scale)
        self.b_nu = to_mpf(integral.query_scale)
        self.terms = [(to_mpf(f.shift), f.kind, f.power) for f in integral.factors]
        self.lower = -mpmath.inf if integral.lower is None else to_mpf(integral.lower)
        self.upper = mpmath.inf if integral.upper is None else to_mpf(integral.upper)
        self.kinks = [to_mpf(k) for k in integral.kinks]
        #: length scale for the peak and level searches of the quadrature
        self.scale = max(self.b_rho, self.b_nu, mpf(1))

    def __call__(self, z: mpf) -> mpf:
        total = laplace_logpdf(z, self.b_rho)
        for shift, kind, power in self.terms:
            total += power * LOG_FACTOR[kind](z - shift, self.b_nu)
        return total

    def slope(self, z: mpf) -> mpf:
        """``g'(z)`` (the right derivative at a kink)."""
        total = laplace_dlogpdf(z, self.b_rho)
        for shift, kind, power in self.terms:
            total += power * DLOG_FACTOR[kind](z - shift, self.b_nu)
        return total
