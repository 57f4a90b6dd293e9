"""Exact output densities of the Laplace histogram (``HistogramMechanism``,
``@probability.register``).

The bins are independent: the density of the noisy vector ``v`` is ``Π_i p_b(v_i − q_i)`` (only
``p_b(v_1 − q_1)`` for StatDP's first-bin versions), a closed form (Dwork & Roth §3.3).  The
probability of an interval ``a < v_i < b`` is ``F_b(b − q_i) − F_b(a − q_i)``
(:func:`bin_interval_probability`).
"""

from __future__ import annotations

import mpmath
from mpmath import mpf

from ..errors import InputError
from ..mechanisms.histogram import HistogramMechanism
from ..noise import laplace_logcdf, laplace_logpdf
from ..sequences import as_output, as_queries
from .log_concave import working_precision
from .log_integrand import to_mpf
from .probability import Probability, check_dps, check_method, probability


def laplace_interval(low: mpf, high: mpf, b: mpf) -> mpf:
    """``Pr[low < X < high]`` for ``X ~ Lap(b)``: ``F_b(high) − F_b(low)`` (ends may be ±inf).

    Computed as the difference on the side of the median where both CDF values are small (the
    CDF below it, the survival function above it), so nothing cancels needlessly.
    """
    if low >= high:
        return mpf(0)

    def cdf(x):
        return mpf(0) if x == mpf("-inf") else mpf(1) if x == mpf("inf") else \
            mpmath.exp(laplace_logcdf(x, b))

    def sf(x):
        return mpf(1) if x == mpf("-inf") else mpf(0) if x == mpf("inf") else \
            mpmath.exp(laplace_logcdf(-x, b))

    if high <= 0:
        return cdf(high) - cdf(low)
    if low >= 0:
        return sf(low) - sf(high)
    return 1 - cdf(low) - sf(high)


def bin_interval_probability(mech: HistogramMechanism, queries, bin_index: int, low: mpf,
                             high: mpf) -> mpf:
    """``Pr[low < q_i + Lap(b) < high]`` for bin ``bin_index`` (0-based)."""
    answers = as_queries(queries).expand()
    return laplace_interval(low - to_mpf(answers[bin_index]), high - to_mpf(answers[bin_index]),
                            to_mpf(mech.scale))


@probability.register
def _(mech: HistogramMechanism, queries, output, dps: int = 30, method: str = "auto"):
    dps, _ = check_dps(dps), check_method(method)
    answers = as_queries(queries).expand()
    values = as_output(output).expand()
    expected = 1 if mech.first_bin_only else len(answers)
    if len(values) != expected or any(v is True or v is False for v in values):
        raise InputError(f"not an output {mech.name} can produce: {expected} number(s), got "
                         f"{output!r}")
    with mpmath.workdps(working_precision(dps)):
        b = to_mpf(mech.scale)
        log_value = mpmath.fsum(laplace_logpdf(to_mpf(v - q), b) for v, q in zip(values, answers))
        value = mpmath.exp(log_value)
        return Probability(+value, +log_value, value * mpf(10) ** (-(dps + 5)),
                           "closed", True, dps)
