"""Exact event probabilities of the Sparse Vector family (``exact/event_probability/rules.py``'s
rule for
:class:`~exactdp.mechanisms.description.ThresholdMechanism`).

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
(``exactdp.exact.event_probability.quadrature``): ``G_E`` is a sum of log-concave products, not
log-concave
itself, so the mass is located by a scan and bounded beyond the cut by ``G_E ≤ 1``.  When the
mechanism has few outputs (at most ``MAX_SUMMED_OUTPUTS``, as with a cutoff c = 1: n + 1 of them)
and Laplace or exponential noise, the event is instead the finite sum ``Σ_{a ∈ E} Pr[a]`` of its
outputs' closed forms, all evaluated in one walk of the tree of outputs in ball arithmetic
(``exactdp.exact.backends.output_tree``): a rigorous enclosure, in milliseconds.  A threshold
redrawn
after each ⊤ (Lyu Alg. 2) breaks the conditional independence: those events are summed over the
enumerated outputs instead (at most ``MAX_ENUMERATED_QUERIES`` queries).

Certified: ``G_E`` on complex balls piece by piece, integrated by ``acb.integral`` with the
tails bounded by ``G_E ≤ 1`` (``event_quadrature.integrate_hub_certified``; docs/engine.md,
"Certified events").
"""

from __future__ import annotations

import functools
import itertools
from collections import defaultdict
from fractions import Fraction
from typing import NamedTuple

import mpmath
from flint import acb, arb
from mpmath import mpf

from ...errors import InputError, MethodUnavailableError, PrecisionError
from ...events import Additive, Equals, Event, Interval, IsBottom, LastEntry, OutputIs
from ...mechanisms.description import Release, ThresholdMechanism
from ...noise import Kind
from ...precision import (CertifiedProbability, Probability, digits_of_bits, require_digits, to_arb,
                         to_mpf, working_bits, working_dps)
from ...sampled_outputs import Samples
from ...sequences import as_queries
from ..backends import output_tree
from ..backends.certified import log_form
from .quadrature import integrate_hub, integrate_hub_certified, locate_mass
from .rules import certified_event, estimated_event, event_ends, event_rule
from ..form.integral_form import interior_point
from ..form.threshold import build_output_integral
from ..losses.privacy_loss import MAX_ENUMERATED_QUERIES, MAX_WALKED_QUERIES, possible_outputs
from ..backends.piece_series import flint_context
from ..probability import evaluate, probability


def _log_of_sum(balls, method: str):
    """``(log Σ balls, [method])``, ``(None, …)`` when the sum is an exact zero."""
    total = sum(balls, arb(0))
    if total.is_exact() and total == 0:
        return None, [method]
    return total.log(), [method]


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
    :meth:`on_piece` gives the same programme in complex balls on one piece between kinks.
    """

    def __init__(self, mech: ThresholdMechanism, queries: tuple, statistics: tuple, last):
        self.mech, self.statistics, self.last = mech, statistics, last
        self.queries = tuple(Fraction(q) for q in queries)
        self.answers = [to_mpf(q) for q in queries]
        self.threshold = to_mpf(mech.threshold)
        self.noise = mech.query_noise
        self.memo: dict = {}

    def kinks(self) -> list[Fraction]:
        """Where the integrand is not smooth (exact): ``0``, ``q_i − T``, the interval ends
        ``a − T`` and, for released gaps, ``q_i − T − max(a, 0)`` and ``q_i − T − b``."""
        threshold = self.mech.threshold
        points = {Fraction(0)} | {q - threshold for q in self.queries}
        if isinstance(self.last, Interval):
            ends = [x for x in (self.last.low, self.last.high) if x is not None]
            points |= {Fraction(x) - threshold for x in ends}
            if self.mech.release is Release.GAP:
                points |= {q - threshold - max(Fraction(x), 0) for q in self.queries
                           for x in ends}
        return sorted(points)

    def _top(self, q: mpf, z: mpf) -> tuple[mpf, mpf]:
        """(Pr[⊤ | z], Pr[⊤ and the entry satisfies the last-entry interval | z])."""
        x = self.threshold + z - q
        top = mpmath.exp(self.noise.logsf(x))
        if not isinstance(self.last, Interval):
            return top, top
        low, high = event_ends(self.last)
        if self.mech.release is Release.NOISY_VALUE:  # v = q + ν ≥ T + z
            return top, self.noise.interval(max(low, self.threshold + z) - q, high - q)
        if self.mech.release is Release.FRESH_VALUE:  # a fresh value q + fresh noise
            return top, top * self.mech.release_noise.interval(low - q, high - q)
        if self.mech.release is Release.GAP:  # g = q + ν − (T + z) ≥ 0
            return top, self.noise.interval(max(low, 0) + x, high + x)
        raise MethodUnavailableError(f"no exact engine for last-entry events of {self.mech.name}")

    def _bottom(self, q: mpf, z: mpf) -> mpf:
        return mpmath.exp(self.noise.logcdf(self.threshold + z - q))

    def _ball_laws(self, middle: Fraction) -> dict:
        """``{q: (top, inside, bottom)}`` as functions of a complex ball ``z`` on the piece
        containing ``middle`` (the ball forms of :meth:`_top` and :meth:`_bottom`; each a
        function or an exact ``0``/``1`` where it is constant)."""
        noise, laws = self.noise, {}
        for q in set(self.queries):
            shift = self.mech.threshold - q  # x = T + z − q = z + shift
            x = _Argument(middle + shift, shift)
            top = _ball_function(noise, Kind.SF, x)
            inside = top
            if isinstance(self.last, Interval):
                low, high = self.last.low, self.last.high
                high_end = None if high is None else _Argument(Fraction(high) - q)
                if self.mech.release is Release.NOISY_VALUE:
                    moving = low is None or Fraction(low) - q < x.middle
                    inside = _ball_interval(noise, x if moving else _Argument(Fraction(low) - q),
                                            high_end)
                elif self.mech.release is Release.FRESH_VALUE:
                    release = _ball_interval(
                        self.mech.release_noise,
                        None if low is None else _Argument(Fraction(low) - q), high_end)
                    inside = _product(top, release)
                elif self.mech.release is Release.GAP:
                    inside = _ball_interval(
                        noise, x.moved(max(Fraction(0 if low is None else low), 0)),
                        None if high is None else x.moved(Fraction(high)))
                else:
                    raise MethodUnavailableError(
                        f"no exact engine for last-entry events of {self.mech.name}")
            laws[q] = (top, inside, _ball_function(noise, Kind.CDF, x))
        return laws

    def on_piece(self, targets: tuple, middle: Fraction):
        """``z ↦ G_E(z)`` on complex balls on the piece containing ``middle``, or ``None``
        where it vanishes identically (decided exactly: the programme at ``middle`` is an exact
        zero, which only the exact zeros of the laws' pieces produce)."""
        laws = self._ball_laws(middle)

        def conditional(z):
            values = {}
            for q, (top, inside, bottom) in laws.items():
                top_value = top(z) if callable(top) else top
                values[q] = (top_value,
                             top_value if inside is top else inside(z) if callable(inside)
                             else inside, bottom(z) if callable(bottom) else bottom)
            return self.run(values, self.queries).get((targets, True), 0)
        at_middle = conditional(acb(to_arb(middle)))
        if isinstance(at_middle, int) or (at_middle.is_exact() and at_middle == 0):
            return None if at_middle == 0 else conditional
        return conditional

    def _flag(self, bottom: bool, inside: bool):
        if self.last is None:
            return None
        return bottom if isinstance(self.last, IsBottom) else inside and not bottom

    def _add(self, states, tops, flag, counts, position, answer, weight):
        key = (tops, flag, tuple(c + w[position][answer] for c, w in zip(counts, self.statistics)))
        states[key] += weight

    def run(self, laws: dict, answers) -> dict:
        """The programme given ``laws = {q: (Pr[⊤], Pr[⊤ in the event], Pr[⊥])}`` (numbers of
        one kind: mpf or balls): ``{(statistics, last entry in the event?): probability}``."""
        cutoff = self.mech.cutoff
        states = {(0, None, (0,) * len(self.statistics)): 1}
        for i, q in enumerate(answers):
            top, inside, bottom = laws[q]
            new = defaultdict(int)
            for (tops, flag, counts), p in states.items():
                if cutoff is not None and tops == cutoff:  # stopped: the entry is absent
                    self._add(new, tops, flag, counts, i, 2, p)
                    continue
                self._add(new, tops, self._flag(True, False), counts, i, 1, p * bottom)
                self._add(new, tops + 1, self._flag(False, True), counts, i, 0, p * inside)
                if inside is not top:
                    self._add(new, tops + 1, self._flag(False, False), counts, i, 0,
                              p * (top - inside))
            states = new
        law = defaultdict(int)
        for (_, flag, counts), p in states.items():
            law[counts, flag in (None, True)] += p
        return law

    def distribution(self, z: mpf) -> dict:
        """``{(statistics, last entry in the event?): Pr[· | ρ = z]}`` (memoised)."""
        if z not in self.memo:
            laws = {q: self._top(q, z) + (self._bottom(q, z),) for q in set(self.answers)}
            self.memo[z] = self.run(laws, self.answers)
        return self.memo[z]


class _Argument(NamedTuple):
    """The argument ``x = z + shift`` of a law on one piece (``shift=None``: the constant
    ``x = middle``), ``middle`` its exact value at the piece's middle."""

    middle: Fraction
    shift: Fraction | None = None

    def moved(self, by: Fraction) -> "_Argument":
        return _Argument(self.middle + by, None if self.shift is None else self.shift + by)


def _ball_function(law, kind: Kind, x: _Argument):
    """``g(x)`` for ``g`` the CDF or survival function of ``law``, on the piece containing
    ``x.middle``: a function of a complex ball ``z`` (the entire ``value`` of
    ``NoiseLaw.ball_log`` on that side of the law's kink), a constant ball when ``x`` does not
    move with ``z``, or an exact ``0``/``1`` where ``g`` is constant."""
    if law.is_point_mass:
        low, high = law.positive_region(kind)
        return int((low is None or x.middle > low) and (high is None or x.middle < high))
    functions = law.ball_log(kind, law.side(x.middle))
    if functions is None:  # the function vanishes on this piece
        return 0
    value = functions.value
    if x.shift is None:
        return acb(value(to_arb(x.middle)))
    shift = acb(to_arb(x.shift))
    return lambda z: value(z + shift)


def _ball_interval(law, low: _Argument | None, high: _Argument | None):
    """``Pr[low < η < high]`` (``None``: an infinite end) as :func:`_ball_function` gives
    values, in the law's form :meth:`~exactdp.noise.NoiseLaw.interval_as_difference`."""
    form = law.interval_as_difference(low, high, lambda end: end.middle)
    if form is None:
        return 0
    kind, big_end, small_end = form
    big = 1 if big_end is None else _ball_function(law, kind, big_end)
    small = 0 if small_end is None else _ball_function(law, kind, small_end)
    return _difference(big, small)


def _difference(big, small):
    """``big − small`` of two values of :func:`_ball_function` (functions or constants)."""
    if not callable(big) and not callable(small):
        return big - small
    return lambda z: (big(z) if callable(big) else big) - (small(z) if callable(small) else small)


def _product(first, second):
    """``first · second`` of two values of :func:`_ball_function`."""
    if not callable(first) and not callable(second):
        return first * second
    return lambda z: (first(z) if callable(first) else first) * \
        (second(z) if callable(second) else second)


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


def _outputs_in(event: Event, outputs: list, n: int) -> list:
    """The outputs (tuples) that lie in ``event``."""
    inside = event.mask(Samples.of_outputs(outputs, n))
    return [tuple(output) for output, keep in zip(outputs, inside) if keep]


def _summed_outputs(mech: ThresholdMechanism, queries: list, event: Event, outputs: list,
                    dps: int, certified: bool) -> Probability:
    """Σ over the outputs in the event of their probabilities, all computed in one walk of the
    tree of outputs in ball arithmetic (``output_tree.py``): the sum of the balls encloses the
    event's probability."""
    wanted = _outputs_in(event, outputs, len(queries))
    method = "outputs summed, closed form"

    def compute(goal):
        balls = output_tree.all_output_probabilities(mech, queries, wanted, digits_of_bits(goal))
        return _log_of_sum((balls[output] for output in wanted), method)
    if certified:
        return certified_event(compute, _magnitude(mech, queries), dps)
    balls = output_tree.all_output_probabilities(mech, queries, wanted, dps)
    with flint_context(working_bits(dps, len(queries))):
        total = sum((balls[output] for output in wanted), arb(0))
        with mpmath.workdps(working_dps(dps, len(queries))):
            return estimated_event(mpf(total.mid()._mpf_), mpf(total.rad()._mpf_), method, dps)


def _enumerated(mech: ThresholdMechanism, queries: list, event: Event, dps: int,
                certified: bool) -> Probability:
    """Σ ``probability`` over every output in the event (threshold redrawn after each ⊤, or
    discrete noise); certified: the sum of the outputs' enclosures (``certified.log_form``)."""
    n = len(queries)
    if n > MAX_ENUMERATED_QUERIES or mech.releases_numbers:
        why = "redraws its threshold" if mech.redraw_threshold else "has discrete noise"
        raise MethodUnavailableError(
            f"{mech.name} {why}: its events are summed over the enumerated ⊤/⊥ outputs, "
            f"which needs at most {MAX_ENUMERATED_QUERIES} queries, got {n}")
    wanted = _outputs_in(event, list(possible_outputs(mech, n)), n)
    if certified:
        forms = [build_output_integral(mech, queries, list(output)) for output in wanted]

        def compute(goal):
            logs = [log_form(form, goal)[0] for form in forms]
            return _log_of_sum((log.exp() for log in logs if log is not None),
                               "enumerated outputs")
        return certified_event(compute, _magnitude(mech, queries), dps)
    value, error = mpf(0), mpf(0)
    for output in wanted:
        p = evaluate(build_output_integral(mech, queries, list(output)), dps + 5, "closed")
        value, error = value + p.value, error + p.error
    return estimated_event(value, error, "enumerated outputs, closed", dps)


def _magnitude(mech: ThresholdMechanism, queries: list) -> Fraction:
    """The size of the logs an event's evaluation sums: ``Σ_i (1 + |q_i − T|/b)``."""
    scale = mech.query_noise.scale or mech.threshold_noise.scale
    return sum((1 + abs(Fraction(q) - mech.threshold) / scale for q in queries), Fraction(1))


@event_rule.register
def _(mech: ThresholdMechanism, queries, event: Event, dps: int, certified: bool):
    queries = as_queries(queries).expand()
    if len(event.conditions) == 1 and isinstance(event.conditions[0][1], OutputIs):
        return probability(mech, queries, list(event.conditions[0][1].tokens), dps,
                           "certified" if certified else "estimate")
    if mech.redraw_threshold or mech.law.integer_valued:  # the generating polynomial
        return _enumerated(mech, queries, event, dps, certified)  # integrates a continuous hub
    if output_tree.applies(mech) and len(queries) <= MAX_WALKED_QUERIES:
        outputs = list(itertools.islice(possible_outputs(mech, len(queries)),
                                        MAX_SUMMED_OUTPUTS + 1))
        if len(outputs) <= MAX_SUMMED_OUTPUTS:
            return _summed_outputs(mech, queries, event, outputs, dps, certified)
    statistics, targets, last = _split_event(event)
    if certified:
        return _generating_polynomial_certified(mech, queries, statistics, targets, last, dps)
    with mpmath.workdps(working_dps(dps, len(queries))):
        programme = _programme(mech, tuple(queries), statistics, last, mpmath.mp.prec)
        log_value, value, error = integrate_hub(
            mech.threshold_noise, lambda z: programme.distribution(z)[targets, True],
            [to_mpf(k) for k in programme.kinks()], _smallest_scale(mech), len(queries), dps)
        if value == 0:
            return Probability.exact_zero(False, dps)
        require_digits(error / value, dps, "event probability")
        return Probability(mpmath.exp(log_value) * value, log_value + mpmath.log(value),
                           mpmath.exp(log_value) * error, "generating polynomial, peak-aware "
                           "tanh-sinh+gauss-legendre", False, dps)


def _smallest_scale(mech: ThresholdMechanism) -> mpf:
    return to_mpf(min(law.scale for law in (mech.threshold_noise, mech.query_noise)
                      if law.scale > 0))


def _generating_polynomial_certified(mech: ThresholdMechanism, queries: list, statistics: tuple,
                                     targets: tuple, last, dps: int) -> CertifiedProbability:
    """``∫ p_ρ(z) G_E(z) dz`` enclosed in balls (``event_quadrature.integrate_hub_certified``):
    ``G_E`` in complex balls on each piece between kinks (:meth:`_Programme.on_piece`), the
    breakpoints and the scale factored out from the estimate's scan at low precision.  An
    exact zero when ``G_E`` or the hub's density vanishes identically on every piece."""
    hub = mech.threshold_noise
    with mpmath.workdps(working_dps(10, len(queries))):
        programme = _programme(mech, tuple(queries), statistics, last, mpmath.mp.prec)
        kinks = programme.kinks()
        edges = [None, *kinks, None]
        if all(not _hub_positive(hub, interior_point(a, b))
               or programme.on_piece(targets, interior_point(a, b)) is None
               for a, b in zip(edges, edges[1:])):
            return CertifiedProbability.exact_zero(False, dps)
        located = locate_mass(hub, lambda z: programme.distribution(z)[targets, True],
                              [to_mpf(k) for k in kinks], _smallest_scale(mech), dps)
        if located is None:
            raise PrecisionError("event probability: the scan found no mass at "
                                 f"{mpmath.mp.dps} digits although the event is possible")
        peak_value, scanned = located
        points = sorted({Fraction(float(p)) for p in scanned})
        points = sorted(set(points) | {k for k in kinks if points[0] < k < points[-1]})
        log_scale = arb(float(peak_value))
    size = Fraction(min(law.scale for law in (hub, mech.query_noise) if law.scale > 0)) / 4

    def compute(goal):
        total = integrate_hub_certified(hub, lambda middle: programme.on_piece(targets, middle),
                                        points, log_scale, goal, size)
        return log_scale + total.log(), ["generating polynomial, acb.integral"]
    return certified_event(compute, _magnitude(mech, queries), dps)


def _hub_positive(hub, middle: Fraction) -> bool:
    """Whether the hub's density is positive on the piece containing ``middle``."""
    low, high = hub.positive_region(Kind.PDF)
    return (low is None or middle > low) and (high is None or middle < high)
