"""Exact integration of an integral of the integral form whose laws are piecewise exponential
(Laplace, exponential).

Between consecutive kinks every factor is either a pure exponential ``e^{c + λx}`` or
``1 − e^{c + λx}`` (``NoiseLaw.piece``, ``c`` the log of its coefficient; e.g. ``F_b(x) = ½e^{x/b}``
for ``x < 0``, ``1 − ½e^{−x/b}`` for ``x ≥ 0``).  When every ``1 − …`` factor has a rate ``±1/b``
with one common ``b``, put ``w = e^{z/b}``: on a piece the integrand is ``e^{c₀ + c₁z} · P(w)`` with
``P`` the Laurent polynomial

    Π_j (1 − α_j w^{−1})^{m_j} · Π_k (1 − β_k w)^{n_k},

so it integrates term by term: ``∫_a^b e^{λz} dz = e^{λa}·expm1(λ(b − a))/λ``.

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

from fractions import Fraction

import mpmath
from mpmath import mpf

from ...errors import MethodUnavailableError, PrecisionError
from ...noise import Kind
from ...precision import GUARD_DIGITS, to_mpf, unit_roundoff
from ..form.integral_form import Integral

#: Largest number of coefficient multiplications a closed form may need before it is refused.
MAX_CLOSED_FORM_OPERATIONS = 1_000_000


def has_closed_form(integral: Integral) -> bool:
    """Whether every law of the integral is piecewise exponential."""
    return integral.hub.closed_form and all(f.law.closed_form for f in integral.factors)


def _pieces(integral: Integral):
    """Split (lower, upper) at the kinks; yield (a, b, midpoint) with ``None`` for open ends."""
    edges = [integral.lower] + list(integral.kinks) + [integral.upper]
    for a, b in zip(edges, edges[1:]):
        if a is None and b is None:
            middle = 0
        elif a is None:
            middle = b - 1
        elif b is None:
            middle = a + 1
        else:
            middle = (a + b) / 2
        yield a, b, middle


def _mp_piece(law, kind: Kind, x: Fraction) -> tuple[mpf, mpf, bool]:
    """``(c, λ, one_minus)``: the law's exact piece containing ``x`` (``NoiseLaw.piece``) at
    mpmath precision, ``c`` the log of its coefficient."""
    coefficient, rate, one_minus = law.piece(kind, x)
    return mpmath.log(to_mpf(coefficient)), to_mpf(rate), one_minus


def operation_count(integral: Integral) -> int:
    """Coefficient multiplications the expansion needs (summed over pieces)."""
    total = 0
    for _, _, middle in _pieces(integral):
        degrees = [0, 0]
        for factor in integral.factors:
            _, rate, one_minus = factor.law.piece(factor.kind, middle - factor.shift)
            if one_minus and rate:
                degrees[rate > 0] += factor.power
        down, up = degrees
        total += 2 * (down + 1) * (up + 1) + down * down + up * up
    return total


def _binomial_expansion(log_alpha: mpf, power: int) -> list[mpf]:
    """Coefficients of ``(1 − e^{log_alpha}·x)^power`` in increasing powers of x."""
    alpha = mpmath.exp(log_alpha)
    coefficients, term = [], mpf(1)
    for k in range(power + 1):
        coefficients.append(term)
        term = -term * alpha * (power - k) / (k + 1)
    return coefficients


def _multiply(p: list[mpf], q: list[mpf]) -> list[mpf]:
    result = [mpf(0)] * (len(p) + len(q) - 1)
    for i, a in enumerate(p):
        if a:
            for j, b in enumerate(q):
                result[i + j] += a * b
    return result


def _exp_integral(rate: mpf, lo: mpf, hi: mpf) -> mpf:
    """``∫_lo^hi e^{rate·z} dz`` (finite by construction: the integrand decays at infinite ends)."""
    if rate == 0:
        return hi - lo
    if not mpmath.isfinite(lo):
        return mpmath.exp(rate * hi) / rate
    if not mpmath.isfinite(hi):
        return -mpmath.exp(rate * lo) / rate
    return mpmath.exp(rate * lo) * mpmath.expm1(rate * (hi - lo)) / rate


def _piece(integral: Integral, a, b, middle):
    """``(c₀, total, magnitude, error factor)`` of the integral over one piece, ``e^{c₀}``
    factored out; ``error factor`` is the multiple of ``M·u`` bounding the rounding error."""
    c0, c1, _ = _mp_piece(integral.hub, Kind.PDF, middle)
    size_c0 = abs(c0)
    down, up = [mpf(1)], [mpf(1)]  # polynomials in w^{-1} and in w
    inverse_b, largest_log = None, mpf(0)
    for factor in integral.factors:
        s = to_mpf(factor.shift)
        log_coefficient, piece_rate, one_minus = _mp_piece(factor.law, factor.kind,
                                                           middle - factor.shift)
        # g(z − s) = [1 −] e^{c + λ(z − s)}: the constant part is c − λs
        constant = log_coefficient - piece_rate * s
        if not one_minus:
            c0 += factor.power * constant
            c1 += factor.power * piece_rate
            size_c0 += factor.power * (abs(log_coefficient) + abs(piece_rate * s))
            continue
        if piece_rate == 0:  # a constant 1 − e^{c}
            c0 += factor.power * mpmath.log(-mpmath.expm1(log_coefficient))
            continue
        rate = abs(piece_rate)
        if inverse_b is None:
            inverse_b = rate
        elif rate != inverse_b:
            raise MethodUnavailableError("closed form needs one common scale in the 1 − e^{…} "
                                         "factors; use method='quad'")
        largest_log = max(largest_log, abs(constant))
        expansion = _binomial_expansion(constant, factor.power)
        if piece_rate < 0:
            down = _multiply(down, expansion)
        else:
            up = _multiply(up, expansion)
    lo = -mpmath.inf if a is None else to_mpf(a)
    hi = mpmath.inf if b is None else to_mpf(b)
    # Laurent coefficients of P(w): index j is the exponent j − (len(down) − 1).  The factors
    # alternate in sign, so the absolute values multiply to the magnitudes of the expansion.
    coefficients = _multiply(down[::-1], up)
    magnitudes = _multiply([abs(c) for c in down[::-1]], [abs(c) for c in up])
    offset = len(down) - 1
    total, magnitude, largest_end = mpf(0), mpf(0), mpf(0)
    for j, (coefficient, size) in enumerate(zip(coefficients, magnitudes)):
        rate = c1 + (j - offset) * inverse_b if j != offset else c1
        exp_integral = _exp_integral(rate, lo, hi)
        total += coefficient * exp_integral
        magnitude += size * abs(exp_integral)
        largest_end = max(largest_end, *(abs(rate * end) for end in (lo, hi)
                                         if mpmath.isfinite(end)))
    degree = len(down) + len(up) - 2
    error_factor = 4 * (size_c0 + degree * (largest_log + 3) + largest_end + 10)
    return c0, total, magnitude, error_factor


def _evaluate(integral: Integral, working: int):
    with mpmath.workdps(working):
        pieces = [_piece(integral, a, b, m) for a, b, m in _pieces(integral)]
        log_scale = max(c0 for c0, _, _, _ in pieces)
        scaled = [(mpmath.exp(c0 - log_scale), t, m, e) for c0, t, m, e in pieces]
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
    working = dps + GUARD_DIGITS
    for _ in range(8):
        log_scale, total, magnitude, error = _evaluate(integral, working)
        if total > 0 and error <= abs(total) * mpf(10) ** (-(dps + 5)):
            return log_scale, total, error
        if total > 0 and error < abs(total):  # the loss is measured: add that many digits
            working = dps + 20 + int(mpmath.log10(error / (total * mpf(10) ** (-working)))) + 1
        else:  # every digit was lost: the loss is at least the working precision
            working *= 2
    raise PrecisionError(f"closed form could not absorb the cancellation at {working} digits")
