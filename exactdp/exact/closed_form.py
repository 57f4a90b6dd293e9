"""Exact integration of the piecewise-exponential Laplace-threshold integrand (spec §2).

Between consecutive kinks every factor is either a pure exponential (``F_b(x) = ½e^{x/b}`` for
``x < 0``, ``S_b(x) = ½e^{−x/b}`` for ``x ≥ 0``, a gap density ``p_b(x) = e^{∓x/b}/(2b)``) or
``1 − ½e^{∓x/b}``.  With ``w = e^{z/b_ν}`` the
integrand on a piece is ``e^{c₀ + c₁z} · P(w)`` where ``P`` is the Laurent polynomial

    Π_j (1 − ½e^{s_j/b_ν} w^{−1})^{m_j} · Π_k (1 − ½e^{−s_k/b_ν} w)^{n_k},

so it integrates term by term: ``∫_a^b e^{λz} dz = e^{λa}·expm1(λ(b − a))/λ``.

The expansion alternates in sign and cancels badly (about ``m·log10(1.5)`` digits for a power m),
so the work is done at a precision raised by the measured loss: after a first pass the sum of the
terms' magnitudes ``M`` is compared with the result ``R``; ``log10(M/R)`` digits were lost, and the
pass is repeated with that many more.  The reported error is ``M · (number of terms) · 10^{−wp}``.
"""

from __future__ import annotations


import mpmath
from mpmath import mpf

from ..errors import MethodUnavailableError, PrecisionError
from .integrand import FactorKind, ThresholdIntegral
from .log_integrand import to_mpf

#: Largest number of coefficient multiplications a closed form may need before it is refused.
MAX_CLOSED_FORM_OPERATIONS = 1_000_000


def _piece_regimes(integral: ThresholdIntegral):
    """Split (lower, upper) at the kinks; yield (a, b, midpoint) with ±inf for open ends."""
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


def operation_count(integral: ThresholdIntegral) -> int:
    """Coefficient multiplications the expansion needs (worst piece, summed over pieces)."""
    total = 0
    for _, _, middle in _piece_regimes(integral):
        down = sum(f.power for f in integral.factors
                   if f.kind is FactorKind.BELOW and middle > f.shift)
        up = sum(f.power for f in integral.factors
                 if f.kind is FactorKind.ABOVE and middle < f.shift)
        total += 2 * (down + 1) * (up + 1) + down * down + up * up
    return total


def _binomial_expansion(alpha: mpf, power: int) -> list[mpf]:
    """Coefficients of ``(1 − alpha·x)^power`` in increasing powers of x."""
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


def _piece(integral: ThresholdIntegral, a, b, middle):
    """(sum of terms, sum of |terms|, term count) of the integral over one piece, in the log-scale
    ``exp(c₀)`` factored out: returns (c₀, total, magnitude, count)."""
    b_rho, b_nu = to_mpf(integral.threshold_scale), to_mpf(integral.query_scale)
    half = mpf(1) / 2
    # p_{b_ρ}(z) = e^{∓z/b_ρ}/(2b_ρ)
    c0 = -mpmath.log(2 * b_rho)
    c1 = (-1 if middle > 0 else 1) / b_rho
    down, up = [mpf(1)], [mpf(1)]  # polynomials in w^{-1} and in w
    for factor in integral.factors:
        s = to_mpf(factor.shift)
        power = factor.power
        if factor.kind is FactorKind.GAP:  # p(z − s) = e^{∓(z−s)/b}/(2b)
            sign = -1 if middle > factor.shift else 1
            c0 += power * (-sign * s / b_nu - mpmath.log(2 * b_nu))
            c1 += sign * power / b_nu
        elif factor.kind is FactorKind.BELOW:  # F(z − s)
            if middle < factor.shift:  # ½e^{(z−s)/b}
                c0 += power * (-s / b_nu - mpmath.ln2)
                c1 += power / b_nu
            else:  # 1 − ½e^{s/b}·w^{-1}
                down = _multiply(down, _binomial_expansion(half * mpmath.exp(s / b_nu), power))
        else:  # S(z − s) = F(s − z)
            if middle > factor.shift:  # ½e^{(s−z)/b}
                c0 += power * (s / b_nu - mpmath.ln2)
                c1 -= power / b_nu
            else:  # 1 − ½e^{−s/b}·w
                up = _multiply(up, _binomial_expansion(half * mpmath.exp(-s / b_nu), power))
    lo = -mpmath.inf if a is None else to_mpf(a)
    hi = mpmath.inf if b is None else to_mpf(b)
    # Laurent coefficients of P(w): index j is the exponent j − (len(down) − 1).  The factors
    # alternate in sign, so the absolute values multiply to the magnitudes of the expansion.
    coefficients = _multiply(down[::-1], up)
    magnitudes = _multiply([abs(c) for c in down[::-1]], [abs(c) for c in up])
    offset = len(down) - 1
    total, magnitude = mpf(0), mpf(0)
    for j, (coefficient, size) in enumerate(zip(coefficients, magnitudes)):
        rate = c1 + (j - offset) / b_nu if j != offset else c1  # b_ν = 0 leaves only j = offset
        exp_integral = _exp_integral(rate, lo, hi)
        total += coefficient * exp_integral
        magnitude += size * abs(exp_integral)
    return c0, total, magnitude, len(down) * len(up)


def _exp_integral(rate: mpf, lo: mpf, hi: mpf) -> mpf:
    """``∫_lo^hi e^{rate·z} dz`` (finite by construction: the integrand decays at infinite ends)."""
    if rate == 0:
        return hi - lo
    if not mpmath.isfinite(lo):
        return mpmath.exp(rate * hi) / rate
    if not mpmath.isfinite(hi):
        return -mpmath.exp(rate * lo) / rate
    return mpmath.exp(rate * lo) * mpmath.expm1(rate * (hi - lo)) / rate


def _evaluate(integral: ThresholdIntegral, working: int):
    with mpmath.workdps(working):
        pieces = [_piece(integral, a, b, m) for a, b, m in _piece_regimes(integral)]
        log_scale = max(c0 for c0, _, _, _ in pieces)
        total = mpmath.fsum(mpmath.exp(c0 - log_scale) * t for c0, t, _, _ in pieces)
        magnitude = mpmath.fsum(mpmath.exp(c0 - log_scale) * m for c0, _, m, _ in pieces)
        count = sum(n for _, _, _, n in pieces)
        error = magnitude * (count + 1) * mpf(10) ** (-working)
        return +log_scale, total, magnitude, error


def integrate_closed_form(integral: ThresholdIntegral, dps: int):
    """Evaluate the integral exactly by expansion, at a precision raised to absorb cancellation.

    Returns
    -------
    (log_scale, scaled, error) : tuple of mpf
        ``I = exp(log_scale) · scaled``, ``error`` an absolute rounding-error bound on ``scaled``.

    Raises
    ------
    MethodUnavailableError
        If the expansion would need more than :data:`MAX_CLOSED_FORM_OPERATIONS` multiplications.
    PrecisionError
        If the cancellation could not be absorbed.
    """
    operations = operation_count(integral)
    if operations > MAX_CLOSED_FORM_OPERATIONS:
        raise MethodUnavailableError(
            f"closed form would need about {operations} multiplications "
            f"(limit {MAX_CLOSED_FORM_OPERATIONS}); use method='quad'")
    working = dps + 15
    for _ in range(8):
        log_scale, total, magnitude, error = _evaluate(integral, working)
        if total > 0 and error <= abs(total) * mpf(10) ** (-(dps + 5)):
            return log_scale, total, error
        if total > 0 and error < abs(total):  # the loss is measured: add that many digits
            working = dps + 20 + int(mpmath.log10(magnitude / total)) + 1
        else:  # every digit was lost: the loss is at least the working precision
            working *= 2
    raise PrecisionError(f"closed form could not absorb the cancellation at {working} digits")
