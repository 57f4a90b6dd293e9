"""Rényi divergences of a Sparse Vector with a cutoff of 1 beyond the enumeration's limit: the
outputs of each run of equal queries summed block by block by interpolatory rules, their error
bounded through the probabilities' complete monotonicity (docs/mathematics.md §11, "Rényi
divergences" under "Runs of equal queries").

``D_α = log1p(E)/(α − 1)`` with ``E = Σ_o (G(o) − p1(o))``, ``G = p1^α p2^{1−α}`` (every output
``o`` of ``d1``; ``renyi._discrete_divergence``'s form).  The outputs are ``⊥^k⊤`` (``k < n``)
and ``⊥ⁿ``:

* the first ``H`` outputs (``H`` the enumeration's limit) and ``⊥ⁿ`` one by one, as
  enumerated outputs (the mechanism on the first ``H`` queries, whose last output ``⊥^H`` is
  dropped);
* each joint run ``[s, s + m)`` (neither input changes) past ``H``, in local exponents
  ``t = k − s``: ``p_i(t) = ∫ w_i(z) F(z − s_i)^t S(z − s_i) dz`` is, for real ``t ≥ 0``, the
  Laplace transform of a positive measure (``F < 1``); the outputs with ``t`` below
  :data:`FIRST_BLOCK` one by one, the rest in blocks ``{a, …, a + c}`` of about
  :data:`BLOCK_SHARE` ``·a`` outputs, each summed by ``backends/discrete_rules.py``'s rule
  exact for degree ``N`` (its nodes multiples of ``1/``:data:`GRID`), and ``Σ p1`` over the
  blocks telescoped, ``Σ_{t ≥ t0} p1(t) = A1(s + t0) − A1(s + m)``.

The probabilities at the rules' nodes and the bounds' points, a few thousand for a run of 10⁶,
come at once from ``backends/run_positions.py`` (Gaussian noise, :func:`applies`).

*The bound.*  ``G(t) = exp(α Log p1(t) + (1 − α) Log p2(t))`` is analytic where both ``p_i``
have a positive real part.  For ``t = x + iy`` with ``x − |y| ≥ 0``:
``|p_i(t)| ≤ p_i(x)`` (``|F^t| = F^x``) and
``|p_i(t) − p_i(x)| ≤ ∫ w F^x |F^{iy} − 1| S ≤ ∫ w (F^{x−|y|} − F^x) S = p_i(x − |y|) − p_i(x)``
(``|e^{iθ} − 1| ≤ e^{|θ|} − 1``), so ``Re p_i(t) ≥ 2p_i(x) − p_i(x − |y|)``.  On a box
``[x_l, x_r] × [−d, d]`` (``p_i`` decreasing) ``|G| ≤ p1(x_l)^α (2p2(x_r) − p2(x_l − d))^{1−α}``
when ``2p_i(x_r) > p_i(x_l − d)`` for both ``i``; non-integer points move to the integer on the
safe side, and a point past the run's end is bounded below by log-convexity (a Laplace
transform is log-convex): ``p(x) ≥ p(t1)·(p(t1)/p(t0))^{x − t1}`` for ``x > t1 > t0``.  The
:data:`BOXES` boxes cover the block's Bernstein ellipse ``E_ρ``, ``ρ`` the largest with
semi-minor axis ``d`` at most :data:`HEIGHT_SHARE` of the ellipse's left end minus ``d`` (the
share halved where a box's bound fails), and the rule's error is
``discrete_rules.rule_error`` of that ``M``.  ``N`` is the smallest of :data:`ORDERS` whose
error fits the block's share of the tolerance; a block no order fits is halved, one too short
for a rule summed output by output.
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb

from ...errors import InputError, PrecisionError
from ...precision import COMBINE_GUARD_DIGITS, PART_GUARD_DIGITS, Enclosure, to_arb, working_bits
from ...sequences import Runs, zip_runs
from ..backends import run_positions
from ..backends.discrete_rules import discrete_rule, rule_error
from ..backends.piece_series import flint_context
from .output_pairs import at_least_zero, complete_pairs
from .renyi import INFINITE_ORDER, Divergence, log_ball
from .threshold_runs import MAX_RUNS, RunProbabilities, joint_runs

#: Local exponent from which a run's outputs are summed in blocks (one by one below it).
FIRST_BLOCK = 1024
#: A block starting at ``a`` holds about ``a/4`` outputs.
BLOCK_SHARE = Fraction(1, 4)
#: The rules' degrees tried, from the first whose bound would reach the tolerance.
ORDERS = tuple(range(16, 200, 8))
#: Boxes covering a block's ellipse.
BOXES = 12
#: The ellipse's semi-minor axis, as a share of its left end minus it (where the bound of
#: ``|p2|`` away from 0 holds for probabilities decaying like ``t^{−5}``).
HEIGHT_SHARE = 0.12
#: The largest ``ρ`` taken.
MOST_RHO = 64.0
#: Times a block's ellipse is narrowed where the bound of ``|p_i|`` away from 0 fails.
NARROWINGS = 4
#: The rules' nodes are multiples of ``1/GRID`` (the probabilities at non-integer exponents
#: come from ``backends/run_positions.py`` as readily as at integers).
GRID = 64
#: Digits of the probabilities the bounds of ``|G|`` read (a bound needs few).
BOUND_DIGITS = 10
#: Passes over the blocks, each with the tolerance the last one's estimate of ``D_α`` calls for.
PASSES = 3


class _Segment:
    """A joint run ``[start, start + length)`` and the first local exponent ``first`` of its
    outputs not enumerated."""

    def __init__(self, start: int, length: int, first: int):
        self.start, self.length, self.first = start, length, first


def applies(mech) -> bool:
    """Whether the probabilities at the thousands of positions the rules need come at once from
    shared nodes (``backends/run_positions.py``: Gaussian noise); one integral form per
    position (``threshold_runs.RunProbabilities``) would take minutes."""
    return run_positions.applies(mech)


def run_divergence(mech, d1: Runs, d2: Runs, dps: int, head: int) -> Divergence:
    """``D_α(M(d1) ‖ M(d2))`` as ``divergence(α, digits=dps, absolute=False)`` (an
    :class:`Enclosure`; ``renyi.pair_divergence``'s contract), the first ``head`` outputs
    enumerated and every later run summed in blocks (module docstring)."""
    segments, start = [], 0
    for (_, _), length in zip_runs(d1, d2):
        if start + length > head:
            segments.append(_Segment(start, length, max(0, head - start)))
        start += length
    if len(segments) > MAX_RUNS:
        raise InputError(f"{mech.name}: beyond the enumeration's limit the outputs are taken "
                         f"run by run of equal queries, at most {MAX_RUNS} runs, got "
                         f"{len(segments)}")
    parts = _Parts(mech, d1, d2, dps + PART_GUARD_DIGITS, head, segments)

    def divergence(alpha, digits: int = dps, absolute: bool = False) -> Enclosure:
        if alpha == INFINITE_ORDER:
            return parts.largest_log_ratio()
        return parts.divergence(Fraction(alpha), digits, absolute)

    return divergence


class _Parts:
    """The enumerated outputs' balls, the runs' probabilities (memoised), and the sums."""

    def __init__(self, mech, d1: Runs, d2: Runs, digits: int, head: int, segments: list):
        self.mech, self.digits, self.n, self.segments = mech, digits, len(d1), segments
        self.bits = working_bits(digits, guard=COMBINE_GUARD_DIGITS)
        self.probabilities = RunProbabilities(mech, d1, d2)
        pairs = complete_pairs(mech, d1.prefix(head), d2.prefix(head), digits)
        self.head = [(pair.p1, pair.p2) for pair in pairs
                     if not (pair.output is not None and len(pair.output) == head
                             and not any(pair.output))]
        if len(self.head) != len(pairs) - 1:
            raise AssertionError("the enumeration's last output ⊥^H was not found once")
        self.last = tuple(self.probabilities.prefix(side, self.n, digits) for side in (0, 1))
        # (side, position) → ball, to the sums' digits [False] and to BOUND_DIGITS [True]
        self.values: tuple[dict, dict] = ({}, {})
        self.prefix_values: dict = {}   # position → Pr[first answers ⊥] on d1, BOUND_DIGITS
        try:   # p1/p2 monotone along every run: a block's Σ G bounded from its ends
            joint_runs(mech, d1, d2)
            self.monotone = True
        except InputError:
            self.monotone = False

    # -- probabilities --------------------------------------------------------------------
    def top(self, side: int, segment: _Segment, t, rough: bool = False) -> arb:
        """``p_side(t)``: ``Pr[⊥^{s+t}⊤]``, to the digits of the sums, or with ``rough`` to
        :data:`BOUND_DIGITS` (for the bounds: any ball holding it serves)."""
        values = self.values[rough]
        position = segment.start + t
        if (side, position) not in values:
            self.fetch([(segment, t)], rough)
        return values[side, position]

    def fetch(self, points, rough: bool = False) -> None:
        """The probabilities ``Pr[⊥^{s+t}⊤]`` of both inputs at the points ``(segment, t)`` not
        yet known (to :data:`BOUND_DIGITS` with ``rough``), all at once on shared nodes
        (``backends/run_positions.py``)."""
        values = self.values[rough]
        positions = sorted({segment.start + t for segment, t in points}
                           - {position for _, position in values})
        if not positions:
            return
        for side in (0, 1):
            balls = run_positions.probabilities_at(
                self.mech, self.probabilities.inputs[side], positions,
                BOUND_DIGITS if rough else self.digits, prefix=False)
            values.update({(side, position): ball for position, ball in zip(positions, balls)})

    def prefix(self, side: int, position: int) -> arb:
        """``Pr[the first position answers are ⊥]`` on input ``side``, its own certified form."""
        return self.probabilities.prefix(side, position, self.digits)

    def excess(self, p1: arb, p2: arb, step: arb) -> arb:
        """``p1·expm1((α − 1)(ln p1 − ln p2))``: one output's ``G − p1``."""
        return p1 * (step * (log_ball(p1, self.bits) - log_ball(p2, self.bits))).expm1()

    # -- D_α -----------------------------------------------------------------------------
    def divergence(self, alpha: Fraction, digits: int, absolute: bool) -> Enclosure:
        with flint_context(self.bits):
            step = to_arb(alpha - 1)
            known = sum((self.excess(p1, p2, step) for p1, p2 in self.head), arb(0))
            known += self.excess(*self.last, step)
            singles = [(segment, t) for segment in self.segments
                       for t in range(segment.first, min(segment.length,
                                                         max(segment.first, FIRST_BLOCK)))]
            self.fetch(singles)
            for segment, t in singles:
                known += self.excess(self.top(0, segment, t), self.top(1, segment, t), step)
            # the tolerance on E aims at the width asked of D_α, dD = dE/((1 + E)(α − 1)),
            # from the outputs taken one by one (most of E) or else from a first coarse pass
            wanted = arb(10) ** (-digits)
            if absolute or not known > 0:
                tolerance = arb(10) ** (-(digits // 2 + 2))
            else:
                tolerance = wanted * arb(known.lower()).log1p() * (1 + arb(known.mid())) / 8
            for _ in range(PASSES):
                total = known + self.blocks(alpha, tolerance)
                ball = total.log1p() / step
                if absolute or ball.contains(0) or not ball > 0:
                    if ball.rad() <= wanted:
                        return at_least_zero(Enclosure.of_ball(ball))
                    tolerance = wanted * step / 4
                elif ball.rad() <= wanted * ball.mid():
                    return at_least_zero(Enclosure.of_ball(ball))
                else:
                    tolerance = wanted * arb(ball.mid()) * step * (1 + arb(total.mid())) / 4
        raise PrecisionError(f"{self.mech.name}: D_α (α = {alpha}) on {self.n:,} queries: the "
                             f"enclosure {ball.str(5)} did not reach {digits} digits")

    def blocks(self, alpha: Fraction, tolerance: arb) -> arb:
        """``Σ (G − p1)`` over every segment's outputs from :data:`FIRST_BLOCK` on: the blocks'
        rules, each to an equal share of ``tolerance``, minus the telescoped ``Σ p1``.  The
        blocks are planned in rounds, the probabilities each round's bounds need fetched at
        once: a block whose bound of ``|p_i|`` away from 0 fails is narrowed (its ellipse's
        share halved), one no rule reaches is halved, one too short for a rule is summed output
        by output; then every rule's nodes are fetched at once."""
        spans = [(segment, a, b) for segment in self.segments
                 for a, b in _spans(max(segment.first, FIRST_BLOCK), segment.length)]
        if not spans:
            return arb(0)
        pending = [(segment, a, b, 0, tolerance / len(spans)) for segment, a, b in spans]
        planned, singles, slight = [], [], arb(0)   # (segment, a, rule, error); (segment, a, b)
        while pending:
            pending, slight = self.slight_blocks(pending, alpha, slight)
            rhos = [_largest_rho(a, b - 1 - a, HEIGHT_SHARE / 2 ** narrowing)
                    for _, a, b, narrowing, _ in pending]
            self.fetch([(segment, t) for (segment, a, b, _, _), rho in zip(pending, rhos)
                        if rho is not None for t in self.box_points(segment, a, b - 1 - a, rho)],
                       rough=True)
            waiting = []
            for (segment, a, b, narrowing, part), rho in zip(pending, rhos):
                span = b - 1 - a
                modulus = None if rho is None else self.modulus(segment, a, span, rho, alpha)
                if modulus is None and rho is not None and narrowing + 1 < NARROWINGS:
                    waiting.append((segment, a, b, narrowing + 1, part))
                    continue
                rule = None if modulus is None else _first_rule(modulus, rho, span, part,
                                                                self.bits)
                if rule is not None:
                    planned.append((segment, a, rule, rule_error(modulus, to_arb(rho), rule)))
                elif span < 4 * ORDERS[0]:   # too short for a rule that reaches the tolerance
                    singles.append((segment, a, b))
                else:
                    middle = a + (b - a) // 2
                    waiting += [(segment, a, middle, 0, part / 2),
                                (segment, middle, b, 0, part / 2)]
            pending = waiting
        self.fetch([(segment, a + u) for segment, a, rule, _ in planned for u in rule.nodes]
                   + [(segment, t) for segment, a, b in singles for t in range(a, b)])
        total = sum((self.rule_sum(segment, a, rule, alpha) + arb(0, error)
                     for segment, a, rule, error in planned), arb(0))
        total += sum((self.g(segment, t, alpha) for segment, a, b in singles
                      for t in range(a, b)), arb(0)) + slight
        for segment in self.segments:
            first = max(segment.first, FIRST_BLOCK)
            if first < segment.length:
                total -= (self.prefix(0, segment.start + first)
                          - self.prefix(0, segment.start + segment.length))
        return total

    def slight_blocks(self, pending: list, alpha: Fraction, slight: arb) -> tuple[list, arb]:
        """The blocks of ``pending`` whose whole ``Σ G`` is provably within their share of the
        tolerance taken out, their balls ``[0, R^{α−1}·(A1(a) − A1(b))]`` added to ``slight``:
        where ``p1/p2`` is monotone along the run (``threshold_runs.joint_runs``), ``R`` the
        larger of its values at the block's ends bounds it on the block, and
        ``G = p1·r^{α−1} ≤ p1·R^{α−1}``.  (Far out, where the probabilities are negligible,
        the bounds of ``|G|`` may fail on every ellipse; these blocks need none.)"""
        if not self.monotone or not pending:
            return pending, slight
        ends = {(segment, t) for segment, a, b, _, _ in pending for t in (a, b - 1)}
        self.fetch(ends, rough=True)
        self.fetch_prefixes({segment.start + t for segment, a, b, _, _ in pending
                             for t in (a, b)})
        kept = []
        for segment, a, b, narrowing, part in pending:
            ratio = arb(0)
            for t in (a, b - 1):
                ratio = ratio.max(self.top(0, segment, t, True) / self.top(1, segment, t, True))
            mass = (self.prefix_values[segment.start + a]
                    - self.prefix_values[segment.start + b])
            bound = arb((ratio ** to_arb(alpha - 1) * mass).upper())
            if bound <= part:
                slight += arb(0).union(bound)
            else:
                kept.append((segment, a, b, narrowing, part))
        return kept, slight

    def fetch_prefixes(self, positions) -> None:
        """``Pr[the first k answers are ⊥]`` on ``d1`` at the ``positions`` not yet known, to
        :data:`BOUND_DIGITS`, all at once (``backends/run_positions.py``)."""
        positions = sorted(set(positions) - set(self.prefix_values))
        if positions:
            balls = run_positions.probabilities_at(self.mech, self.probabilities.inputs[0],
                                                   positions, BOUND_DIGITS, prefix=True)
            self.prefix_values.update(zip(positions, balls))

    def rule_sum(self, segment: _Segment, a: int, rule, alpha: Fraction) -> arb:
        """``rule``'s sum of ``G`` over the block from ``a`` (its error not included)."""
        return sum((w * self.g(segment, a + u, alpha) for u, w in zip(rule.nodes, rule.weights)),
                   arb(0))

    def g(self, segment: _Segment, t: int, alpha: Fraction) -> arb:
        """``G(t) = p1(t)^α p2(t)^{1−α}``."""
        p1, p2 = self.top(0, segment, t), self.top(1, segment, t)
        return (to_arb(alpha) * log_ball(p1, self.bits)
                + to_arb(1 - alpha) * log_ball(p2, self.bits)).exp()

    def box_points(self, segment: _Segment, a: int, span: int, rho: Fraction) -> list[int]:
        """The local exponents at which :meth:`modulus` reads the probabilities."""
        last, points = segment.length - 1, set()
        for left, right, below in _boxes(a, span, rho):
            points |= {*_upper_points(left, below, last), *_lower_points(right, last)}
        return sorted(point for point in points if point >= 0)

    def modulus(self, segment: _Segment, a: int, span: int, rho: Fraction,
                alpha: Fraction) -> arb | None:
        """An upper bound on ``|G|`` over the block's ellipse ``E_ρ`` (module docstring), or
        ``None`` where the bound of ``|p_i|`` away from 0 fails on a box."""
        largest, last = arb(0), segment.length - 1
        for left, right, below in _boxes(a, span, rho):
            if below < 0:
                return None
            ends, (at_below, at_left) = [], _upper_points(left, below, last)
            for side in (0, 1):
                high = self.top(side, segment, at_below, True)          # ≥ p(x − |y|)
                low = self.lower_at(side, segment, right)               # ≤ p(x)
                real_part = 2 * low - high
                if not real_part > 0:
                    return None
                ends.append((self.top(side, segment, at_left, True), real_part))
            (upper1, _), (_, lower2) = ends
            bound = (to_arb(alpha) * upper1.log() + to_arb(1 - alpha) * lower2.log()).exp()
            largest = largest.max(arb(bound.upper()))
        return arb(largest.upper())

    def lower_at(self, side: int, segment: _Segment, x: Fraction) -> arb:
        """A ball below ``p_side(x)`` for real ``x ≥ 0``: ``p(⌈x⌉)`` inside the run, else
        log-convex extrapolation from its last two outputs."""
        last = segment.length - 1
        points = _lower_points(x, last)
        if len(points) == 1:
            return self.top(side, segment, points[0], True)
        if last < 1:
            raise PrecisionError(f"{self.mech.name}: a run of one query past the enumeration")
        p0, p1 = (self.top(side, segment, point, True) for point in points)
        return p1 * (to_arb(x - last) * (p1.log() - p0.log())).exp()

    # -- D_∞ -----------------------------------------------------------------------------
    def largest_log_ratio(self) -> Enclosure:
        """``max ln(p1/p2)``: over the enumerated outputs, ``⊥ⁿ`` and the two ends of each run
        past them (``p1/p2`` is monotone along a joint run, ``threshold_runs.joint_runs``)."""
        joint_runs(self.mech, *self.probabilities.inputs)   # refuses a run not proven monotone
        with flint_context(self.bits):
            candidates = list(self.head) + [self.last]
            for segment in self.segments:
                for t in sorted({segment.first, segment.length - 1}):
                    candidates.append((self.top(0, segment, t), self.top(1, segment, t)))
            largest = None
            for p1, p2 in candidates:
                ratio = log_ball(p1, self.bits) - log_ball(p2, self.bits)
                largest = ratio if largest is None else largest.max(ratio)
            return Enclosure.of_ball(largest)


def _largest_rho(a: int, span: int, share: float) -> Fraction | None:
    """The largest ``ρ ≤`` :data:`MOST_RHO` (a rational, found in doubles and rounded down)
    whose ellipse over ``[a, a + span]`` has semi-minor axis ``d ≤ share·(x − d)``, ``x`` its
    left end; ``None`` below ``ρ = 1.05``."""
    half = span / 2

    def fits(rho: float) -> bool:
        reach, height = half * (rho + 1 / rho) / 2, half * (rho - 1 / rho) / 2
        return height <= share * (a + half - reach - height)

    low, high = 1.0, MOST_RHO
    if fits(high):
        return Fraction(high)
    for _ in range(60):
        middle = (low + high) / 2
        low, high = (middle, high) if fits(middle) else (low, middle)
    if low < 1.05:
        return None
    return Fraction(math.floor(low * 1024), 1024)


def _orders_from(modulus: arb, rho: Fraction, span: int, tolerance: arb) -> tuple:
    """The orders of :data:`ORDERS` from the first whose error bound, with ``W ≈ span + 1``,
    would reach ``tolerance`` (``discrete_rules.rule_error``), in balls (a modulus may lie far
    below the doubles' range)."""
    ratio = 4 * modulus * (span + 1) / ((1 - 1 / to_arb(rho)) * tolerance)
    wanted = ratio.log() / to_arb(rho).log() - 1
    if not wanted.is_finite():
        return ORDERS
    return tuple(order for order in ORDERS if order >= wanted.mid()) or ORDERS[-1:]


def _spans(first: int, end: int) -> list[tuple[int, int]]:
    """The blocks ``[a, b)`` from ``first`` to ``end``, each of about ``a·BLOCK_SHARE``."""
    spans, a = [], first
    while a < end:
        b = min(end, a + max(1, math.ceil(a * BLOCK_SHARE)))
        spans.append((a, b))
        a = b
    return spans


def _boxes(a: int, span: int, rho: Fraction) -> list[tuple[Fraction, Fraction, Fraction]]:
    """``(x_l, x_r, x_l − d_box)`` of the :data:`BOXES` boxes ``[x_l, x_r] × [−d_box, d_box]``
    covering the Bernstein ellipse ``E_ρ`` of ``[a, a + span]``: ``d_box`` (rounded up) the
    ellipse's largest half-height over ``[x_l, x_r]``, ``d·√(1 − (δ/R)²)`` with ``δ`` the
    distance from the box to the centre (0 for the box holding it), ``R`` and ``d`` the
    semi-axes."""
    half = Fraction(span, 2)
    centre = a + half
    reach, height = half * (rho + 1 / rho) / 2, half * (rho - 1 / rho) / 2
    ends = [centre - reach + 2 * reach * Fraction(box, BOXES) for box in range(BOXES + 1)]
    boxes = []
    for left, right in zip(ends, ends[1:]):
        distance = max(Fraction(0), left - centre, centre - right)
        share = 1 - (distance / reach) ** 2
        root = Fraction(min(1.0, math.sqrt(float(share)) * (1 + 2 ** -40)))  # ≥ √share
        boxes.append((left, right, left - height * root))
    return boxes


def _upper_points(left: Fraction, below: Fraction, last: int) -> tuple[int, int]:
    """``(⌊x_l − d⌋, ⌊x_l⌋)``, each at most the run's last exponent: ``p`` decreasing, their
    probabilities lie above ``p(x − |y|)`` and ``p(x)`` on the box ``[x_l, x_r] × [−d, d]``."""
    return min(math.floor(below), last), min(math.floor(left), last)


def _lower_points(right: Fraction, last: int) -> tuple[int, ...]:
    """``(⌈x_r⌉,)`` whose probability lies below ``p(x_r)`` inside the run, else the run's last
    two exponents, from which :meth:`_Parts.lower_at` extrapolates."""
    return (math.ceil(right),) if math.ceil(right) <= last else (last - 1, last)


def _first_rule(modulus: arb, rho: Fraction, span: int, tolerance: arb, bits: int):
    """The rule of the first order (:func:`_orders_from`) whose error bound is at most
    ``tolerance``, or ``None`` (none does, or the span is too short for its nodes)."""
    for order in _orders_from(modulus, rho, span, tolerance):
        try:
            rule = discrete_rule(span, order, bits, GRID)
        except ValueError:
            return None
        if rule_error(modulus, to_arb(rho), rule) <= tolerance:
            return rule
    return None
