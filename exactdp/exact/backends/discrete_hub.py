"""The integral form over an integer-valued hub: a sum over the integers.

With the hub ``ρ`` on the integers (discrete Laplace or discrete Gaussian), the integral of
``form/integral_form.py`` is the sum ::

    I = Σ_{lower < k < upper} Pr[ρ = k] · Π_j g_j(k − s_j)^{m_j}

with every ``g_j`` the CDF ``Pr[ν < x]``, the survival function ``Pr[ν ≥ x]`` or the mass
``Pr[ν = x]`` of an integer-valued law (``noise.DiscreteLaplace``,
``discrete_gaussian_law.DiscreteGaussian``), read at the integer ``⌈k − s_j⌉ = k − ⌊s_j⌋``.
Each term is a ball.  Between the kinks the logs of all terms come from one product of ball
polynomials per law and kind: ``Σ_j m_j log g(k − o_j)`` is the convolution of the powers at
each offset ``o_j`` with the law's logs at the integers.

**Kinks and tails.**  Right of ``K₊ = max(0, max_j ⌊s_j⌋ + 1)`` (so ``k ≥ 0`` and
``k − s_j > 0`` for every ``j``) every CDF factor is at most 1, so the term ``t(k) ≤ U(k)``, the
term without its CDF factors.  The mass, CDF and survival function of every integer-valued law
(discrete Laplace and discrete Gaussian) are log-concave sequences (docs/mathematics.md §3), so
``U``, a product of such sequences, is one too: its ratio ``U(k + 1)/U(k)`` does not increase
with ``k``, and wherever ``r = U(K + 1)/U(K) < 1`` ::

    Σ_{k ≥ K} t(k) ≤ U(K)/(1 − r)        (K ≥ K₊).

For the discrete Laplace law ``r = exp(−1/b_ρ − Σ_{survival, mass} m_j/b_j)`` at every
``K ≥ K₊`` (the tails are geometric); for the discrete Gaussian it falls with ``K``.  Left of
``K₋ = min(0, min_j ⌊s_j⌋)`` the same holds with the roles of the CDF and the survival function
(now at most 1) exchanged.  The terms between ``K₋`` and ``K₊`` are summed exactly (in balls);
beyond them the sum goes on term by term until the bound is below ``2^{−goal}`` of the partial
sum, and the tail is added as the ball ``[0, U(K)/(1 − r)]``: an enclosure, whatever the
precision.
"""

from __future__ import annotations

import math
from collections import Counter

from flint import arb, arb_poly

from ...errors import MethodUnavailableError
from ...noise import Kind
from ..form.integral_form import Integral

#: The first and the largest block of tail terms whose logs one product of ball polynomials
#: gives (``_tail``).
FIRST_BLOCK, LAST_BLOCK = 16, 512


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

    def log_terms(self, low: int, high: int, without: Kind | None = None) -> list[arb]:
        """``log t(k)`` for ``k = low … high`` (``log U(k)`` with ``without`` the kind left
        out).  For each law and kind, ``Σ_j m_j log g(k − o_j)`` over its factors (offsets
        ``o_j = ⌊s_j⌋``) is the convolution of the powers at each offset with the law's logs at
        the integers: one product of ball polynomials (``arb_poly``) gives it at every ``k``."""
        logs = [self.hub.log_ball_integer(Kind.PDF, k) for k in range(low, high + 1)]
        groups: dict = {}
        for factor, offset in zip(self.factors, self.offsets):
            if factor.kind is not without:
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


def _tail(terms: _Terms, start: int, end: int | None, step: int, total: arb, goal: int) -> arb:
    """The sum of the terms from ``start`` towards ``end`` (``step`` ±1; ``None``: to infinity),
    all beyond the kinks: term by term until ``U(k)/(1 − r)``, ``r = U(k + step)/U(k)``, is
    below ``2^{−goal}·total``, then that bound as the ball ``[0, bound]`` (module docstring).
    The logs come in blocks of :data:`FIRST_BLOCK` terms, doubling up to :data:`LAST_BLOCK`
    (:meth:`_Terms.log_terms`; each block reads one ``U`` beyond it, for the last ratio)."""
    bounded = Kind.CDF if step > 0 else Kind.SF
    target = arb(2) ** -goal
    added = arb(0)
    k, size = start, FIRST_BLOCK
    while end is None or (k - end) * step <= 0:
        stop = k + step * (size - 1)
        if end is not None and (stop - end) * step > 0:
            stop = end
        low, high = min(k, stop + step), max(k, stop + step)
        log_terms = terms.log_terms(low, high)
        log_bounds = terms.log_terms(low, high, without=bounded)
        for j in range(k - low, stop - low + step, step):
            ratio = (log_bounds[j + step] - log_bounds[j]).exp()
            if ratio < 1:
                bound = log_bounds[j].exp() / (1 - ratio)
                if bound.upper() <= (target * (total + added)).lower():
                    return added + arb(0, bound.upper()).nonnegative_part()
            added += log_terms[j].exp()
        k, size = stop + step, min(2 * size, LAST_BLOCK)
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
