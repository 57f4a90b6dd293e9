"""Reference values for the claim tests, computed without exactdp's engine.

Every output probability is the master integral of Lyu, Su & Li, PVLDB 2017 (arXiv:1603.01699), Eq.
5, on an explicit
integrand built from the Laplace law written out in ``tests/reference.py``, integrated by
``mpmath.quad`` (tanh-sinh) at 50 digits, split at the kinks and at a fixed, generous set of
breakpoints.
"""

from __future__ import annotations

import mpmath
from mpmath import mpf

from .reference import integrate_explicit, lap_cdf, lap_pdf, lap_sf

DPS = 50
#: Breakpoints of the reference quadrature (the kinks of every family tested are 0 and 1).
BREAKPOINTS = (-40, -20, -10, -4, -1, 0, 0.5, 1, 2, 5, 11, 20, 40)


def scale(budget) -> mpf:
    """The Laplace scale ``1/budget`` at 50 digits (``budget`` read as the decimal it prints)."""
    with mpmath.workdps(DPS):
        return 1 / mpf(str(budget))


def output_probability(b_rho, b_nu, bottoms=(), tops=(), upper=None):
    """``∫_{−∞}^{upper} p_{b_ρ}(z) Π F_{b_ν}(z − q)^k Π S_{b_ν}(z − q)^k dz`` at 50 digits.

    ``bottoms`` and ``tops`` list ``(q, k)``: a query value answered ⊥ (resp. ⊤) k times.  Above
    ``upper`` (the constraint z ≤ v − T of a released value v) the integrand is 0, and ``upper`` is
    a
    breakpoint.
    """
    with mpmath.workdps(DPS):
        b_rho, b_nu = mpf(b_rho), mpf(b_nu)
        limit = mpmath.inf if upper is None else mpf(upper)

        def integrand(z):
            if z > limit:
                return mpf(0)
            value = lap_pdf(z, b_rho)
            for q, k in bottoms:
                value *= lap_cdf(z - q, b_nu) ** k
            for q, k in tops:
                value *= lap_sf(z - q, b_nu) ** k
            return value

        kinks = BREAKPOINTS if upper is None else (*BREAKPOINTS, upper)
        return integrate_explicit(integrand, kinks, dps=DPS)


def log_ratio(b_rho, b_nu, side1, side2):
    """``ln(I1/I2)`` of two :func:`output_probability` integrals given as (bottoms, tops)."""
    with mpmath.workdps(DPS):
        return (mpmath.log(output_probability(b_rho, b_nu, *side1))
                - mpmath.log(output_probability(b_rho, b_nu, *side2)))


def close(text: str, expected, digits: int = 25) -> bool:
    """True when the decimal string ``text`` agrees with ``expected`` to ``digits`` significant
    digits (to ``10^-digits`` absolutely for values below 1)."""
    with mpmath.workdps(DPS):
        got, expected = mpf(text), mpf(expected)
        return abs(got - expected) <= mpf(10) ** (-digits) * max(1, abs(expected))
