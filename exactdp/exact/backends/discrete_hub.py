"""The integral form over an integer-valued hub: a sum over the integers.

With the hub ``ρ`` on the integers (discrete Laplace), the integral of ``form/integral_form.py`` is
the sum ::

    I = Σ_{lower < k < upper} Pr[ρ = k] · Π_j g_j(k − s_j)^{m_j}

with every ``g_j`` the CDF ``Pr[ν < x]``, the survival function ``Pr[ν ≥ x]`` or the mass
``Pr[ν = x]`` of an integer-valued law (``noise.DiscreteLaplace``), read at the integer
``⌈k − s_j⌉ = k − ⌊s_j⌋``.  Each term is a ball.  Between the kinks the logs of all terms come
from one product of ball polynomials per law and kind: ``Σ_j m_j log g(k − o_j)`` is the
convolution of the powers at each offset ``o_j`` with the law's logs at the integers.

**Kinks and tails.**  ``Pr[ρ = k]`` changes form at ``k = 0``; a factor's CDF or survival function
at ``k − s`` changes form between ``⌈k − s⌉ = 0`` and ``1``, its mass at ``k = s``.  Right of
``K₊ = max(0, max_j ⌊s_j⌋ + 1)`` (so ``k ≥ 0`` and ``k − s_j > 0`` for every ``j``) the hub's mass
``(1 − p)/(1 + p)·p^k``, every survival function ``p_j^{⌈k − s_j⌉}/(1 + p_j)`` and every mass
are multiplied by exactly ``p = e^{−1/b}`` of their law at each step ``k → k + 1``, and every
CDF is at most 1.  So the term ``t(k) ≤ U(k)``, the term without its CDF factors, and
``U(k + 1) = r·U(k)`` with ``r = exp(−1/b_ρ − Σ_{survival, mass} m_j/b_j) < 1``::

    Σ_{k ≥ K} t(k) ≤ U(K)/(1 − r)        (K ≥ K₊).

Left of ``K₋ = min(0, min_j ⌊s_j⌋)`` the same holds with the roles of the CDF (now
``p_j^{1 − ⌈k − s_j⌉}/(1 + p_j)``, geometric) and the survival function (at most 1) exchanged.
The terms between ``K₋`` and ``K₊`` are summed exactly (in balls); beyond them the sum goes on
term by term until the bound is below ``2^{−goal}`` of the partial sum, and the tail is added as
the ball ``[0, U(K)/(1 − r)]``: an enclosure, whatever the precision.
"""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

from flint import arb, arb_poly

from ...errors import MethodUnavailableError
from ...noise import Kind
from ...precision import to_arb
from ..form.integral_form import Integral


def integer_range(integral: Integral) -> tuple[int | None, int | None]:
    """``(first, last)``: the integers ``k`` with ``lower < k < upper`` (``None``: unbounded)."""
    first = None if integral.lower is None else math.floor(integral.lower) + 1
    last = None if integral.upper is None else math.ceil(integral.upper) - 1
    return first, last


class _Terms:
    """``log t(k)`` and ``log U(k)`` (the term without the factors of kind ``bounded``, which are
    at most 1 in the tail being summed) of one integral."""

    def __init__(self, integral: Integral):
        for factor in integral.factors:
            if not factor.law.integer_valued:
                raise MethodUnavailableError(f"a sum over the integer-valued {integral.hub} "
                                             f"cannot carry a factor of {factor.law} noise")
        self.hub = integral.hub
        self.factors = integral.factors
        # g(k − s) is the law's function at the integer ⌈k − s⌉ = k − ⌊s⌋ (s is an integer
        # for a mass: ``Integral.is_empty`` otherwise)
        self.offsets = [math.floor(factor.shift) for factor in integral.factors]
        # (law, kind, n) → log g(n): factors of one law share their values at each integer
        self.values: dict = {}

    def _log(self, law, kind: Kind, n: int) -> arb:
        key = (law, kind, n)
        value = self.values.get(key)
        if value is None:
            value = self.values[key] = law.log_ball_integer(kind, n)
        return value

    def log_terms(self, low: int, high: int) -> list[arb]:
        """``log t(k)`` for ``k = low … high``.  For each law and kind, ``Σ_j m_j log g(k − o_j)``
        over its factors (offsets ``o_j = ⌊s_j⌋``) is the convolution of the powers at each
        offset with the law's logs at the integers: one product of ball polynomials
        (``arb_poly``) gives it at every ``k``."""
        logs = [self.hub.log_ball_integer(Kind.PDF, k) for k in range(low, high + 1)]
        groups: dict = {}
        for factor, offset in zip(self.factors, self.offsets):
            powers = groups.setdefault((factor.law, factor.kind), Counter())
            powers[offset] += factor.power
        for (law, kind), powers in groups.items():
            first, last = min(powers), max(powers)
            table = arb_poly([law.log_ball_integer(kind, n)
                              for n in range(low - last, high - first + 1)])
            weights = arb_poly([powers[first + i] for i in range(last - first + 1)])
            product = table * weights  # coefficient i: k = low − (last − first) + i
            for index in range(len(logs)):
                logs[index] += product[last - first + index]
        return logs

    def logs(self, k: int, bounded: Kind) -> tuple[arb, arb]:
        """``(log t(k), log U(k))``."""
        total = self.hub.log_ball_integer(Kind.PDF, k)
        kept = total
        for factor, offset in zip(self.factors, self.offsets):
            value = factor.power * self._log(factor.law, factor.kind, k - offset)
            total += value
            if factor.kind is not bounded:
                kept += value
        return total, kept

    def log_ratio(self, bounded: Kind) -> Fraction:
        """``log r = −1/b_ρ − Σ m_j/b_j`` over the factors not of kind ``bounded``."""
        return -1 / self.hub.scale - sum((Fraction(f.power) / f.law.scale
                                          for f in self.factors if f.kind is not bounded),
                                         Fraction(0))


def _tail(terms: _Terms, start: int, end: int | None, step: int, total: arb, goal: int) -> arb:
    """The sum of the terms from ``start`` towards ``end`` (``step`` ±1; ``None``: to infinity),
    all beyond the kinks: term by term until ``U(k)/(1 − r)`` is below ``2^{−goal}·total``, then
    that bound as the ball ``[0, bound]`` (module docstring)."""
    bounded = Kind.CDF if step > 0 else Kind.SF
    one_minus_ratio = -to_arb(terms.log_ratio(bounded)).expm1()
    target = arb(2) ** -goal
    added = arb(0)
    k = start
    while end is None or (k - end) * step <= 0:
        log_term, log_bound = terms.logs(k, bounded)
        bound = log_bound.exp() / one_minus_ratio
        if bound.upper() <= (target * (total + added)).lower():
            return added + arb(0, bound.upper()).nonnegative_part()
        added += log_term.exp()
        k += step
    return added


def log_sum(integral: Integral, goal: int) -> arb:
    """``log I`` as a ball for a non-empty integral over an integer-valued hub, aiming at a
    relative accuracy ``2^{−goal}`` (at flint's current precision; module docstring)."""
    terms = _Terms(integral)
    shifts = [factor.shift for factor in integral.factors]
    left = min([0] + [math.floor(s) for s in shifts])
    right = max([0] + [math.floor(s) + 1 for s in shifts])
    first, last = integer_range(integral)
    low = left if first is None else max(left, first)
    high = right if last is None else min(right, last)
    total = sum((log.exp() for log in terms.log_terms(low, high)), arb(0)) if low <= high \
        else arb(0)
    if last is None or last > right:
        total += _tail(terms, max(right + 1, low), last, 1, total, goal)
    if first is None or first < left:
        total += _tail(terms, min(left - 1, high), first, -1, total, goal)
    return total.log()
