"""Exact event probabilities of histograms (``exact/event_probability/rules.py``'s rule for
:class:`~exactdp.mechanisms.histogram.HistogramMechanism`).

Bins are independent: ``Pr[a < v_i < b] = F(b − q_i) − F(a − q_i)``, multiplied over the bins
the event names; certified, the same product as balls (docs/engine.md, "Certified events").
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
from flint import arb
from mpmath import mpf

from ...errors import InputError
from ...events import Coordinate, Event, Interval
from ...mechanisms.histogram import HistogramMechanism
from ...precision import CertifiedProbability, to_mpf, unit_roundoff, working_dps
from ...sequences import as_queries
from .rules import certified_event, estimated_event, event_ends, event_rule


def _histogram_certified(mech: HistogramMechanism, answers: list, intervals: list,
                         dps: int) -> CertifiedProbability:
    """``Π_i Pr[a_i < q_i + η < b_i]`` in balls (bins are independent)."""
    shifted = [tuple(None if end is None else Fraction(end) - answers[position]
                     for end in (interval.low, interval.high))
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
            q = to_mpf(answers[position])
            low, high = (end - q for end in event_ends(condition))
            value *= mech.noise.interval(low, high)
            # an interval probability is a difference taken without cancellation
            # (NoiseLaw.interval): its relative error is a few roundings of exponentials of
            # arguments up to |x|/b
            ends = [abs(x) for x in (low, high) if mpmath.isfinite(x)]
            relative += 8 * (max(ends, default=mpf(0)) / mech.noise.b + 2) \
                * unit_roundoff()
        return estimated_event(value, value * relative, "closed", dps)
