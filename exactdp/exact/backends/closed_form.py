"""Exact integration of an integral of the integral form whose laws are piecewise exponential
(Laplace, exponential), in mpmath numbers with a computed bound on the rounding error.

On each piece between kinks the integrand is ``e^{c₀ + c₁z}·P(w)``, ``w = e^{z/b}`` and ``P`` the
Laurent polynomial ``Π_j (1 − α_j w^{−1})^{m_j} · Π_k (1 − β_k w)^{n_k}`` when every ``1 − …``
factor has a rate ``±1/b`` with one common ``b``, so it integrates term by term
(``exponential_sums.py``, in the arithmetic :data:`~.arithmetics.MPF`).

The expansion alternates in sign and cancels badly (about ``m·log10(1.5)`` digits for a power m),
so the work is done at a precision raised by the measured loss: after a first pass the sum of the
terms' magnitudes ``M`` is compared with the result ``R``; ``log10(M/R)`` digits were lost, and the
pass is repeated with that many more.

Error bound.  Each term is a product of a binomial coefficient, powers of ``α``, ``β``, an
exponential of an accumulated exponent and an integral of an exponential.  With ``u`` the unit
roundoff, the relative error of a term is at most ``u`` times a few units per operation, plus the
amplified error of every exponent: ``e^{x(1+δ)}`` has relative error ``|x|δ``.  The bound used is
``M · u · 4(A + D·(L + 3) + R + 10)`` with ``A`` the sum of the absolute values of the constant
exponents, ``D`` the degree of ``P``, ``L`` the largest ``|log α_j|``, ``|log β_k|`` and ``R`` the
largest ``|λ|·|end|`` of the integrated exponentials.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
from mpmath import mpf

from ...errors import MethodUnavailableError
from ...precision import GUARD_DIGITS, unit_roundoff
from ...refinement import refine
from ..form.integral_form import Integral, interior_point
from .arithmetics import MPF
from .exponential_sums import expansion, product_on_piece, term_integrals

#: Largest number of coefficient multiplications a closed form may need before it is refused.
MAX_CLOSED_FORM_OPERATIONS = 1_000_000
#: Evaluations at raised precision before the cancellation is declared too deep.
CLOSED_FORM_TRIES = 8


def has_closed_form(integral: Integral) -> bool:
    """Whether every law of the integral is piecewise exponential."""
    return integral.hub.closed_form and all(f.law.closed_form for f in integral.factors)


def operation_count(integral: Integral) -> int:
    """Coefficient multiplications the expansion needs (summed over pieces)."""
    total = 0
    for lo, hi in integral.pieces:
        point = interior_point(lo, hi)
        degrees = [0, 0]
        for factor in integral.factors:
            _, rate, one_minus = factor.law.piece(factor.kind, point - factor.shift)
            if one_minus and rate:
                degrees[rate > 0] += factor.power
        down, up = degrees
        total += 2 * (down + 1) * (up + 1) + down * down + up * up
    return total


def _piece(integral: Integral, lo: Fraction | None, hi: Fraction | None):
    """``(c₀, total, magnitude, error factor)`` of the integral over one piece, ``e^{c₀}``
    factored out (``exponential_sums``); ``error factor`` is the multiple of ``M·u`` bounding
    the rounding error; ``None`` where a factor vanishes."""
    product = product_on_piece(integral, interior_point(lo, hi), MPF)
    if product is None:
        return None
    if product.common_rate() is None:
        raise MethodUnavailableError("closed form needs one common scale in the 1 − e^{…} "
                                     "factors; use method='quad'")
    down, up = expansion(product, MPF)
    coefficients, offset = MPF.laurent(down, up)
    table = term_integrals(product, offset, lo, hi, MPF)
    # The factors alternate in sign, so the absolute values multiply to the magnitudes of the
    # expansion.
    magnitudes, _ = MPF.laurent([abs(c) for c in down], [abs(c) for c in up])
    ends = [end for end in (table.lo_number, table.hi_number) if end is not None]
    total, magnitude, largest_end = mpf(0), mpf(0), mpf(0)
    for j, (coefficient, size) in enumerate(zip(coefficients, magnitudes)):
        exp_integral = table[j]
        total += coefficient * exp_integral
        magnitude += size * abs(exp_integral)
        largest_end = max(largest_end, *(abs(table.exponent(j) * end) for end in ends))
    largest_log = max((abs(a) for a, _, _ in product.factors), default=mpf(0))
    error_factor = 4 * (product.size + product.degree() * (largest_log + 3) + largest_end + 10)
    return product.c0, total, magnitude, error_factor


def _evaluate(integral: Integral, working: int):
    with mpmath.workdps(working):
        parts = [part for part in (_piece(integral, lo, hi) for lo, hi in integral.pieces)
                 if part is not None]
        log_scale = max(c0 for c0, _, _, _ in parts)
        scaled = [(mpmath.exp(c0 - log_scale), t, m, e) for c0, t, m, e in parts]
        total = mpmath.fsum(w * t for w, t, _, _ in scaled)
        magnitude = mpmath.fsum(w * m for w, _, m, _ in scaled)
        error = mpmath.fsum(w * m * e for w, _, m, e in scaled) * unit_roundoff()
        return +log_scale, total, magnitude, error


def integrate_closed_form(integral: Integral, dps: int):
    """Evaluate the integral exactly by expansion, at a precision raised to absorb cancellation.

    Returns
    -------
    (log_scale, scaled, error) : tuple of mpf
        ``I = exp(log_scale) · scaled``, ``error`` a bound on the absolute rounding error of
        ``scaled`` (module docstring).

    Raises
    ------
    MethodUnavailableError
        If a law is not piecewise exponential, or the expansion would need more than
        :data:`MAX_CLOSED_FORM_OPERATIONS` multiplications.
    PrecisionError
        If the cancellation could not be absorbed.
    """
    if not has_closed_form(integral):
        laws = ", ".join(sorted({str(f.law.symbol) for f in integral.factors}
                                | {integral.hub.symbol}))
        raise MethodUnavailableError(f"no closed form for integrals of {laws} noise; "
                                     f"use method='quad'")
    operations = operation_count(integral)
    if operations > MAX_CLOSED_FORM_OPERATIONS:
        raise MethodUnavailableError(
            f"closed form would need about {operations} multiplications "
            f"(limit {MAX_CLOSED_FORM_OPERATIONS}); use method='quad'")

    def attempt(working: int) -> tuple[bool, tuple]:
        """The expansion at ``working`` digits, and whether its error bound meets ``dps``."""
        log_scale, total, _, error = _evaluate(integral, working)
        narrow = total > 0 and error <= abs(total) * mpf(10) ** (-(dps + 5))
        return narrow, (log_scale, total, error)

    def following(result: tuple, working: int) -> int:
        """The digits the expansion lost, added to those asked; twice as many where it lost
        every digit (the loss is then at least the working precision)."""
        _, total, error = result
        if total > 0 and error < abs(total):
            return dps + 20 + int(mpmath.log10(error / (total * mpf(10) ** (-working)))) + 1
        return 2 * working

    return refine(attempt, dps + GUARD_DIGITS, math.inf,
                  lambda result, working: f"closed form could not absorb the cancellation at "
                                          f"{working} digits", following, CLOSED_FORM_TRIES)
