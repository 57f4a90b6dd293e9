"""Sparse Vector with a cutoff of 1 on inputs with long runs of equal queries: the largest loss
and ``δ(ε)`` from a few outputs per run, whatever the run's length (docs/mathematics.md §11,
"Runs of equal queries").

Write the inputs as joint runs: a run ``j`` is a stretch of ``m`` queries over which neither
``d1`` nor ``d2`` changes (answers ``a1``, ``a2``), after ``K`` earlier queries.  Its outputs
are ``⊥^{K+k}⊤`` for ``k < m``, with

    p_i(k) = ∫ w_i(z) F(z − s_i)^k S(z − s_i) dz,      s_i = a_i − T,

``w_i`` the threshold noise's density times the ``F`` factors of the ``K`` earlier queries on
input ``i``; the last output is ``⊥ⁿ``.  Over a stretch of a run the probabilities telescope
(``F^k S = F^k − F^{k+1}``):

    Σ_{a ≤ k < b} p_i(k) = A_i(a) − A_i(b),      A_i(k) = Pr_i[the first K + k answers are ⊥],

each ``A_i`` one integral form with the run's factor raised to ``K + k``.  With the threshold
noise's density and the query noise's CDF log-concave, the ratio ``r(k) = p1(k)/p2(k)`` is
monotone in ``k`` on a run whose change ``Δ = a2 − a1`` is at least 0 and at least every
earlier run's change (non-decreasing), or at most 0 and at most every earlier one
(non-increasing) — docs/mathematics.md §11 proves it.  Then

* the largest ``|ln r|`` over the run is at ``k = 0`` or ``k = m − 1``: the largest loss over
  every output is the largest over two outputs per run and ``⊥ⁿ``;
* the outputs with ``p1 > e^ε p2`` form a tail of the run in the order of increasing ``r``: its
  first certain member ``t1`` and the last certain non-member ``t0`` are found by bisection,
  and ``Σ max(0, p1 − e^ε p2)`` over the run lies in ``T + [0, U]``, ``T`` the telescoped sum
  over the tail and ``U = (1 − e^ε/r(t_c))₊ · Σ_{t0 < t < t1} p1(t)``, ``t_c = min(t1, m − 1)``
  (the outputs between are bounded through ``r ≤ r(t_c)``; ``U = 0`` when ``t1 = t0 + 1``).

The cost is ``O(log m)`` integral forms per run and ``ε`` (each form of as many factors as
there are runs), not ``m``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

from flint import arb

from ...errors import InputError, PrecisionError
from ...mechanisms.description import ThresholdMechanism
from ...noise import Kind
from ...precision import (COMBINE_GUARD_DIGITS, PART_GUARD_DIGITS, Enclosure, to_arb,
                          working_bits)
from ...refinement import refine
from ...sequences import Runs, zip_runs
from ..backends.peak_search import first_integer
from ..backends.piece_series import flint_context
from ..form.threshold import build_output_integral
from ..probability import evaluate
from .output_pairs import at_least_zero, ball_of, certified_result, refined

#: Digits of the probabilities the bisection for the tail's start compares (a first guess,
#: confirmed at the digits asked).
GUESS_DIGITS = 8
#: How many times the digits of the parts are doubled before ``δ(ε)`` gives up.
DIGIT_DOUBLINGS = 3
#: The most joint runs taken: each costs ``O(log m)`` integral forms of as many factors as there
#: are runs (16 runs of 250 Gaussian queries: 17 s for the largest loss, 38 s for δ(ε) on the
#: loaded two-core machine).
MAX_RUNS = 100


@dataclass(frozen=True)
class Run:
    """A joint run: ``length`` queries from position ``start`` answering ``a1`` on ``d1`` and
    ``a2`` on ``d2``; ``increasing`` says whether ``p1/p2`` is non-decreasing along it (else
    non-increasing)."""

    start: int
    length: int
    a1: Fraction
    a2: Fraction
    increasing: bool


def runs_apply(mech) -> bool:
    """A ⊤/⊥ Sparse Vector with a cutoff of 1 and a fixed threshold, both noises continuous
    with positive density, CDF and survival function on the whole line (Laplace, Gaussian,
    Gumbel: all log-concave)."""
    if not isinstance(mech, ThresholdMechanism):
        return False
    if (mech.cutoff != 1 or mech.redraw_threshold or mech.releases_numbers
            or mech.threshold_noise is None or mech.query_noise is None):
        return False
    return all(not law.is_point_mass and not law.integer_valued
               and all(law.positive_region(kind) == (None, None) for kind in Kind)
               for law in (mech.threshold_noise, mech.query_noise))


def joint_runs(mech, d1: Runs, d2: Runs) -> list[Run]:
    """The joint runs of ``d1`` and ``d2`` with the direction of ``p1/p2`` along each, or
    :class:`~exactdp.errors.InputError` beyond :data:`MAX_RUNS` runs or naming the first run on
    which it is not proven monotone (module docstring)."""
    runs, start, largest, smallest = [], 0, Fraction(0), Fraction(0)
    segments = list(zip_runs(d1, d2))
    if len(segments) > MAX_RUNS:
        raise InputError(f"{mech.name}: beyond the enumeration's limit the outputs are taken "
                         f"run by run of equal queries, at most {MAX_RUNS} runs, got "
                         f"{len(segments)}")
    for (a1, a2), length in segments:
        change = a2 - a1
        if change >= largest:
            increasing = True
        elif change <= smallest:
            increasing = False
        else:
            raise InputError(
                f"{mech.name}: the loss along the run of {length} queries from position "
                f"{start} ({a1} against {a2}) is not proven monotone: runs are taken whole "
                f"when each changes by at least 0 and at least every earlier change, or by at "
                f"most 0 and at most every earlier one")
        largest, smallest = max(largest, change), min(smallest, change)
        runs.append(Run(start, length, a1, a2, increasing))
        start += length
    return runs


class RunProbabilities:
    """The certified probabilities of one pair's outputs on runs, each integral form evaluated
    once per digits: ``top(side, position)`` is ``Pr[⊥^{position}⊤]``, ``prefix(side,
    position)`` is ``Pr[the first position answers are ⊥]`` (``prefix(side, n)`` is
    ``Pr[⊥ⁿ]``), both as balls."""

    def __init__(self, mech, d1: Runs, d2: Runs):
        self.mech, self.inputs, self.n = mech, (d1, d2), len(d1)
        self.memo: dict = {}

    def top(self, side: int, position: int, digits: int) -> arb:
        """``Pr[⊥^{position}⊤]`` on input ``side`` (0: ``d1``, 1: ``d2``)."""
        output = Runs.from_runs([(False, position), (True, 1)])
        return self._ball(side, self.inputs[side], output, digits, True)

    def prefix(self, side: int, position: int, digits: int) -> arb:
        """``Pr[the first position answers are ⊥]`` on input ``side`` (exactly 1 for none)."""
        if position == 0:
            return arb(1)
        return self._ball(side, self.inputs[side].prefix(position),
                          Runs.from_runs([(False, position)]), digits, False)

    def _ball(self, side: int, queries: Runs, output: Runs, digits: int, top: bool) -> arb:
        key = (side, len(output), top, digits)
        if key not in self.memo:
            form = build_output_integral(self.mech, queries, output)
            result = certified_result(form, evaluate, digits, self.mech.name)
            with flint_context(working_bits(digits, guard=COMBINE_GUARD_DIGITS)):
                self.memo[key] = ball_of(result)
        return self.memo[key]


def run_extremes(mech, d1: Runs, d2: Runs, dps: int) -> list[Runs]:
    """The outputs among which the largest ``|ln(p1/p2)|`` over every output lies: the first
    and last output of each run and ``⊥ⁿ`` (module docstring), the likeliest candidate first
    (:func:`joint_runs` checked)."""
    runs = joint_runs(mech, d1, d2)
    probabilities = RunProbabilities(mech, d1, d2)
    digits = dps + PART_GUARD_DIGITS
    candidates = [(False, len(d1))] + [(True, run.start + k) for run in runs
                                       for k in sorted({0, run.length - 1})]
    with flint_context(working_bits(digits, guard=COMBINE_GUARD_DIGITS)):
        def loss(candidate) -> arb:
            top, position = candidate
            balls = [(probabilities.top if top else probabilities.prefix)(side, position, digits)
                     for side in (0, 1)]
            return abs(balls[0].log() - balls[1].log()).mid()

        ranked = sorted(candidates, key=loss, reverse=True)
    return [Runs.from_runs([(False, position), (True, int(top))]) for top, position in ranked]


def run_profile(mech, d1: Runs, d2: Runs, dps: int) -> Callable[[Fraction], Enclosure]:
    """``ε ↦ δ(ε)`` of ``d1 → d2`` (an :class:`Enclosure` of absolute width ``≤ 10^{−dps}``),
    run by run (module docstring), the probabilities shared by every ``ε``."""
    runs = joint_runs(mech, d1, d2)
    probabilities = RunProbabilities(mech, d1, d2)

    def delta(eps: Fraction) -> Enclosure:
        def attempt(digits: int) -> tuple[bool, Enclosure | PrecisionError]:
            parts = [_run_delta(probabilities, run, eps, digits) for run in runs]
            last = [probabilities.prefix(side, len(d1), digits) for side in (0, 1)]

            def compute() -> arb:
                factor = to_arb(eps).exp()
                total = (last[0] - factor * last[1]).max(arb(0))
                for tail, band in parts:  # a run's Σ max(0, p1 − e^ε p2) is at least 0
                    total += (tail(factor) + band(factor)).max(arb(0))
                return total

            try:
                return True, at_least_zero(refined(compute, dps, f"{mech.name}: δ(ε = {eps})",
                                                   absolute=True))
            except PrecisionError as error:
                return False, error

        start = dps + PART_GUARD_DIGITS
        return refine(attempt, start, start * 2 ** DIGIT_DOUBLINGS,
                      lambda error, digits: str(error))

    return delta


def _run_delta(probabilities: RunProbabilities, run: Run, eps: Fraction, digits: int):
    """``(tail, band)``: functions of ``e^ε`` (a ball) giving the run's ``T`` and ``[0, U]``
    (module docstring), the tail's start ``t1`` and the last certain non-member ``t0`` found in
    the order ``t`` of non-decreasing ``p1/p2`` (``t = k``, or ``m − 1 − k`` on a run along
    which it decreases)."""
    m = run.length

    def position(t: int) -> int:  # the output ⊥^{position}⊤ at order t
        return run.start + (t if run.increasing else m - 1 - t)

    def stretch(low: int, high: int) -> tuple[int, int]:  # orders [low, high) as positions
        if run.increasing:
            return run.start + low, run.start + high
        return run.start + m - high, run.start + m - low

    def excess(t: int, at: int) -> arb:  # p1 − e^ε p2 at order t, to ``at`` digits
        with flint_context(working_bits(at, guard=COMBINE_GUARD_DIGITS)):
            p1, p2 = (probabilities.top(side, position(t), at) for side in (0, 1))
            return p1 - to_arb(eps).exp() * p2

    guess = first_integer(lambda t: excess(t, GUESS_DIGITS).mid() > 0, -1, m)
    certain = {t: excess(t, digits) for t in (guess - 1, guess) if 0 <= t < m}
    if (guess == m or certain[guess] > 0) and (guess == 0 or certain[guess - 1] < 0):
        first_in, last_out = guess, guess - 1
    else:  # signs the guess could not certify: bisect on certain signs at the digits asked
        first_in = first_integer(lambda t: excess(t, digits) > 0, -1, m)
        last_out = first_integer(lambda t: not excess(t, digits) < 0, -1, m) - 1
    low, high = stretch(first_in, m)
    masses = [[probabilities.prefix(side, end, digits) for end in (low, high)] for side in (0, 1)]
    band_low, band_high = stretch(last_out + 1, first_in)
    band_mass = [probabilities.prefix(0, end, digits) for end in (band_low, band_high)]
    cap = min(first_in, m - 1)
    ratio = [probabilities.top(side, position(cap), digits) for side in (0, 1)]

    def tail(factor: arb) -> arb:
        if first_in == m:
            return arb(0)
        return (masses[0][0] - masses[0][1]) - factor * (masses[1][0] - masses[1][1])

    def band(factor: arb) -> arb:
        if first_in == last_out + 1:
            return arb(0)
        shortfall = (1 - factor * ratio[1] / ratio[0]).max(arb(0))
        return arb(0).union(arb((shortfall * (band_mass[0] - band_mass[1])).upper()))

    return tail, band

