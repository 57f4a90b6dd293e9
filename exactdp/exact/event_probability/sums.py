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
``∫_{I_1} f_{k_1}(x) · Pr[x + W' ∈ I_2] dx``, split at its kinks (``0`` and the ends of ``I_2``);
more than two in one segment are refused (:class:`~exactdp.errors.MethodUnavailableError`).

Both formulas are polynomials with positive rational coefficients times ``e^{−t}``, evaluated
once for any arithmetic: Arb balls (``method="auto"`` or ``"certified"``: the sums are tight,
there is no cancellation; the 1-D integral is ``acb.integral`` on each piece between kinks,
where the integrand is entire, and its infinite ends are cut where the bound
``∫_R^∞ f_{k_1}(x)·Pr[…] dx ≤ Pr[W_{k_1} > R] = S_{k_1}(R/b)`` is below the accuracy asked
for, the bound itself added to the enclosure) or mpmath (the other methods: the 1-D integral by
tanh-sinh checked against Gauss–Legendre, their difference the error estimate).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
from flint import acb, arb, ctx
from mpmath import mpf

from ...errors import InputError, MethodUnavailableError, PrecisionError
from ...events import Coordinate, Event, Interval
from ...mechanisms.sums import NoisySum
from ...precision import (CERTIFIED_METHODS, CertifiedProbability, Probability, check_dps,
                         check_method, require_digits, to_arb, to_mpf, unit_roundoff, working_dps)
from ...sequences import as_queries
from ..backends.arithmetics import BALLS, MPF, Arithmetic
from ..backends.certified import enclose
from .rules import event_rule
from ..form.integral_form import interior_point
from ..form.sums import noiseless_output

#: The right infinite end of a certified 1-D integral is pushed out at most this many times.
MAX_TAIL_STEPS = 64


@functools.lru_cache(maxsize=256)
def sf_coefficients(k: int) -> tuple:
    """``a_l`` (exact, positive) with ``S_k(t) = e^{−t} Σ_l a_l t^l`` for ``t ≥ 0`` (module
    docstring)."""
    coefficients = [Fraction(0)] * k
    for j in range(k):
        weight = Fraction(math.factorial(k - 1 + j), math.factorial(j) * 2 ** j)
        for power in range(k - j):
            coefficients[power] += weight / math.factorial(power)
    return tuple(c / (math.factorial(k - 1) * 2 ** k) for c in coefficients)


@functools.lru_cache(maxsize=256)
def pdf_coefficients(k: int) -> tuple:
    """``c_m`` (exact, positive) with density ``e^{−|t|} Σ_m c_m |t|^m`` (module docstring)."""
    coefficients = [Fraction(0)] * k
    for j in range(k):
        coefficients[k - 1 - j] = Fraction(math.factorial(k - 1 + j), math.factorial(j)
                                           * math.factorial(k - 1 - j) * 2 ** j)
    return tuple(c / (math.factorial(k - 1) * 2 ** k) for c in coefficients)


def _exp_times_polynomial(coefficients: tuple, t, arithmetic: Arithmetic):
    """``e^{−t} Σ_l coefficients[l] t^l`` (Horner)."""
    total = arithmetic.number(coefficients[-1])
    for coefficient in reversed(coefficients[:-1]):
        total = total * t + arithmetic.number(coefficient)
    return arithmetic.exp(-t) * total


def laplace_sum_sf(k: int, t, arithmetic: Arithmetic = MPF):
    """``Pr[Z_k > t]`` for ``t ≥ 0``, ``Z_k`` a sum of ``k ≥ 1`` i.i.d. standard Laplace variables
    (module docstring)."""
    return _exp_times_polynomial(sf_coefficients(k), t, arithmetic)


def laplace_sum_pdf(k: int, t, arithmetic: Arithmetic = MPF):
    """The density of ``Z_k`` at ``t`` (``|t|`` taken here: a real argument)."""
    return _density_at(k, abs(t), arithmetic)


def _density_at(k: int, distance, arithmetic: Arithmetic):
    """The density of ``Z_k`` at distance ``distance = |t|`` from 0 (an analytic function of
    ``distance``: on a piece of one sign the caller passes ``±t``)."""
    return _exp_times_polynomial(pdf_coefficients(k), distance, arithmetic)


def _case(low, high) -> str:
    """Which survival functions sum to ``Pr[low < X < high]`` without cancelling: ``"above"``
    (``low ≥ 0``), ``"below"`` (``high ≤ 0``) or ``"across"``."""
    if low is not None and low >= 0:
        return "above"
    if high is not None and high <= 0:
        return "below"
    return "across"


def _tail_terms(k: int, b, low, high, case: str, arithmetic: Arithmetic) -> tuple:
    """Terms summing to ``Pr[b·Z_k ∈ (low, high)]`` (``k ≥ 1``; ``None`` ends are infinite), each
    a survival function at a non-negative point (``case`` from :func:`_case`, decided by the
    caller), so that no term is ``1 − (a number near 1)``."""
    def sf(x):
        return arithmetic.number(Fraction(0)) if x is None else laplace_sum_sf(k, x / b,
                                                                               arithmetic)

    if case == "above":
        return sf(low), -sf(high)
    if case == "below":
        return sf(-high), -sf(None if low is None else -low)
    return arithmetic.number(Fraction(1)), -sf(None if low is None else -low), -sf(high)


def _interval_terms(k: int, scale: Fraction, interval: Interval, arithmetic: Arithmetic):
    """Terms summing to ``Pr[b·Z_k ∈ interval]``; ``()`` for an exact zero (``k = 0`` is the
    point mass at 0)."""
    if k == 0:
        return (arithmetic.number(Fraction(1)),) if interval.contains(Fraction(0)) else ()
    low, high = interval.low, interval.high
    if low is not None and high is not None and low >= high:
        return ()
    return _tail_terms(k, arithmetic.number(scale), *(
        None if end is None else arithmetic.number(end) for end in (low, high)),
        _case(low, high), arithmetic)


def _interval_mass(k: int, scale: Fraction, interval: Interval) -> tuple[mpf, mpf]:
    """``(Pr[b·Z_k ∈ interval], absolute error)`` in mpmath."""
    terms = _interval_terms(k, scale, interval, MPF)
    if k == 0:  # an indicator: exact
        return mpmath.fsum(terms), mpf(0)
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


def _reduce(scale: Fraction, constraints: list):
    """One segment's constraints as ``("mass", k, interval)`` (one interval probability) or
    ``("integral", first, second, extra)`` (the 1-D integral)."""
    if len(constraints) == 1:
        return "mass", constraints[0].noisy_terms, constraints[0].interval
    if len(constraints) > 2:
        raise MethodUnavailableError("at most two constrained coordinates per running sum")
    first, second = constraints
    extra = second.noisy_terms - first.noisy_terms
    for noisy_terms, interval in ((first.noisy_terms, first.interval), (extra, second.interval)):
        if noisy_terms and interval.low is not None and interval.high is not None \
                and interval.low >= interval.high:
            return "mass", noisy_terms, interval  # a continuous law misses it: an exact zero
    if extra == 0:
        return "mass", first.noisy_terms, first.interval.intersect(second.interval)
    if first.noisy_terms == 0:
        if not first.interval.contains(Fraction(0)):
            return "mass", 0, first.interval  # the point mass misses it: an exact zero
        return "mass", extra, second.interval
    return "integral", first, second, extra


def _kinks(first: _Constraint, second: _Constraint) -> list:
    """``[low, inner points…, high]`` of the 1-D integral (``None`` ends infinite): the ends of
    ``I_1`` and, inside it, ``0`` and the ends of ``I_2``, where the integrand is not analytic."""
    ends = [first.interval.low, first.interval.high]
    points = {Fraction(0)} | {e for e in (second.interval.low, second.interval.high)
                              if e is not None}
    inside = sorted(p for p in points if first.interval.contains(p) and p not in ends)
    return [ends[0], *inside, ends[1]]


def _integrand(first: _Constraint, second: _Constraint, extra: int, scale, middle,
               arithmetic: Arithmetic):
    """``x ↦ f_{W_1}(x) · Pr[x + W' ∈ I_2]`` on the piece containing ``middle``, where the sign
    of ``x`` and the case of :func:`_tail_terms` are those of ``middle`` (an analytic function
    of ``x`` there)."""
    b = arithmetic.number(scale)
    sign = 1 if middle >= 0 else -1
    low, high = second.interval.low, second.interval.high
    case = _case(None if low is None else low - middle, None if high is None else high - middle)
    low = None if low is None else arithmetic.number(low)
    high = None if high is None else arithmetic.number(high)

    def integrand(x):
        density = _density_at(first.noisy_terms, sign * x / b, arithmetic) / b
        terms = _tail_terms(extra, b, None if low is None else low - x,
                            None if high is None else high - x, case, arithmetic)
        return density * sum(terms[1:], terms[0])
    return integrand


def _segment_probability(scale: Fraction, constraints: list) -> tuple[mpf, mpf, str]:
    """``(probability, absolute error, method)`` of one segment's constraints in mpmath."""
    reduced = _reduce(scale, constraints)
    if reduced[0] == "mass":
        return *_interval_mass(reduced[1], scale, reduced[2]), "closed"
    _, first, second, extra = reduced
    kinks = _kinks(first, second)
    pieces = [_integrand(first, second, extra, scale, interior_point(a, c), MPF)
              for a, c in zip(kinks, kinks[1:])]
    nodes = [mpmath.ninf if kinks[0] is None else to_mpf(kinks[0])] + \
        [to_mpf(p) for p in kinks[1:-1]] + [mpmath.inf if kinks[-1] is None else to_mpf(kinks[-1])]
    value, error, other = mpf(0), mpf(0), mpf(0)
    for integrand, a, c in zip(pieces, nodes, nodes[1:]):
        part, part_error = mpmath.quad(integrand, [a, c], error=True)
        value, error = value + part, error + part_error
        other += mpmath.quad(integrand, [a, c], method="gauss-legendre")
    return value, error + abs(other - value), "quad+gauss-legendre"


def _segment_ball(scale: Fraction, constraints: list, goal: int) -> tuple:
    """``(probability as a ball or None for an exact zero, method)`` of one segment's
    constraints, aiming at a relative accuracy ``2^{−goal}`` (module docstring)."""
    reduced = _reduce(scale, constraints)
    if reduced[0] == "mass":
        terms = _interval_terms(reduced[1], scale, reduced[2], BALLS)
        return (sum(terms[1:], terms[0]) if terms else None), "closed"
    _, first, second, extra = reduced
    kinks = _kinks(first, second)
    pieces = [(a, c, _integrand(first, second, extra, scale, interior_point(a, c), BALLS))
              for a, c in zip(kinks, kinks[1:])]
    target = arb(2) ** -goal
    tolerance = target * _size(first, scale, pieces)
    total = arb(0)

    def integrate(a: Fraction, c: Fraction, piece) -> arb:
        return acb.integral(lambda z, _analytic: piece(z), to_arb(a), to_arb(c),
                            rel_tol=target, abs_tol=tolerance).real

    for a, c, piece in pieces:
        if a is not None and c is not None:
            total += integrate(a, c, piece)
    for end, direction in ((kinks[-1], 1), (kinks[0], -1)):
        if end is None:
            total += _infinite_piece(first, second, extra, scale, kinks, direction, target,
                                     total, integrate)
    return total, "integral"


def _size(first: _Constraint, scale: Fraction, pieces: list) -> arb:
    """A rough size of the 1-D integral, for ``acb.integral``'s absolute tolerance only (an
    integral far below it would come out wide, and :func:`~.certified.enclose` would ask for
    more; without it, the parts where the integrand is ``e^{−10^6}`` times its peak would be
    refined in vain): the largest value of the integrand at the finite kinks, times the
    width of ``I_1`` capped at the scale ``b``."""
    largest = arb(0)
    for a, c, piece in pieces:
        for end in (a, c):
            if end is not None:
                value = piece(to_arb(end)).mid()
                if value > largest:
                    largest = value
    low, high = first.interval.low, first.interval.high
    width = scale if low is None or high is None else min(scale, high - low)
    return largest * to_arb(width)


def _infinite_piece(first, second, extra, scale, kinks, direction, target, total, integrate):
    """The 1-D integral from the outermost finite kink to infinity on the side ``direction``:
    integrated over steps that double in width until the tail beyond, at most
    ``S_{k_1}(|R|/b)`` (the mass of ``W_1`` there; ``|R|`` is beyond 0), is below
    ``target`` times the integral so far; the tail is added as ``[0, bound]``."""
    start = kinks[-2] if direction == 1 else kinks[1]
    piece = _integrand(first, second, extra, scale, start + direction, BALLS)
    width, part = scale, arb(0)
    for _ in range(MAX_TAIL_STEPS):
        end = start + direction * width
        low, high = sorted((start, end))
        part += integrate(low, high, piece)
        bound = laplace_sum_sf(first.noisy_terms, to_arb(abs(end) / scale), BALLS)
        if bound.upper() <= (target * (total + part)).lower():
            return part + arb(0, bound.upper()).nonnegative_part()
        start, width = end, 2 * width
    raise PrecisionError("certified event probability: the tail of a running sum's integral "
                         "did not fall below the accuracy asked for")


def sum_event_probability(mech: NoisySum, queries, constraints: dict, dps: int,
                          method: str = "auto") -> Probability:
    """``Pr[o_j ∈ I_j for every j]`` for ``constraints = {j: I_j}`` (module docstring); a
    :class:`~exactdp.precision.CertifiedProbability` for ``method="auto"`` or ``"certified"``,
    the mpmath estimate for the other methods."""
    dps = check_dps(dps)
    segments = _segments(mech, queries, constraints)
    if check_method(method) in CERTIFIED_METHODS:
        return _certified(segments, dps)
    with mpmath.workdps(working_dps(dps)):
        value, relative, methods = mpf(1), mpf(0), []
        for scale, segment in segments:
            mass, error, method_name = _segment_probability(scale, segment)
            if mass == 0:
                return Probability.exact_zero(False, dps)
            value *= mass
            relative += error / mass
            methods.append(method_name)
        require_digits(relative, dps, "event probability")
        return Probability(+value, mpmath.log(value), value * relative,
                           "+".join(dict.fromkeys(methods)), False, dps)


def _certified(segments: list, dps: int) -> CertifiedProbability:
    """The enclosure of the product of the segments' probabilities, ``log`` of each summed."""
    def compute(goal):
        log_total, methods = arb(0), []
        for scale, segment in segments:
            mass, name = _segment_ball(scale, segment, goal)
            if mass is None:
                return None, methods
            log_total += mass.log()
            methods.append(name)
        return log_total, methods

    magnitude = 1 + sum(abs(end) / scale for scale, segment in segments if scale
                        for c in segment for end in (c.interval.low, c.interval.high)
                        if end is not None)
    log_ball, name, bits = enclose(compute, magnitude, dps, "event probability")
    if log_ball is None:
        return CertifiedProbability.exact_zero(False, dps)
    with ctx.workprec(bits):
        return CertifiedProbability.from_log_ball(log_ball, name, False, dps)


@event_rule.register
def _(mech: NoisySum, queries, event: Event, dps: int, certified: bool):
    constraints = {}
    for name, condition in event.conditions:
        component = event.view.component(name)
        if not isinstance(component, Coordinate) or not isinstance(condition, Interval):
            raise InputError(f"no exact engine for the event condition {name}{condition}")
        constraints[component.position] = condition
    return sum_event_probability(mech, queries, constraints, dps,
                                 "certified" if certified else "estimate")
