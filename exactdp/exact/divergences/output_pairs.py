"""The output distributions a divergence compares: every output's probability on one input as
Arb balls (discrete outputs, :func:`output_probabilities`), paired over ``d1`` and ``d2``, or the
location shift of one law (one released number ``q + η``).

Privacy profiles (``divergences/profile.py``) and Rényi divergences (``divergences/renyi.py``) are
functionals of the pair of distributions ``(M(d1), M(d2))``; this module produces that pair once,
whatever the functional, and ``exactdp verify`` the distribution of every input of a domain, once
per input, through the engine: the ⊤/⊥ outputs of ``max_privacy_loss``'s enumeration
(``loss.enumerated_outputs``, all at once by ``loss.all_output_balls`` where they can be, else one
certified probability per output), noisy max's indices (``form/noisy_max.py`` registers them), the
return values of a traced program (``programs/exact.py`` registers its own), and for a program
releasing ``q + η`` with ``η`` Laplace, Gaussian or discrete Gaussian, or a histogram of such
noise (``form/histogram.py``), the :class:`LocationShift` ``(law, μ1, μ2)``.
"""

from __future__ import annotations

import contextlib
import contextvars
import functools
from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Callable, NamedTuple

import mpmath
from flint import arb

from ...discrete_gaussian_law import DiscreteGaussian
from ...errors import MethodUnavailableError, PrecisionError
from ...noise import Gaussian, Laplace, NoiseLaw
from ...precision import (COMBINE_GUARD_DIGITS, CertifiedProbability, Enclosure, ball_between,
                          working_bits)
from ...progress import START_DELAY, Progress
from ...refinement import refine
from ...sequences import Runs
from ..backends.certified import shared_integrals
from ..backends.piece_series import flint_context

@dataclass(frozen=True)
class LocationShift:
    """``M(d) = μ_d + η`` with ``η ~ law`` (Laplace or Gaussian, both symmetric): the output
    released on ``d1`` and ``d2`` (exact rationals ``mu1``, ``mu2``) in the entry ``out{entry}``
    of the output; ``output1`` is the output of ``d1`` without noise (``μ1`` in that entry),
    where the density of ``M(d1)`` peaks."""

    law: NoiseLaw
    mu1: Fraction
    mu2: Fraction
    entry: int
    output1: Runs

    @property
    def distance(self) -> Fraction:
        """``|μ1 − μ2|``: a symmetric law makes every divergence depend on it alone."""
        return abs(self.mu1 - self.mu2)


def location_shift_of(law: NoiseLaw, mu1: Fraction, mu2: Fraction, entry: int, output1: Runs,
                      what: str) -> LocationShift:
    """The :class:`LocationShift`, or :class:`~exactdp.errors.MethodUnavailableError` for a law
    other than Laplace, Gaussian and discrete Gaussian (``what`` names the mechanism)."""
    if not isinstance(law, (Laplace, Gaussian, DiscreteGaussian)):
        raise MethodUnavailableError(f"{what} releases a number with {law} noise: divergences of "
                                     f"released numbers need Laplace, Gaussian or discrete "
                                     f"Gaussian noise")
    return LocationShift(law, mu1, mu2, entry, output1)


@functools.singledispatch
def location_shift(mech, d1: Runs, d2: Runs) -> LocationShift | None:
    """The :class:`LocationShift` when ``mech`` releases one number ``q + η``, ``None`` when its
    outputs are discrete (a generic function: histograms, in ``form/histogram.py``, and programs
    register their own)."""
    return None


@functools.singledispatch
def density_supremum(mech) -> Callable | None:
    """The certified ``D_∞`` of a released number whose family computes it by its own rule, as
    ``supremum(mech, d1, d2, dps)`` returning an object with ``divergence`` (an
    :class:`Enclosure`), ``output`` (the value that attains it, or ``None``) and ``approached``
    (where it is approached otherwise); ``None`` for every other mechanism.  A generic function:
    noisy max releasing its largest value registers ``value_supremum.value_supremum``."""
    return None


def ball_of(result: CertifiedProbability) -> arb:
    """The enclosure of a certified probability as one ball (an exact zero stays exact)."""
    if result.is_zero:
        return arb(0)
    return ball_between(result.lower, result.upper)


#: ``(digits, {form: certified probability})`` of :func:`known_results` (none outside it).
_KNOWN: contextvars.ContextVar[tuple[int, dict]] = contextvars.ContextVar("known_results",
                                                                          default=(0, {}))


@contextlib.contextmanager
def known_results(results: dict, digits: int):
    """Within the block, :func:`certified_result` takes the probability of a form of
    ``results`` (``{form: CertifiedProbability}``, each certified to ``digits`` digits) from
    there when it is asked for at most ``digits`` digits: a caller that evaluated the forms
    already (``exactdp verify``, before certifying one pair) has them evaluated once."""
    token = _KNOWN.set((digits, results))
    try:
        yield
    finally:
        _KNOWN.reset(token)


def known_digits() -> int:
    """The digits of the probabilities :func:`known_results` holds (0 outside it, or where it
    holds none)."""
    digits, known = _KNOWN.get()
    return digits if known else 0


def certified_result(form, evaluator: Callable, dps: int, name: str) -> CertifiedProbability:
    """The certified probability of one output, ``evaluator(form, dps, "certified", …)``
    (:func:`~.probability.evaluate` of an integral form, or a program's ``evaluate_signed``), at
    flint's precision for ``dps`` digits, or one certified to at least ``dps`` digits
    already (:func:`known_results`); a law without a certified rule gives
    :class:`~exactdp.errors.MethodUnavailableError` (``name``: the mechanism)."""
    digits, known = _KNOWN.get()
    if dps <= digits and form in known:
        return known[form]
    with flint_context(working_bits(dps, guard=COMBINE_GUARD_DIGITS)):
        result = evaluator(form, dps, "certified", f"{name}: probability of an output")
    if not isinstance(result, CertifiedProbability):
        raise MethodUnavailableError(f"{name}: no certified enclosure of an output's probability")
    return result


@functools.singledispatch
def output_probabilities(mech, d: Runs, dps: int,
                         collector: "FormCollector | None" = None) -> dict:
    """``{a: Pr[M(d) = a]}`` over every output ``a`` of the input ``d`` (its key: a tuple of
    the output's entries), as balls of relative width ``≤ 10^{−dps}`` (exact zeros exact), at
    flint's precision for ``dps`` digits.  A generic function on the mechanism's type, each
    family registering its outputs from its own module: ⊤/⊥ mechanisms
    (``form/threshold_rules.py``) the outputs of ``max_privacy_loss``'s enumeration, all at
    once where they can be (``privacy_loss.all_output_balls``), else each output's certified
    probability; noisy max releasing an index (``form/noisy_max.py``) each index's, in order;
    programs (``exactdp.programs.exact``) their return values.  ``dps`` carries the caller's
    guard digits: the integral forms are evaluated directly (:func:`~.probability.evaluate`),
    not through :func:`~.probability.probability`, which accepts only the digits a caller may
    ask for.

    ``collector`` (a :class:`FormCollector`) serves a caller that asks for many inputs and
    evaluates each distinct integral form once, across worker processes (``exactdp verify``):
    inputs that differ only in the order of answers a factor groups share most of their forms.
    The outputs whose probability is an integral form of its own are then not evaluated: their
    values are the positions of their forms in ``collector.forms`` (:func:`certified_balls`).
    That caller reports its own progress; without ``collector`` a computation longer than
    :data:`~exactdp.progress.START_DELAY` seconds reports its own on a terminal."""
    raise MethodUnavailableError(f"{mech.name}: divergences are computed for ⊤/⊥ outputs, "
                                 f"noisy max's index, a program's discrete return values, "
                                 f"one released number q + η (Laplace, Gaussian) and "
                                 f"Laplace histograms differing in one bin")


class FormCollector:
    """The distinct integral forms of the outputs of many inputs, collected instead of evaluated
    (:func:`output_probabilities`' ``collector``), each once with the function that evaluates
    it: ``forms`` lists the pairs ``(form, evaluator)`` in the order they were first met, for
    :func:`certified_result`; ``inputs`` is how many inputs the caller collects them for (its
    whole domain, of which one collector may see a part: a family that can evaluate all
    outputs of an input at once compares it with the fewest inputs from which collecting pays)."""

    def __init__(self, inputs: int):
        self.inputs = inputs
        self.forms: list[tuple] = []
        self._positions: dict = {}

    def position(self, form, evaluator: Callable) -> int:
        """The position of ``form`` in :attr:`forms`, added there when first met."""
        if form not in self._positions:
            self._positions[form] = len(self.forms)
            self.forms.append((form, evaluator))
        return self._positions[form]


class OutputPair(NamedTuple):
    """One class of outputs of a pair of inputs: ``count`` outputs that are exchangeable under
    both inputs (a permutation of the outputs that fixes both output distributions maps any one
    to any other), each with the probabilities ``p1`` on ``d1`` and ``p2`` on ``d2`` (balls),
    ``output`` one of them (a tuple of its entries).  Every functional of the two
    distributions is a sum (or a supremum) over outputs, so a class enters it once, weighted by
    ``count`` (docs/mathematics.md §11, "Exchangeable outputs")."""

    p1: arb
    p2: arb
    count: int = 1
    output: tuple | None = None

    def swapped(self) -> "OutputPair":
        """The class seen from ``d2 → d1``."""
        return OutputPair(self.p2, self.p1, self.count, self.output)


@functools.singledispatch
def exchangeable_pairs(mech, d1: Runs, d2: Runs, dps: int) -> list[OutputPair] | None:
    """Every class of outputs exchangeable under both inputs with its probabilities
    (:class:`OutputPair`, balls as :func:`output_probabilities` gives them), where the family
    groups its outputs so (noisy max releasing an index: the indices ``i`` of equal
    ``(d1_i, d2_i)``, ``form/noisy_max.py``); ``None`` (the default) where each output is its
    own class."""
    return None


def output_probability_pairs(mech, d1: Runs, d2: Runs, dps: int) -> list[OutputPair]:
    """The :class:`OutputPair` of every class of outputs of either input (an output of one input
    only has the exact probability 0 on the other): :func:`exchangeable_pairs` where the family
    groups them, else one class per output from :func:`output_probabilities` of each input
    (within ``certified.shared_integrals``: an integral the two inputs share, up to a symmetry
    of its noises, is computed once)."""
    classes = exchangeable_pairs(mech, d1, d2, dps)
    if classes is not None:
        return classes
    with shared_integrals():
        sides = [output_probabilities(mech, d, dps) for d in (d1, d2)]
    outputs = dict.fromkeys([*sides[0], *sides[1]])
    return [OutputPair(sides[0].get(output, arb(0)), sides[1].get(output, arb(0)), 1, output)
            for output in outputs]


def certified_balls(mech, forms: dict, evaluator: Callable, dps: int,
                    collector: FormCollector | None = None) -> dict:
    """``{output: ball}``: the certified probability of each output from its integral form
    (``forms``: ``{output: form}``), each distinct form evaluated once
    (:func:`certified_result`); with ``collector`` nothing is evaluated: ``{output: position of
    its form in collector.forms}`` (:func:`output_probabilities`).  Without ``collector``,
    work that lasts over :data:`~exactdp.progress.START_DELAY` seconds (many digits of Gaussian
    noise) reports its progress on a terminal, one step per output."""
    if collector is not None:
        return {output: collector.position(form, evaluator) for output, form in forms.items()}
    balls, evaluated = {}, {}
    with flint_context(working_bits(dps, guard=COMBINE_GUARD_DIGITS)), \
            Progress(len(forms), f"{mech.name}: output probabilities", "output", None,
                     delay=START_DELAY) as bar:
        for output, form in forms.items():
            if form not in evaluated:
                evaluated[form] = ball_of(certified_result(form, evaluator, dps, mech.name))
            balls[output] = evaluated[form]
            bar.update()
    return balls


def complete_pairs(mech, d1: Runs, d2: Runs, dps: int) -> list[OutputPair]:
    """:func:`output_probability_pairs`, checked: on each input the enclosures of all outputs
    (each class ``count`` times) must sum to a ball containing 1 (every output enumerated), else
    :class:`~exactdp.errors.PrecisionError`."""
    pairs = output_probability_pairs(mech, d1, d2, dps)
    for side in (0, 1):
        check_complete([pair[side] for pair in pairs], dps, f"{mech.name}: d{side + 1}",
                       [pair.count for pair in pairs])
    return pairs


def check_complete(balls, dps: int, what: str, counts: list[int] | None = None) -> None:
    """:class:`~exactdp.errors.PrecisionError` unless the probabilities of every output of one
    input (balls; each ``counts[i]`` times, once by default) sum to a ball containing 1: every
    output enumerated (``what`` names the mechanism and the input)."""
    with flint_context(working_bits(dps, guard=COMBINE_GUARD_DIGITS)):
        total = (sum(balls, arb(0)) if counts is None
                 else sum((count * ball for ball, count in zip(balls, counts)), arb(0)))
        if not total.contains(1):
            raise PrecisionError(f"{what}: the probabilities of all outputs sum to "
                                 f"{total.str(10)}, not 1")


#: How many precisions, each twice the last, :func:`refined` tries before giving up.
REFINEMENTS = 6


def refined(compute, dps: int, what: str, absolute: bool = False) -> Enclosure:
    """The :class:`Enclosure` of ``compute()`` (a ball) at doubling Arb precisions until its
    radius is at most ``10^{−dps}`` of its centre's magnitude — or, with ``absolute``, of 1
    (a difference of probabilities whose exact value may be 0), and also for a ball that holds
    0, which no relative width can describe (two distributions equal but not provably so) — else
    :class:`~exactdp.errors.PrecisionError` naming ``what`` and the width reached
    (:func:`~exactdp.refinement.refine`)."""
    def attempt(bits: int) -> tuple[bool, arb]:
        with flint_context(bits):
            ball = compute()
            tolerance = arb(10) ** (-dps)
            narrow = ball.is_exact() or ball.rad() <= tolerance * abs(ball.mid()) or (
                (absolute or ball.contains(0)) and ball.rad() <= tolerance)
            return narrow, Enclosure.of_ball(ball) if narrow else ball  # ends at this precision

    bits = working_bits(dps, guard=COMBINE_GUARD_DIGITS)
    return refine(attempt, bits, bits * 2 ** (REFINEMENTS - 1),
                  lambda ball, bits: f"{what}: the enclosure {ball.str(5)} did not reach {dps} "
                                     f"digits at {bits} bits")


def at_least_zero(enclosure: Enclosure) -> Enclosure:
    """The enclosure of a quantity that is never negative (a Rényi divergence, van Erven &
    Harremoës, "Rényi Divergence and Kullback-Leibler Divergence", IEEE Trans. Inf. Theory
    60(7), 2014, Thm 8; or ``δ(ε)``, a sum of ``max(0, ·)``), its value and lower end raised to
    0: the part of the enclosure below 0 holds no value."""
    zero = mpmath.mpf(0)
    return replace(enclosure, value=max(enclosure.value, zero),
                   lower=max(enclosure.lower, zero))
