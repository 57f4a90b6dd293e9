"""Exact probability of an event: ``Pr[M(D) ∈ E]`` for the events of ``exactdp.events``
(:func:`event_probability`) and the event's privacy loss (:func:`event_privacy_loss`).

Each family registers its rule with :func:`event_rule`, a generic function on the mechanism's
description type, from its own module: the Sparse Vector family ``event_probability/threshold.py``,
noisy max ``event_probability/noisy_max.py``, histograms ``event_probability/histogram.py``, noisy
sums ``event_probability/sums.py``, programs ``exactdp.programs.exact``.  This module holds what the
rules share: the ends of an interval, the estimate's and the enclosure's result, and the log of a
difference. Continuous laws give open and closed ends the same probability.

Certified (the default, ``method="auto"``/``"certified"``): the same rules in ball arithmetic
(docs/engine.md, "Certified events").
"""

from __future__ import annotations

import dataclasses
import functools

import mpmath
from flint import ctx
from mpmath import mpf

from ...errors import InputError, MethodUnavailableError
from ...events import Event, Interval, parse_event, view_of
from ...precision import CertifiedProbability, Probability, check_dps, require_digits, to_mpf
from ..backends.certified import enclose
from ..losses.privacy_loss import PrivacyLoss, loss_from_probabilities, neighbouring_pair


def event_ends(interval: Interval) -> tuple[mpf, mpf]:
    """An interval's ends as mpf at the working precision (``±inf`` for infinite ends)."""
    return (mpf("-inf") if interval.low is None else to_mpf(interval.low),
            mpf("inf") if interval.high is None else to_mpf(interval.high))


def estimated_event(value: mpf, error: mpf, method: str, dps: int) -> Probability:
    """The estimate ``value`` with absolute error bound ``error`` (an exact zero for
    ``value ≤ 0``), checked to reach ``dps`` digits."""
    if value <= 0:
        return Probability.exact_zero(False, dps)
    require_digits(error / value, dps, "event probability")
    return Probability(+value, mpmath.log(value), +error, method, False, dps)


#: The methods of :func:`event_probability`: ``"certified"`` an enclosure in ball arithmetic,
#: ``"estimate"`` mpmath with a computed error estimate, ``"auto"`` the certified enclosure
#: where a certified rule exists and the estimate otherwise.
EVENT_METHODS = ("auto", "certified", "estimate")


def event_probability(mech, queries, event, dps: int = 30, method: str = "auto") -> Probability:
    """The exact ``Pr[M(queries) ∈ event]``: a certified enclosure or a computed error bound.

    Parameters
    ----------
    mech : a mechanism description
    queries : str or sequence of numbers
    event : str or Event
        A string is read on the view of ``mech`` on ``queries`` (``exactdp.events``); an
        :class:`~exactdp.events.Event` keeps the view it was read on (the tester reads events on
        D1 and evaluates them on D1 and D2).
    dps : int
        Significant digits wanted (a :class:`~exactdp.errors.PrecisionError` otherwise).
    method : {"auto", "certified", "estimate"}
        ``"certified"``: a :class:`~exactdp.precision.CertifiedProbability`, an enclosure of
        relative width at most ``10^{−dps}`` (:class:`~exactdp.errors.MethodUnavailableError`
        where no certified rule exists: programs whose events are differences); ``"estimate"``:
        mpmath with an estimated error bound; ``"auto"``: the certified enclosure where it
        exists, else the estimate, its ``method`` starting with ``"estimate"``.

    Examples
    --------
    >>> import exactdp
    >>> m = exactdp.mechanism("statdp.SVT", eps=1, N=1)
    >>> ps = [event_probability(m, [0, 0], f"false_count={k}", 20) for k in range(3)]
    >>> sum(p.lower for p in ps) <= 1 <= sum(p.upper for p in ps)
    True
    """
    if method not in EVENT_METHODS:
        raise InputError(f"method must be one of {', '.join(EVENT_METHODS)}, got "
                         f"method={method!r}")
    if isinstance(event, str):
        event = parse_event(event, view_of(mech, queries))
    dps = check_dps(dps)
    if method == "estimate":
        return event_rule(mech, queries, event, dps, False)
    try:
        return event_rule(mech, queries, event, dps, True)
    except MethodUnavailableError:
        if method == "certified":
            raise
    estimate = event_rule(mech, queries, event, dps, False)
    if estimate.method.startswith("estimate"):
        return estimate
    return dataclasses.replace(estimate, method=f"estimate {estimate.method}")


def event_privacy_loss(mech, d1, d2, event, dps: int = 30, allow_any_pair: bool = False,
                       method: str = "auto") -> PrivacyLoss:
    """``ln Pr[M(d1) ∈ E] − ln Pr[M(d2) ∈ E]``, exact (±∞ for structural zeros); a string
    ``event`` is read on the view of ``mech`` on ``d1``.  ``method`` as for
    :func:`event_probability`: two certified enclosures give a
    :class:`~exactdp.exact.losses.privacy_loss.CertifiedPrivacyLoss`."""
    d1, d2 = neighbouring_pair(mech, d1, d2, allow_any_pair)
    if isinstance(event, str):
        event = parse_event(event, view_of(mech, d1))
    return loss_from_probabilities(event_probability(mech, d1, event, dps, method),
                                   event_probability(mech, d2, event, dps, method))


@functools.singledispatch
def event_rule(mech, queries, event: Event, dps: int, certified: bool) -> Probability:
    """``Pr[M(queries) ∈ event]`` by the exact rule of ``mech``'s family: a certified enclosure
    when ``certified`` (:class:`~exactdp.errors.MethodUnavailableError` where the family has
    none), else the estimate.  A generic function on the mechanism's type: each family registers
    its rule from its own module."""
    raise MethodUnavailableError(f"no exact event probability for mechanisms of type "
                                 f"{type(mech).__name__}")


def certified_event(compute, magnitude, dps: int, what: str = "event probability"):
    """The :class:`CertifiedProbability` of ``compute(goal) → (log ball or None, methods)``
    (``certified.enclose``: relative width at most ``10^{−dps}``; ``None`` an exact zero)."""
    log_ball, name, bits = enclose(compute, magnitude, dps, what)
    if log_ball is None:
        return CertifiedProbability.exact_zero(False, dps)
    with ctx.workprec(bits):
        return CertifiedProbability.from_log_ball(log_ball, name, False, dps)
