"""Exact probability of an event: ``Pr[M(D) ∈ E]`` for the events of ``exactdp.events``
(:func:`event_probability`, generic on the mechanism's description type) and the event's
privacy loss (:func:`event_privacy_loss`).

Sparse Vector family (docs/mathematics.md, §8).  Given the threshold noise ``ρ = z`` the answers are
independent: ``⊤`` at position i with probability ``t_i(z) = S_{b_ν}(T + z − q_i)``, ``⊥`` with
``F_{b_ν}(T + z − q_i)``; the run stops after the c-th ⊤.  A post-processed event — additive
statistics ``Σ_i w_i(a_i)`` equal to targets (number of ⊥, Hamming distance, length), optionally
with a condition on the last entry — is summed *inside* the integral::

    Pr[E] = ∫ p_{b_ρ}(z) · G_E(z) dz,   G_E(z) = Σ_{a ∈ E} Π_i Pr[a_i | z]

where ``G_E`` is a coefficient of the generating polynomial of the statistics, computed by a
dynamic programme over positions whose states are (⊤'s so far, last entry in E?, statistics so
far) — never by listing the 2^n outputs.  The programme's result at a node ``z`` is memoised, so
every value of a statistic on one input costs about one integral.  A released value
``v = q_i + ν_i`` in ``(a, b)`` at a ⊤ has probability ``Pr[max(a, T + z) < v < b]`` (Lyu Alg. 3 /
StatDP iSVT4), a Laplace CDF difference.  The integral is evaluated peak-aware
(``exactdp.exact.event_quadrature``): ``G_E`` is a sum of log-concave products, not log-concave
itself, so the mass is located by a scan and bounded beyond the cut by ``G_E ≤ 1``.  When the
mechanism has few outputs (at most ``MAX_SUMMED_OUTPUTS``, as with a cutoff c = 1: n + 1 of them)
and Laplace or exponential noise, the event is instead the finite sum ``Σ_{a ∈ E} Pr[a]`` of its
outputs' closed forms, all evaluated in one walk of the tree of outputs in ball arithmetic
(``exactdp.exact.all_outputs``): a rigorous enclosure, in milliseconds.  A threshold redrawn after each ⊤ (Lyu Alg. 2) breaks the conditional
independence: those events are summed over the enumerated outputs instead (at most
``MAX_ENUMERATED_QUERIES`` queries).

Noisy max: an index is ``exactdp.probability``; the value ``v``:
``Pr[a < max < b] = Π_j F(b − q_j) − Π_j F(a − q_j)``.  Histogram: bins are independent,
``Pr[a < v_i < b] = F(b − q_i) − F(a − q_i)``.  Noisy sums: ``exactdp.exact.sum_events``.
Continuous laws give open and closed ends the same probability.
"""

from __future__ import annotations

import functools
import itertools
from collections import defaultdict

import mpmath
import numpy as np
from flint import arb
from mpmath import mpf

from ..errors import InputError, MethodUnavailableError
from ..events import (Additive, Coordinate, Equals, Event, Index, Interval, IsBottom, LastEntry,
                      OutputIs, parse_event, view_of)
from ..mechanisms.description import Release, ThresholdMechanism
from ..mechanisms.histogram import HistogramMechanism
from ..mechanisms.noisy_max import NoisyMaxMechanism
from ..mechanisms.sums import NoisySum
from ..program.exact import event_probability as program_event_probability
from ..program.model import Program
from ..precision import Probability, check_dps, require_digits, to_mpf, unit_roundoff, working_dps
from ..sampling.sampler import ABSENT, Samples
from ..sequences import as_queries
from . import all_outputs
from .event_quadrature import integrate_hub
from .loss import (MAX_ENUMERATED_QUERIES, MAX_SHARED_QUERIES, PrivacyLoss,
                   loss_from_probabilities, neighbouring_pair, possible_outputs)
from .piece_series import flint_context
from .probability import probability
from .sum_events import sum_event_probability


def _ends(interval: Interval) -> tuple[mpf, mpf]:
    """An interval's ends as mpf at the working precision (``±inf`` for infinite ends)."""
    return (mpf("-inf") if interval.low is None else to_mpf(interval.low),
            mpf("inf") if interval.high is None else to_mpf(interval.high))


def _result(value: mpf, error: mpf, method: str, dps: int) -> Probability:
    if value <= 0:
        return Probability.exact_zero(False, dps)
    require_digits(error / value, dps, "event probability")
    return Probability(+value, mpmath.log(value), +error, method, False, dps)


def event_probability(mech, queries, event, dps: int = 30) -> Probability:
    """The exact ``Pr[M(queries) ∈ event]`` with a computed error bound.

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

    Examples
    --------
    >>> import exactdp
    >>> m = exactdp.mechanism("statdp.SVT", eps=1, N=1)
    >>> total = sum(event_probability(m, [0, 0], f"false_count={k}", 20).value for k in range(3))
    >>> abs(total - 1) < 1e-19
    True
    """
    if isinstance(event, str):
        event = parse_event(event, view_of(mech, queries))
    return _rule(mech, queries, event, check_dps(dps))


def event_privacy_loss(mech, d1, d2, event, dps: int = 30,
                       allow_any_pair: bool = False) -> PrivacyLoss:
    """``ln Pr[M(d1) ∈ E] − ln Pr[M(d2) ∈ E]``, exact (±∞ for structural zeros); a string
    ``event`` is read on the view of ``mech`` on ``d1``."""
    d1, d2 = neighbouring_pair(mech, d1, d2, allow_any_pair)
    if isinstance(event, str):
        event = parse_event(event, view_of(mech, d1))
    return loss_from_probabilities(event_probability(mech, d1, event, dps),
                                   event_probability(mech, d2, event, dps))


@functools.singledispatch
def _rule(mech, queries, event: Event, dps: int) -> Probability:
    raise MethodUnavailableError(f"no exact event probability for mechanisms of type "
                                 f"{type(mech).__name__}")


# ----------------------------------------------------------------------------- Sparse Vector

def _split_event(event: Event):
    """(additive weights, targets, last-entry condition or None) of an event."""
    statistics, targets, last = [], [], None
    for name, condition in event.conditions:
        component = event.view.component(name)
        if isinstance(component, Additive) and isinstance(condition, Equals):
            statistics.append(component.weights)
            targets.append(condition.value)
        elif isinstance(component, LastEntry) and last is None:
            last = condition
        else:
            raise InputError(f"no exact engine for the event condition {name}{condition}")
    return tuple(statistics), tuple(targets), last


class _Programme:
    """The joint law of the statistics given ``ρ = z``: the dynamic programme over positions.

    ``distribution(z)`` maps (values of the statistics, last entry in the event?) to its
    conditional probability; it is memoised per ``z``, so the events of one statistic on one input
    (every ``k`` of ``false_count=k``), integrated on the same quadrature nodes, share the work.
    """

    def __init__(self, mech: ThresholdMechanism, queries: tuple, statistics: tuple, last):
        self.mech, self.statistics, self.last = mech, statistics, last
        self.answers = [to_mpf(q) for q in queries]
        self.threshold = to_mpf(mech.threshold)
        self.noise = mech.query_noise
        self.memo: dict = {}

    def kinks(self) -> list[mpf]:
        """Where the integrand is not smooth: ``0``, ``q_i − T``, the interval ends ``a − T`` and,
        for released gaps, ``q_i − T − max(a, 0)`` and ``q_i − T − b``."""
        points = {mpf(0)} | {q - self.threshold for q in self.answers}
        if isinstance(self.last, Interval):
            ends = [to_mpf(x) for x in (self.last.low, self.last.high) if x is not None]
            points |= {x - self.threshold for x in ends}
            if self.mech.release is Release.GAP:
                points |= {q - self.threshold - max(x, 0) for q in self.answers for x in ends}
        return sorted(points)

    def _top(self, q: mpf, z: mpf) -> tuple[mpf, mpf]:
        """(Pr[⊤ | z], Pr[⊤ and the entry satisfies the last-entry interval | z])."""
        x = self.threshold + z - q
        top = mpmath.exp(self.noise.logsf(x))
        if not isinstance(self.last, Interval):
            return top, top
        low, high = _ends(self.last)
        if self.mech.release is Release.NOISY_VALUE:  # v = q + ν ≥ T + z
            return top, self.noise.interval(max(low, self.threshold + z) - q, high - q)
        if self.mech.release is Release.FRESH_VALUE:  # a fresh value q + fresh noise
            return top, top * self.mech.release_noise.interval(low - q, high - q)
        if self.mech.release is Release.GAP:  # g = q + ν − (T + z) ≥ 0
            return top, self.noise.interval(max(low, 0) + x, high + x)
        raise MethodUnavailableError(f"no exact engine for last-entry events of {self.mech.name}")

    def _bottom(self, q: mpf, z: mpf) -> mpf:
        return mpmath.exp(self.noise.logcdf(self.threshold + z - q))

    def _flag(self, bottom: bool, inside: bool):
        if self.last is None:
            return None
        return bottom if isinstance(self.last, IsBottom) else inside and not bottom

    def _add(self, states, tops, flag, counts, position, answer, weight):
        key = (tops, flag, tuple(c + w[position][answer] for c, w in zip(counts, self.statistics)))
        states[key] += weight

    def distribution(self, z: mpf) -> dict:
        """``{(statistics, last entry in the event?): Pr[· | ρ = z]}`` (memoised)."""
        if z in self.memo:
            return self.memo[z]
        cutoff = self.mech.cutoff
        states = {(0, None, (0,) * len(self.statistics)): mpf(1)}
        laws = {q: self._top(q, z) + (self._bottom(q, z),) for q in set(self.answers)}
        for i, q in enumerate(self.answers):
            top, inside, bottom = laws[q]
            new = defaultdict(mpf)
            for (tops, flag, counts), p in states.items():
                if cutoff is not None and tops == cutoff:  # stopped: the entry is absent
                    self._add(new, tops, flag, counts, i, 2, p)
                    continue
                self._add(new, tops, self._flag(True, False), counts, i, 1, p * bottom)
                self._add(new, tops + 1, self._flag(False, True), counts, i, 0, p * inside)
                if inside != top:
                    self._add(new, tops + 1, self._flag(False, False), counts, i, 0,
                              p * (top - inside))
            states = new
        law = defaultdict(mpf)
        for (_, flag, counts), p in states.items():
            law[counts, flag in (None, True)] += p
        self.memo[z] = law
        return law


@functools.lru_cache(maxsize=64)
def _programme(mech: ThresholdMechanism, queries: tuple, statistics: tuple, last,
               precision: int) -> _Programme:
    """One programme per (mechanism, input, statistics, last condition, working precision)."""
    return _Programme(mech, queries, statistics, last)


#: Most outputs an event of a fixed-threshold mechanism is summed over (:func:`_summed_outputs`);
#: beyond, the generating polynomial is integrated.  A cutoff keeps the count small (``statdp.SVT``
#: with N = 1 has n + 1 outputs).  Measured at 10 and 30 digits: 8 ms for 64 outputs, 0.1–0.15 s
#: for all 4096 outputs of ``svt6`` on 12 queries, where the quadrature takes 3.6–8.9 s.
MAX_SUMMED_OUTPUTS = 4096


def _output_matrix(outputs: list, n: int) -> np.ndarray:
    """The outputs as the sampler's answer matrix (1 ⊤, 0 ⊥, ``ABSENT`` after a stop)."""
    answers = np.full((len(outputs), n), ABSENT, dtype=np.int8)
    for row, output in enumerate(outputs):
        answers[row, :len(output)] = output
    return answers


def _summed_outputs(mech: ThresholdMechanism, queries: list, event: Event, outputs: list,
                    dps: int) -> Probability:
    """Σ over the outputs in the event of their probabilities, all computed in one walk of the
    tree of outputs in ball arithmetic (``all_outputs.py``): the sum of the balls encloses the
    event's probability, its radius is the error bound."""
    inside = event.mask(Samples(_output_matrix(outputs, len(queries)), None))
    wanted = [tuple(output) for output, keep in zip(outputs, inside) if keep]
    balls = all_outputs.all_output_probabilities(mech, queries, wanted, dps)
    with flint_context(int(working_dps(dps, len(queries)) * 3.33) + 16):
        total = sum((balls[output] for output in wanted), arb(0))
        with mpmath.workdps(working_dps(dps, len(queries))):
            value = mpf(total.mid()._mpf_)
            error = mpf(total.rad()._mpf_)
            return _result(value, error, "outputs summed, certified closed form", dps)


def _enumerated(mech: ThresholdMechanism, queries: list, event: Event, dps: int) -> Probability:
    """Σ ``probability`` over every output in the event (threshold redrawn after each ⊤)."""
    n = len(queries)
    if n > MAX_ENUMERATED_QUERIES or mech.releases_numbers:
        raise MethodUnavailableError(
            f"{mech.name} redraws its threshold: its events are summed over the enumerated "
            f"⊤/⊥ outputs, which needs at most {MAX_ENUMERATED_QUERIES} queries, got {n}")
    value, error = mpf(0), mpf(0)
    outputs = list(possible_outputs(mech, n))
    for output, inside in zip(outputs, event.mask(Samples(_output_matrix(outputs, n), None))):
        if inside:
            p = probability(mech, queries, output, dps + 5, "closed")
            value, error = value + p.value, error + p.error
    return _result(value, error, "enumerated outputs, closed", dps)


@_rule.register
def _(mech: ThresholdMechanism, queries, event: Event, dps: int):
    queries = as_queries(queries).expand()
    if len(event.conditions) == 1 and isinstance(event.conditions[0][1], OutputIs):
        return probability(mech, queries, list(event.conditions[0][1].tokens), dps)
    if mech.redraw_threshold:
        return _enumerated(mech, queries, event, dps)
    if all_outputs.applies(mech) and len(queries) <= MAX_SHARED_QUERIES:
        outputs = list(itertools.islice(possible_outputs(mech, len(queries)),
                                        MAX_SUMMED_OUTPUTS + 1))
        if len(outputs) <= MAX_SUMMED_OUTPUTS:
            return _summed_outputs(mech, queries, event, outputs, dps)
    statistics, targets, last = _split_event(event)
    with mpmath.workdps(working_dps(dps, len(queries))):
        programme = _programme(mech, tuple(queries), statistics, last, mpmath.mp.prec)
        scales = [to_mpf(law.scale) for law in (mech.threshold_noise, mech.query_noise)
                  if law.scale > 0]
        log_value, value, error = integrate_hub(
            mech.threshold_noise, lambda z: programme.distribution(z)[targets, True],
            programme.kinks(), min(scales), len(queries), dps)
        if value == 0:
            return Probability.exact_zero(False, dps)
        require_digits(error / value, dps, "event probability")
        return Probability(mpmath.exp(log_value) * value, log_value + mpmath.log(value),
                           mpmath.exp(log_value) * error, "generating polynomial, peak-aware "
                           "tanh-sinh+gauss-legendre", False, dps)


# ----------------------------------------------------------------------------- noisy max, histogram

def _single_condition(event: Event, kinds: tuple):
    if len(event.conditions) != 1:
        raise InputError(f"events of this output have one condition, got {event}")
    name, condition = event.conditions[0]
    component = event.view.component(name)
    if not isinstance(component, kinds):
        raise InputError(f"no exact engine for the event condition {name}{condition}")
    return component, condition


@_rule.register
def _(mech: NoisyMaxMechanism, queries, event: Event, dps: int):
    component, condition = _single_condition(event, (Index, Coordinate))
    if isinstance(component, Index):
        return probability(mech, queries, str(condition.value), dps)
    answers = as_queries(queries)
    with mpmath.workdps(working_dps(dps, len(answers))):
        # Pr[a < max < b] = Π_j F(b − q_j) − Π_j F(a − q_j)
        ends = _ends(condition)[::-1]
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
        return _result(value, error, "closed", dps)


@_rule.register
def _(mech: HistogramMechanism, queries, event: Event, dps: int):
    answers = as_queries(queries).expand()
    with mpmath.workdps(working_dps(dps)):
        value, relative = mpf(1), mpf(0)
        for name, condition in event.conditions:
            component = event.view.component(name)
            if not isinstance(component, Coordinate) or not isinstance(condition, Interval):
                raise InputError(f"no exact engine for the event condition {name}{condition}")
            q = to_mpf(answers[component.position or 0])
            low, high = (end - q for end in _ends(condition))
            value *= mech.noise.interval(low, high)
            # an interval probability is a difference taken without cancellation (NoiseLaw.interval):
            # its relative error is a few roundings of exponentials of arguments up to |x|/b
            ends = [abs(x) for x in (low, high) if mpmath.isfinite(x)]
            relative += 8 * (max(ends, default=mpf(0)) / mech.noise.b + 2) \
                * unit_roundoff()
        return _result(value, value * relative, "closed", dps)


@_rule.register
def _(mech: NoisySum, queries, event: Event, dps: int):
    constraints = {}
    for name, condition in event.conditions:
        component = event.view.component(name)
        if not isinstance(component, Coordinate) or not isinstance(condition, Interval):
            raise InputError(f"no exact engine for the event condition {name}{condition}")
        constraints[component.position] = condition
    return sum_event_probability(mech, queries, constraints, dps, method="estimate")


@_rule.register
def _(mech: Program, queries, event: Event, dps: int):
    return program_event_probability(mech, queries, event, dps)
