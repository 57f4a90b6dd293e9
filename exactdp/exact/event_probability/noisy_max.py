"""Exact event probabilities of report noisy max (``exact/event_probability/rules.py``'s rule for
:class:`~exactdp.mechanisms.noisy_max.NoisyMaxMechanism`).

An index is ``exactdp.probability``; the value ``v``:
``Pr[a < max < b] = Π_j F(b − q_j) − Π_j F(a − q_j)``; certified, the difference of the CDF
products as balls (docs/engine.md, "Certified events").
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
from flint import arb
from mpmath import mpf

from ...errors import InputError
from ...events import Coordinate, Event, Index, Interval
from ...mechanisms.noisy_max import NoisyMaxMechanism
from ...noise import Kind, log_difference
from ...precision import CertifiedProbability, to_mpf, unit_roundoff, working_dps
from ...sequences import as_queries
from ..backends.certified import log_constant
from .rules import certified_event, estimated_event, event_ends, event_rule
from ..probability import probability


def _single_condition(event: Event, kinds: tuple):
    if len(event.conditions) != 1:
        raise InputError(f"events of this output have one condition, got {event}")
    name, condition = event.conditions[0]
    component = event.view.component(name)
    if not isinstance(component, kinds):
        raise InputError(f"no exact engine for the event condition {name}{condition}")
    return component, condition


@event_rule.register
def _(mech: NoisyMaxMechanism, queries, event: Event, dps: int, certified: bool):
    component, condition = _single_condition(event, (Index, Coordinate))
    if isinstance(component, Index):
        return probability(mech, queries, str(condition.value), dps,
                           "certified" if certified else "estimate")
    answers = as_queries(queries)
    if certified:
        return _noisy_max_value_certified(mech, answers, condition, dps)
    with mpmath.workdps(working_dps(dps, len(answers))):
        # Pr[a < max < b] = Π_j F(b − q_j) − Π_j F(a − q_j)
        ends = event_ends(condition)[::-1]
        logs = [mpmath.fsum(count * mech.noise.logcdf(end - to_mpf(q))
                            for q, count in answers) if mpmath.isfinite(end) else
                (mpf(0) if end > 0 else mpf("-inf"))
                for end in ends]
        value = mpmath.exp(logs[0]) - mpmath.exp(logs[1])
        # each log sums n rounded logs of size |log F| + |x/b| + 1: an absolute error in the log
        # is a relative error of its exponential
        sizes = [mpmath.fsum(count * (abs(mech.noise.logcdf(end - to_mpf(q)))
                                      + abs((end - to_mpf(q)) / mech.noise.b) + 1)
                             for q, count in answers) if mpmath.isfinite(end) else mpf(0)
                 for end in ends]
        error = 4 * unit_roundoff() * sum(mpmath.exp(log) * size for log, size in zip(logs, sizes)
                                          if log != mpf("-inf"))
        return estimated_event(value, error, "closed", dps)


def _log_product_of_cdfs(law, answers, end) -> arb | None:
    """``Σ_j m_j log F(end − q_j)`` in balls (``end=None``: ``+∞``, every factor 1)."""
    total = arb(0)
    if end is None:
        return total
    for q, count in answers:
        log_factor = log_constant(law, Kind.CDF, Fraction(end) - q)
        if log_factor is None:
            return None
        total += count * log_factor
    return total


def _noisy_max_value_certified(mech: NoisyMaxMechanism, answers, condition: Interval,
                               dps: int) -> CertifiedProbability:
    """``Π_j F(b − q_j)^{m_j} − Π_j F(a − q_j)^{m_j}`` in balls; an exact zero when the first
    product vanishes (a factor is an exact zero) or the interval is empty: for a law with a
    certified rule ``F`` increases strictly where it is positive."""
    low, high = condition.low, condition.high

    def compute(goal):
        if low is not None and high is not None and not Fraction(low) < Fraction(high):
            return None, ["closed"]
        small = None if low is None else _log_product_of_cdfs(mech.noise, answers, low)
        return log_difference(_log_product_of_cdfs(mech.noise, answers, high), small), \
            ["closed"]
    magnitude = sum((count * (1 + abs(Fraction(end) - q) / mech.noise.scale)
                     for q, count in answers for end in (low, high) if end is not None),
                    Fraction(1))
    return certified_event(compute, magnitude, dps)
