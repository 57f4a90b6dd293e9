"""Exact probabilities of interval and box events on numeric outputs (issue 5 item 2).

An event constrains output coordinates to intervals: ``out0<3.5``, ``out1 in [0,2)``, joined by
``and`` or ``;`` (:func:`parse_event`).  :func:`event_probability` is a generic function on the
description type; the noisy-sum family (``exactdp.mechanisms.sums``) registers the rule below.

Noisy sums.  Output ``j`` is ``o_j = m_j + W_j`` with ``m_j`` the noiseless output and
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

import functools
import math
import re
from dataclasses import dataclass
from fractions import Fraction

import mpmath
from mpmath import mpf

from ..errors import InputError, MethodUnavailableError, PrecisionError
from ..mechanisms.sums import NoisySum
from ..sequences import as_queries, format_number, to_fraction
from ..precision import to_mpf
from .loss import PrivacyLoss, loss_from_probabilities, neighbouring_pair
from ..precision import Probability, check_dps
from .sums import noiseless_output


@dataclass(frozen=True)
class Interval:
    """A real interval; ``None`` ends are infinite (and open)."""

    low: Fraction | None = None
    high: Fraction | None = None
    low_closed: bool = False
    high_closed: bool = False

    def contains(self, x: Fraction) -> bool:
        """Exact membership of a rational point."""
        above = self.low is None or x > self.low or (self.low_closed and x == self.low)
        below = self.high is None or x < self.high or (self.high_closed and x == self.high)
        return above and below

    def intersect(self, other: "Interval") -> "Interval":
        """The intersection (possibly empty)."""
        low, low_closed = _tighter(self.low, self.low_closed, other.low, other.low_closed, max)
        high, high_closed = _tighter(self.high, self.high_closed, other.high, other.high_closed,
                                     min)
        return Interval(low, high, low_closed, high_closed)

    def shift(self, by: Fraction) -> "Interval":
        """``{x − by : x in self}``."""
        return Interval(None if self.low is None else self.low - by,
                        None if self.high is None else self.high - by,
                        self.low_closed, self.high_closed)

    def __str__(self) -> str:
        low = "-inf" if self.low is None else format_number(self.low)
        high = "inf" if self.high is None else format_number(self.high)
        return f"{'[' if self.low_closed else '('}{low},{high}{']' if self.high_closed else ')'}"


def _tighter(a, a_closed, b, b_closed, pick):
    if a is None:
        return b, b_closed
    if b is None or a != b:
        chosen = a if b is None else pick(a, b)
        return chosen, a_closed if chosen == a else b_closed
    return a, a_closed and b_closed


@dataclass(frozen=True)
class BoxEvent:
    """``o_j ∈ I_j`` for every ``(j, I_j)`` in :attr:`constraints` (sorted by ``j``)."""

    constraints: tuple[tuple[int, Interval], ...]

    def __str__(self) -> str:
        return " and ".join(f"out{j} in {interval}" for j, interval in self.constraints)


_COMPARISON = re.compile(r"^out(\d+)\s*(<=|>=|==|<|>|=)\s*(\S+)$")
_MEMBERSHIP = re.compile(r"^out(\d+)\s+in\s*([\[(])\s*([^,]+),([^,\])]+)([\])])$")


def _bound(text: str, infinite: str) -> Fraction | None:
    if text.strip().lower().lstrip("+") in {"inf", "infinity"} and infinite == "+":
        return None
    if text.strip().lower() in {"-inf", "-infinity"} and infinite == "-":
        return None
    return to_fraction(text, "event bound")


def _clause(text: str) -> tuple[int, Interval]:
    comparison = _COMPARISON.match(text)
    if comparison:
        coordinate, op, value = comparison.groups()
        x = to_fraction(value, "event bound")
        interval = {"<": Interval(high=x), "<=": Interval(high=x, high_closed=True),
                    ">": Interval(low=x), ">=": Interval(low=x, low_closed=True)}.get(
            op, Interval(x, x, True, True))
        return int(coordinate), interval
    membership = _MEMBERSHIP.match(text)
    if membership:
        coordinate, left, low, high, right = membership.groups()
        return int(coordinate), Interval(_bound(low, "-"), _bound(high, "+"), left == "[",
                                         right == "]")
    raise InputError(f"event clause must look like 'out0<3.5' or 'out1 in [0,2)', got {text!r}")


def parse_event(text: str) -> BoxEvent:
    """Read an event: clauses ``outJ OP x`` (``<``, ``<=``, ``>``, ``>=``, ``=``) or
    ``outJ in [a,b)`` (any brackets, ``-inf``/``inf`` ends), joined by ``and`` or ``;``.

    Examples
    --------
    >>> str(parse_event("out0<3.5 and out1 in [0,2); out0>=-1"))
    'out0 in [-1,3.5) and out1 in [0,2)'
    """
    if not isinstance(text, str) or not text.strip():
        raise InputError(f"event must be a non-empty string, got {text!r}")
    box: dict[int, Interval] = {}
    for part in re.split(r";|\band\b", text):
        coordinate, interval = _clause(part.strip())
        box[coordinate] = box[coordinate].intersect(interval) if coordinate in box else interval
    return BoxEvent(tuple(sorted(box.items())))


def _as_event(event) -> BoxEvent:
    return event if isinstance(event, BoxEvent) else parse_event(event)


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
    return mpmath.fsum(terms), sum(abs(t) for t in terms) * mpmath.eps * 4


@dataclass(frozen=True)
class _Constraint:
    noisy_terms: int
    interval: Interval  # on the accumulated noise W_j


def _segments(mech: NoisySum, queries, event: BoxEvent) -> list[tuple[Fraction, list]]:
    """Per segment: its noise scale and the constraints on its accumulated noise, in order."""
    queries = as_queries(queries)
    terms = mech.terms(len(queries))
    mode = noiseless_output(mech, queries)
    constrained = dict(event.constraints)
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
    return value, error, "quad"


@functools.singledispatch
def event_probability(mech, queries, event, dps: int = 30) -> Probability:
    """The exact probability that ``mech`` run on ``queries`` outputs a point of ``event``.

    Parameters
    ----------
    mech
        A mechanism with numeric outputs whose family registers a rule (a generic function).
    queries : str or sequence of numbers
    event : str or BoxEvent
        See :func:`parse_event`.
    dps : int
        Significant digits; :class:`~exactdp.errors.PrecisionError` if they cannot be reached.

    Examples
    --------
    >>> import exactdp, exactdp.exact.continuous_events as ev
    >>> m = exactdp.mechanism("bad_smart_sum", M=2)
    >>> ev.event_probability(m, [0, 0, 0], "out1 in [0,0]").value   # block end released exactly
    mpf('1.0')
    """
    raise InputError(f"no event rule for mechanisms of type {type(mech).__name__}")


@event_probability.register
def _(mech: NoisySum, queries, event, dps: int = 30) -> Probability:
    dps = check_dps(dps)
    with mpmath.workdps(dps + 20):
        value, relative, methods = mpf(1), mpf(0), []
        for scale, constraints in _segments(mech, queries, _as_event(event)):
            mass, error, method = _segment_probability(scale, constraints)
            if mass == 0:
                return Probability(mpf(0), mpf("-inf"), mpf(0), "exact zero", False, dps)
            value *= mass
            relative += error / mass
            methods.append(method)
        if relative > mpf(10) ** (-dps):
            raise PrecisionError(f"could not reach {dps} significant digits for the event "
                                 f"(estimated relative error {mpmath.nstr(relative, 3)})")
        return Probability(+value, mpmath.log(value), value * relative,
                           "+".join(dict.fromkeys(methods)), False, dps)


def event_privacy_loss(mech, d1, d2, event, dps: int = 30,
                       allow_any_pair: bool = False) -> PrivacyLoss:
    """``ln(Pr[M(d1) ∈ event] / Pr[M(d2) ∈ event])``, exact (±∞ for structural zeros)."""
    d1, d2 = neighbouring_pair(mech, d1, d2, allow_any_pair)
    event = _as_event(event)
    return loss_from_probabilities(event_probability(mech, d1, event, dps),
                                   event_probability(mech, d2, event, dps))
