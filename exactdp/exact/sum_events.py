"""Exact probabilities of box events ``o_j ∈ I_j`` on the outputs of the noisy sums.

The sums keep their own closed forms (rather than the one integral form): their outputs are
running sums of Laplace noises, whose laws are the sums' own (below), not products of one
noise's probabilities given a hub.

  Output ``j`` is ``o_j = m_j + W_j`` with ``m_j`` the noiseless output and
``W_j = carry_j·W_{j−1} + η_j``: the accumulated noise restarts at every term without carry, so
the coordinates fall into independent *segments*, and within a segment ``W_j`` is the sum of the
segment's noises up to ``j``.  With ``k`` noisy terms of scale ``b`` so far, ``W_j/b`` is the sum
``Z_k`` of ``k`` i.i.d. standard Laplace variables, whose survival function for ``t ≥ 0`` is::

    S_k(t) = e^{−t} / ((k−1)! 2^k) · Σ_{j=0}^{k−1} C_j 2^{−j} (k−1−j)! Σ_{l=0}^{k−1−j} t^l / l!,
    C_j = (k−1+j)! / (j! (k−1−j)!)

(the density ``e^{−|t|}/((k−1)! 2^k) Σ_j C_j 2^{−j} |t|^{k−1−j}`` of Kotz, Kozubowski & Podgórski,
*The Laplace Distribution and Generalizations*, 2001, §2.3, integrated term by term with
``∫_t^∞ u^m e^{−u} du = m! e^{−t} Σ_{l≤m} t^l/l!``).  Every term is positive: no cancellation.
``k = 0`` (a deterministic coordinate, BadSmartSum's block ends) gives an indicator, with the
interval's open or closed ends honoured exactly: probabilities 1 and 0, never near-zero floats.
Two constrained coordinates in one segment are one 1-D integral
``∫_{I_1} f_{k_1}(x) · Pr[x + W' ∈ I_2] dx`` (tanh-sinh, split at the kinks); more than two in one
segment are refused (:class:`~exactdp.errors.MethodUnavailableError`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
from mpmath import mpf

from ..errors import InputError, MethodUnavailableError
from ..events import Interval
from ..mechanisms.sums import NoisySum
from ..precision import (Probability, check_dps, require_digits, to_mpf, unit_roundoff,
                         working_dps)
from ..sequences import as_queries
from .sums import noiseless_output


def laplace_sum_sf(k: int, t: mpf) -> mpf:
    """``Pr[Z_k > t]`` for ``t ≥ 0``, ``Z_k`` a sum of ``k ≥ 1`` i.i.d. standard Laplace variables
    (module docstring)."""
    total = mpf(0)
    for j in range(k):
        m = k - 1 - j
        weight = mpf(math.factorial(k - 1 + j)) / (math.factorial(j) * 2 ** j)
        total += weight * sum(t ** l / math.factorial(l) for l in range(m + 1))
    return mpmath.exp(-t) * total / (math.factorial(k - 1) * 2 ** k)


def laplace_sum_pdf(k: int, t: mpf) -> mpf:
    """The density of ``Z_k`` at ``t`` (module docstring)."""
    a = abs(t)
    total = sum(mpf(math.factorial(k - 1 + j)) / (math.factorial(j) * math.factorial(k - 1 - j)
                                                 * 2 ** j) * a ** (k - 1 - j) for j in range(k))
    return mpmath.exp(-a) * total / (math.factorial(k - 1) * 2 ** k)


def _tail_terms(k: int, b: mpf, low: mpf | None, high: mpf | None) -> tuple:
    """Terms summing to ``Pr[b·Z_k ∈ (low, high)]`` (``k ≥ 1``; ``None`` ends are infinite), each
    a survival function at a non-negative point, so that no term is ``1 − (a number near 1)``."""
    def sf(x):
        return mpf(0) if x is None else laplace_sum_sf(k, x / b)

    if low is not None and low >= 0:
        return sf(low), -sf(high)
    if high is not None and high <= 0:
        return sf(-high), -sf(None if low is None else -low)
    return mpf(1), -sf(None if low is None else -low), -sf(high)


def _interval_mass(k: int, scale: Fraction, interval: Interval) -> tuple[mpf, mpf]:
    """``(Pr[b·Z_k ∈ interval], absolute error)``; ``k = 0`` is the point mass at 0."""
    if k == 0:
        return mpf(int(interval.contains(Fraction(0)))), mpf(0)
    if interval.low is not None and interval.high is not None and interval.low >= interval.high:
        return mpf(0), mpf(0)
    terms = _tail_terms(k, to_mpf(scale), *(None if e is None else to_mpf(e)
                                            for e in (interval.low, interval.high)))
    return mpmath.fsum(terms), sum(abs(t) for t in terms) * unit_roundoff() * 4


@dataclass(frozen=True)
class _Constraint:
    noisy_terms: int
    interval: Interval  # on the accumulated noise W_j


def _segments(mech: NoisySum, queries, constrained: dict) -> list[tuple[Fraction, list]]:
    """Per segment: its noise scale and the constraints on its accumulated noise, in order."""
    queries = as_queries(queries)
    terms = mech.terms(len(queries))
    mode = noiseless_output(mech, queries)
    for j in constrained:
        if j >= len(terms):
            raise InputError(f"event constrains out{j} but {mech.name} releases {len(terms)} "
                             f"number(s) on {len(queries)} queries")
    segments, noisy = [], 0
    for j, term in enumerate(terms):
        if not term.carry:
            segments.append([set(), []])
            noisy = 0
        if term.scale > 0:
            noisy += 1
            segments[-1][0].add(term.scale)
        if j in constrained:
            segments[-1][1].append(_Constraint(noisy, constrained[j].shift(mode[j])))
    result = []
    for scales, constraints in segments:
        if len(scales) > 1:
            raise MethodUnavailableError("noise scales differ within one running sum")
        if constraints:
            result.append((next(iter(scales), Fraction(0)), constraints))
    return result


def _segment_probability(scale: Fraction, constraints: list) -> tuple[mpf, mpf, str]:
    """``(probability, absolute error, method)`` of one segment's constraints."""
    if len(constraints) == 1:
        return *_interval_mass(constraints[0].noisy_terms, scale, constraints[0].interval), "closed"
    if len(constraints) > 2:
        raise MethodUnavailableError("at most two constrained coordinates per running sum")
    first, second = constraints
    extra = second.noisy_terms - first.noisy_terms
    if extra == 0:
        return *_interval_mass(first.noisy_terms, scale,
                               first.interval.intersect(second.interval)), "closed"
    if first.noisy_terms == 0:
        inside = first.interval.contains(Fraction(0))
        return *(_interval_mass(extra, scale, second.interval) if inside else (mpf(0), mpf(0))), \
            "closed"
    b = to_mpf(scale)

    def integrand(x):  # density of W_first at x times Pr[x + W' ∈ I_2]
        lo = None if second.interval.low is None else to_mpf(second.interval.low) - x
        hi = None if second.interval.high is None else to_mpf(second.interval.high) - x
        density = laplace_sum_pdf(first.noisy_terms, x / b) / b
        return density * mpmath.fsum(_tail_terms(extra, b, lo, hi))

    ends = [first.interval.low, first.interval.high]
    points = {Fraction(0)} | {e for e in (second.interval.low, second.interval.high)
                              if e is not None}
    inside = sorted(p for p in points if first.interval.contains(p) and p not in ends)
    nodes = ([mpmath.ninf if ends[0] is None else to_mpf(ends[0])] + [to_mpf(p) for p in inside]
             + [mpmath.inf if ends[1] is None else to_mpf(ends[1])])
    value, error = mpmath.quad(integrand, nodes, error=True)
    other = mpmath.quad(integrand, nodes, method="gauss-legendre")
    return value, error + abs(other - value), "quad+gauss-legendre"


def sum_event_probability(mech: NoisySum, queries, constraints: dict, dps: int) -> Probability:
    """``Pr[o_j ∈ I_j for every j]`` for ``constraints = {j: I_j}`` (module docstring)."""
    dps = check_dps(dps)
    with mpmath.workdps(working_dps(dps)):
        value, relative, methods = mpf(1), mpf(0), []
        for scale, segment in _segments(mech, queries, constraints):
            mass, error, method = _segment_probability(scale, segment)
            if mass == 0:
                return Probability.exact_zero(False, dps)
            value *= mass
            relative += error / mass
            methods.append(method)
        require_digits(relative, dps, "event probability")
        return Probability(+value, mpmath.log(value), value * relative,
                           "+".join(dict.fromkeys(methods)), False, dps)
