"""A log-concave integrand ``e^{g(x)}`` given by callables ``g`` and ``g'``, for families other
than the Laplace-threshold integrals (noisy max), integrated by the peak-aware quadrature of
``quadrature.py`` with two rules whose disagreement joins the error estimate.
"""

from __future__ import annotations

from typing import Callable, Sequence

import mpmath
from mpmath import mpf

from .quadrature import integrate_log_concave

#: Guard digits of the working precision.
GUARD_DIGITS = 15


def working_precision(dps: int) -> int:
    """``dps + GUARD_DIGITS`` rounded up to a multiple of 10, so that mpmath's quadrature nodes,
    cached per precision, are reused from one integral to the next."""
    return -(-(dps + GUARD_DIGITS) // 10) * 10


class LogConcave:
    """``g`` and ``g'`` of a log-concave integrand on ``[lower, upper]`` (``±inf`` allowed).

    Parameters
    ----------
    log, slope : callable
        ``g(x)`` (``-inf`` outside the support) and its right derivative.
    lower, upper : mpf
    kinks : sequence of mpf
        Points where ``g`` is not smooth.
    scale : mpf
        Length scale of the integrand (step of the peak and level searches).
    """

    def __init__(self, log: Callable, slope: Callable, lower: mpf, upper: mpf,
                 kinks: Sequence[mpf], scale: mpf):
        self._log, self.slope = log, slope
        self.lower, self.upper = lower, upper
        self.kinks = sorted(k for k in kinks if lower < k < upper)
        self.scale = scale

    def __call__(self, x: mpf) -> mpf:
        return self._log(x)


def log_integral(g: LogConcave, dps: int, two_rules: bool = True):
    """``log ∫ e^{g}``, its relative error estimate and the method name.

    Notes
    -----
    :func:`~exactdp.exact.quadrature.integrate_log_concave` (breakpoints at the peak and where
    ``g`` has dropped by 1, 4, 16, …; cut-off tails bounded by concavity) with tanh-sinh, plus
    (``two_rules``) Gauss–Legendre on the same breakpoints, their difference joining the error.
    """
    with mpmath.workdps(working_precision(dps)):
        rules = ("tanh-sinh", "gauss-legendre") if two_rules else ("tanh-sinh",)
        log_scale, results = integrate_log_concave(g, rules, terms=len(g.kinks) + 1)
        value, error = results[0]
        relative = error / value
        if two_rules:
            relative += abs(results[1][0] - value) / value
        return (+(log_scale + mpmath.log(value)), +relative,
                "quad+gauss-legendre" if two_rules else "quad")
