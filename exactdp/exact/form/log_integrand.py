"""The logarithm of an integrand of the integral form, its derivative and its magnitude, at
mpmath precision.

For ``I = ∫ p_hub(z) Π_j g_j(z − s_j)^{m_j} dz`` (``form/integral_form.py``) this module evaluates
``g(z) = log p_hub(z) + Σ_j m_j log g_j(z − s_j)`` and ``g'(z)``.  The laws' densities, CDFs and
survival functions are log-concave, so ``g`` is concave on the domain: it has a single peak and
``g'`` is non-increasing.  The quadrature (``backends/peak_quadrature.py``) relies on this.
"""

from __future__ import annotations

import mpmath
from mpmath import mpf

from ...precision import to_mpf
from .integral_form import Integral


class LogIntegrand:
    """``g`` and ``g'`` of an :class:`~exactdp.exact.form.integral_form.Integral`; build it inside
    the working precision."""

    def __init__(self, integral: Integral):
        self.integral = integral
        hub = integral.hub
        self._hub = (hub.logpdf, hub.dlogpdf)
        self.terms = [(factor.law.functions(factor.kind), to_mpf(factor.shift), factor.power)
                      for factor in integral.factors]
        self.lower = -mpmath.inf if integral.lower is None else to_mpf(integral.lower)
        self.upper = mpmath.inf if integral.upper is None else to_mpf(integral.upper)
        self.kinks = [to_mpf(k) for k in integral.kinks]
        #: length scale for the peak and level searches of the quadrature
        self.scale = to_mpf(integral.scale)

    def __call__(self, z: mpf) -> mpf:
        total = self._hub[0](z)
        for (log, _), shift, power in self.terms:
            total += power * log(z - shift)
        return total

    def slope(self, z: mpf) -> mpf:
        """``g'(z)`` (the right derivative at a kink)."""
        total = self._hub[1](z)
        for (_, dlog), shift, power in self.terms:
            total += power * dlog(z - shift)
        return total

    def magnitude(self, z: mpf) -> mpf:
        """``|log p_hub(z)| + Σ_j m_j |log g_j(z − s_j)|``: the size of the rounded terms ``g``
        sums, which bounds its rounding error in units of the working precision."""
        total = abs(self._hub[0](z))
        for (log, _), shift, power in self.terms:
            total += power * abs(log(z - shift))
        return total

