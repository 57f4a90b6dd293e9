"""Exact event probabilities of histograms (``exact/event_probability/rules.py``'s rule for
:class:`~exactdp.mechanisms.histogram.HistogramMechanism`).

Bins are independent: ``Pr[a < v_i < b] = F(b − q_i) − F(a − q_i)``, multiplied over the bins
the event names; certified, the same product as balls (docs/engine.md, "Certified events").
With integer-valued noise a bin's interval keeps its closed ends: the integers ``k`` with
``q_i + k`` inside are those strictly between two half-integers (:func:`_noise_interval`).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
from flint import arb
from mpmath import mpf

from ...errors import InputError
from ...events import Coordinate, Event, Interval
from ...mechanisms.histogram import HistogramMechanism
from ...precision import CertifiedProbability, unit_roundoff, working_dps
from ...sequences import as_queries
from .rules import certified_event, estimated_event, event_ends, event_rule


def _noise_interval(law, interval: Interval, answer) -> tuple:
    """``(low, high)``: the open interval of ``η`` with ``answer + η`` in ``interval`` (``None``
    ends are infinite).  For an integer-valued law the ends become the half-integers around the
    integers inside, a closed end counting its own integer (the open interval between them holds
    exactly those integers, and ``F(x) = Pr[η < x]`` at a half-integer is ``Pr[η ≤ x]``)."""
    ends = [None if end is None else Fraction(end) - Fraction(answer)
            for end in (interval.low, interval.high)]
    if not law.integer_valued:
        return tuple(ends)
    low, high = ends
    if low is not None:
        first = math.ceil(low) if interval.low_closed else math.floor(low) + 1
        low = first - Fraction(1, 2)
    if high is not None:
        last = math.floor(high) if interval.high_closed else math.ceil(high) - 1
        high = last + Fraction(1, 2)
    return low, high


def _histogram_certified(mech: HistogramMechanism, answers: list, intervals: list,
                         dps: int) -> CertifiedProbability:
    """``Π_i Pr[a_i < q_i + η < b_i]`` in balls (bins are independent)."""
    shifted = [_noise_interval(mech.noise, interval, answers[position])
               for position, interval in intervals]

    def compute(goal):
        total = arb(0)
        for low, high in shifted:
            log_factor = mech.noise.log_interval_ball(low, high)
            if log_factor is None:
                return None, ["closed"]
            total += log_factor
        return total, ["closed"]
    magnitude = sum((1 + abs(end) / mech.noise.scale for ends in shifted for end in ends
                     if end is not None), Fraction(1))
    return certified_event(compute, magnitude, dps)


@event_rule.register
def _(mech: HistogramMechanism, queries, event: Event, dps: int, certified: bool):
    answers = as_queries(queries).expand()
    intervals = []
    for name, condition in event.conditions:
        component = event.view.component(name)
        if not isinstance(component, Coordinate) or not isinstance(condition, Interval):
            raise InputError(f"no exact engine for the event condition {name}{condition}")
        intervals.append((component.position or 0, condition))
    if certified:
        return _histogram_certified(mech, answers, intervals, dps)
    with mpmath.workdps(working_dps(dps)):
        value, relative = mpf(1), mpf(0)
        for position, condition in intervals:
            low, high = event_ends(Interval(*_noise_interval(mech.noise, condition,
                                                             answers[position])))
            value *= mech.noise.interval(low, high)
            # an interval probability is a difference taken without cancellation
            # (NoiseLaw.interval): its relative error is a few roundings of exponentials of
            # arguments up to |x|/b
            ends = [abs(x) for x in (low, high) if mpmath.isfinite(x)]
            relative += 8 * (max(ends, default=mpf(0)) / mech.noise.b + 2) \
                * unit_roundoff()
        return estimated_event(value, value * relative, "closed", dps)
