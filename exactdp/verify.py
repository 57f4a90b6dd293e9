"""Whole-domain verdicts: does a mechanism meet ``(ε, δ)``-DP, or ``D_α ≤ B``, on every ordered
pair of neighbouring inputs of a finite domain ``V^N``?

DiPApprox (Bhusal, Chadha, Sistla & Viswanathan, "Approximate Algorithms for Verifying
Differential Privacy with Gaussian Distributions", CCS 2025, arXiv:2509.08804) decides every pair
of such a domain in one call.  :func:`verify` does it in three steps (docs/verify.md):

1. every output's probability on every input, once per input (not once per pair), as certified
   balls (:func:`~exactdp.exact.divergences.output_pairs.output_probabilities`), each distinct
   integral form evaluated once across the domain (the integral form groups equal factors into
   powers, so the ~11,000 output probabilities of Sparse Vector on ``{0,1}^10`` are 121
   integrals): the inputs' forms collected, then the distinct forms evaluated, each round
   split across worker processes (``exactdp.workers.parallel_map``); for an ``(ε, δ)`` claim
   on at most :data:`REUSED_UP_TO` inputs first to
   :data:`~exactdp.exact.divergences.profile.SCREEN_DIGITS` digits, which stand where step 2
   finds every ``δ(ε)`` exactly 0, and where it proves a violation leave only the inputs of
   the pairs that may be the worst one to evaluate again (:func:`_proven_violation`);
2. float64 bounds, rounded outward, of the pair's ``δ(ε)``, Rényi sum or ``D_∞`` for every
   ordered neighbouring pair at once (``exact/divergences/pair_bounds.py``): a pair whose upper
   bound meets the claim is proven to meet it;
3. the worst pair (the largest upper bound) certified with
   :func:`~exactdp.exact.divergences.profile.privacy_profile` or
   :func:`~exactdp.exact.divergences.renyi.renyi_divergence`; if it meets the claim, the pair of
   the largest lower bound when that bound refutes the claim, then every pair whose bounds
   straddle the claim, one by one: "not private" comes from a certified enclosure above the
   claim, "private" from every pair proven.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath
import numpy as np

from .errors import InputError, PrecisionError
from .exact.backends.certified import shared_constants, shared_integrals
from .exact.backends.piece_series import flint_context
from .exact.divergences.output_pairs import (FormCollector, ball_of, certified_result,
                                             check_complete, known_results,
                                             output_probabilities)
from .exact.divergences.pair_bounds import Comparison, float_ends
from .exact.divergences.profile import SCREEN_DIGITS, privacy_profile
from .exact.divergences.renyi import check_alphas, renyi_divergence
from .formatting import decimal_text, printed_number
from .precision import (COMBINE_GUARD_DIGITS, PART_GUARD_DIGITS, Enclosure, check_dps, to_arb,
                        working_bits)
from .programs.model import Program
from .progress import START_DELAY, Progress
from .sequences import Runs, format_number, to_fraction
from .workers import current_scheduler, parallel_map

#: Most inputs a domain may have.  The ordered pairs grow as its square: on two cores, 4,096
#: inputs (16.8 million pairs) with 11 outputs take about a minute to compare in bulk, beyond the
#: time of their output probabilities (benchmarks/verify_speed.py).
MAX_INPUTS = 4096
#: Digits of the output probabilities the bulk comparison reads (float64 holds 16).
BULK_DIGITS = 20
#: Most inputs of a domain whose output probabilities are certified to the digits a pair's
#: certification asks for (``dps + PART_GUARD_DIGITS``, where that is above
#: :data:`BULK_DIGITS`), so that certifying the worst pair evaluates none of their forms again
#: (``output_pairs.known_results``): a program of Laplace and Gaussian noises (DiPApprox's
#: ``svt_mix1_max``) takes 0.063 s instead of 0.124 s on ``{0,1}``, 1.84 s instead of 2.06 s on
#: ``{0,1}^7`` (128 inputs); Gaussian ``svt_max``, which gains nothing (its pair is certified on
#: shared nodes), 0.296 s instead of 0.277 s on ``{0,1}^5`` (benchmarks/verify_small_domains.py).
#: On such a domain an ``(ε, δ)`` claim is first compared at ``profile.SCREEN_DIGITS`` digits,
#: which decide where every ``δ(ε)`` is exactly 0 (beyond it a positive ``δ`` would lose more:
#: Gaussian ``svt_gaussian`` on ``{0,1}^10``, δ positive, 6.0 s instead of 4.2 s).
REUSED_UP_TO = 128
#: Inputs per task of the step that collects their integral forms (progress is reported per
#: task).
INPUTS_PER_TASK = 16
#: Distinct integral forms per task of the step that evaluates them (a few: their costs vary).
FORMS_PER_TASK = 4
#: Ordered pairs compared at once (memory: a few arrays of this many floats).
PAIRS_PER_BLOCK = 1 << 18


@dataclass(frozen=True)
class Verdict:
    """The answer of :func:`verify`.

    Attributes
    ----------
    private : bool
        Every ordered neighbouring pair meets the claim (proven); ``False``: the pair
        ``(d1, d2)`` is certified to break it.
    comparison : Comparison
        The quantity and the claim (``δ`` at ``ε``, or ``D_α ≤ B``).
    inputs, outputs, pairs : int
        Inputs of the domain, distinct outputs over all of them, ordered neighbouring pairs
        compared.
    d1, d2 : Runs
        The worst pair (largest float upper bound), or the first pair certified above the claim.
    value : Enclosure
        That pair's ``δ(ε)`` or ``D_α``, certified.
    certified : int
        Pairs certified one by one, the worst pair included (step 3 of the module docstring).
    method : str
    """

    private: bool
    comparison: Comparison
    inputs: int
    outputs: int
    pairs: int
    d1: Runs
    d2: Runs
    value: Enclosure
    certified: int
    method: str

    def fields(self, digits: int, text: bool) -> dict:
        """The JSON object (``text``: the table's rows) of the verdict, numbers as decimal
        strings, counts as integers (``text``: with thousands separators)."""
        name = "delta" if self.comparison.kind == "delta" else "divergence"
        printed = printed_number(self.value.value, digits,
                                 enclosure=(self.value.lower, self.value.upper))
        verdict = "private" if self.private else "not private"
        worst = {"d1": _spelled(self.d1), "d2": _spelled(self.d2)}
        if text:
            return {"verdict": verdict, "pairs": f"{self.pairs:,} ordered pairs of "
                    f"{self.inputs:,} inputs ({self.outputs:,} outputs)",
                    "worst d1": worst["d1"], "worst d2": worst["d2"], name: printed.text,
                    "enclosure": f"[{printed.lower}, {printed.upper}]",
                    "certified pairs": f"{self.certified:,}", "method": self.method}
        worst.update({name: printed.value, f"{name}_lower": printed.lower,
                      f"{name}_upper": printed.upper})
        return {"verdict": verdict, "pairs": self.pairs, "worst": worst,
                "certified_pairs": self.certified, "inputs": self.inputs,
                "outputs": self.outputs, "method": self.method}

    def claim_text(self, digits: int) -> str:
        """The claim checked, e.g. ``(ε, δ) = (0.5, 0.01)`` or ``D_α ≤ 1 at α = 2``."""
        comparison = self.comparison
        if comparison.kind == "delta":
            return (f"(ε, δ) = ({decimal_text(comparison.order, digits)}, "
                    f"{decimal_text(comparison.claim, digits)})")
        return (f"D_α ≤ {decimal_text(comparison.claim, digits)} at α = "
                f"{decimal_text(comparison.order, digits)}")


def verify(mech, values, length: int, eps=None, delta=0, alpha=None, bound=None, dps: int = 30,
           allow_any_pair: bool = False, jobs: int = 1,
           progress: bool | None = False) -> Verdict:
    """Decide ``(ε, δ)``-DP, or ``D_α(M(d1) ‖ M(d2)) ≤ B``, on every ordered pair of distinct
    neighbouring inputs of ``V^N``.

    Parameters
    ----------
    mech : mechanism description or program
        A mechanism with discrete outputs that divergences enumerate (⊤/⊥ Sparse Vector
        variants, noisy max's index, a program's discrete return values).
    values : str or sequence of numbers
        ``V``, the values every query answer takes (``"0,1"``).
    length : int
        ``N``, the number of queries.
    eps, delta : number
        The claim ``(ε, δ)`` (``δ`` defaults to 0: pure ``ε``-DP); ``δ(ε) ≤ δ`` on every pair.
    alpha, bound : number
        The claim ``D_α ≤ B`` (``α > 1`` or ``inf``), instead of ``eps``.
    dps : int
        Significant digits of the certified value of the worst pair.
    allow_any_pair : bool
        Every ordered pair of distinct inputs, not only the mechanism's neighbours.
    jobs : int
        Worker processes of the integral forms, their evaluation and the bulk comparison
        (``exactdp.workers.parallel_map``, or a Dask cluster set with ``use_scheduler``, one
        thread per worker); the verdict and every bound do not depend on it.
    progress : bool or None
        As :class:`~exactdp.progress.Progress`'s ``enabled`` (each step reports after
        :data:`~exactdp.progress.START_DELAY` seconds).

    Returns
    -------
    Verdict

    Notes
    -----
    ``δ(ε) = Σ_a max(0, p1(a) − e^ε p2(a))`` (Balle, Barthe & Gaboardi, NeurIPS 2018);
    ``D_α = (1/(α−1)) ln Σ_a p1(a)^α p2(a)^{1−α}`` (Mironov, IEEE CSF 2017).  The bulk bounds
    and their rounding: ``exact/divergences/pair_bounds.py`` and docs/mathematics.md.

    Examples
    --------
    >>> import exactdp
    >>> verdict = verify(exactdp.mechanism("svt1", eps=1), "0,1", 2, eps=1)
    >>> verdict.private, verdict.pairs
    (True, 12)
    """
    check_dps(dps)
    if not isinstance(mech, Program) and mech.releases_numbers:  # a program's paths say
        raise InputError(f"verify compares discrete outputs; {mech.name} releases numbers "
                         f"({mech.output_kind.value})")
    comparison = _comparison(eps, delta, alpha, bound)
    domain = _domain(values, length)
    inputs = list(itertools.product(domain, repeat=length))
    neighbours = _Neighbours(mech, domain, inputs, allow_any_pair)
    if not neighbours.exist():
        raise InputError(f"no two distinct inputs of {_domain_text(domain, length)} are "
                         f"neighbours for {mech.name}; allow any pair (--any-pair) to compare "
                         f"them anyway")
    digits = (max(BULK_DIGITS, dps + PART_GUARD_DIGITS) if len(inputs) <= REUSED_UP_TO
              else BULK_DIGITS)
    screen = comparison.kind == "delta" and SCREEN_DIGITS < digits and \
        len(inputs) <= REUSED_UP_TO
    layout = _Layout.of(_collected_forms(mech, inputs, comparison, jobs, progress,
                                         SCREEN_DIGITS if screen else digits), comparison)
    if screen:
        screened = _input_ends(mech, inputs, comparison, layout, SCREEN_DIGITS, jobs, progress)
        bulk = _compare(comparison, *screened[:2], neighbours, progress, jobs)
        if bulk.worst_bound <= 0:
            # every δ(ε) exactly 0 at the screen's digits: exactly 0 at any (profile.SCREEN_DIGITS)
            return _verdict(mech, comparison, inputs, bulk, screened, SCREEN_DIGITS, dps,
                            progress)
        if bulk.violator is not None and not layout.direct.any():
            verdict = _proven_violation(mech, comparison, inputs, layout, screened, bulk,
                                        neighbours, digits, dps, jobs, progress)
            if verdict is not None:
                return verdict
        if layout.direct.any():   # an input's outputs at once: collected anew at more digits
            layout = _Layout.of(_collected_forms(mech, inputs, comparison, jobs, progress,
                                                 digits), comparison)
    ends = _input_ends(mech, inputs, comparison, layout, digits, jobs, progress)
    bulk = _compare(comparison, *ends[:2], neighbours, progress, jobs)
    return _verdict(mech, comparison, inputs, bulk, ends, digits, dps, progress)


def _verdict(mech, comparison: Comparison, inputs: list, bulk: "_Bulk", ends: tuple,
             digits: int, dps: int, progress) -> Verdict:
    """The :class:`Verdict` of the pairs :func:`_certify` certifies from the bulk comparison,
    their forms' probabilities taken from ``ends`` (:func:`_input_ends`, to ``digits``
    digits)."""
    with known_results(ends[3], digits):
        private, witness, value, certified = _certify(mech, comparison, inputs, bulk, dps,
                                                      progress)
    how = "privacy_profile" if comparison.kind == "delta" else "renyi_divergence"
    method = (f"output probabilities once per input (certified, {digits} digits); float64 "
              f"bounds of every pair, rounded outward; the worst pair and every pair they do "
              f"not decide certified by {how}")
    return Verdict(private, comparison, len(inputs), ends[2], bulk.pairs,
                   *(Runs.from_items(inputs[k]) for k in witness), value, certified, method)


def _proven_violation(mech, comparison: Comparison, inputs: list, layout: "_Layout",
                      screened: tuple, screen: "_Bulk", neighbours: "_Neighbours", digits: int,
                      dps: int, jobs: int, progress) -> Verdict | None:
    """The verdict where the screen proves a pair's ``δ(ε)`` above the claim, from the forms of
    the inputs of the pairs that may be the worst one alone evaluated to ``digits`` digits;
    ``None`` where that pair is not certified above the claim (:func:`verify` then compares
    the whole domain at ``digits`` digits).

    The worst pair is the first (in the order of the inputs) of the largest float upper bound
    ``U`` from ``digits`` digits.  No pair outside the candidates ``{P : U'(P) ≥ L}`` can be
    it, with ``L`` the largest float lower bound of the screen (of a pair ``Q``) and ``U'`` the
    upper bound from the screen's ends moved two floats outward (:func:`_widened`):
    ``U(P) ≤ U'(P) < L ≤ δ(Q) ≤ U(Q)``.  ``U ≤ U'`` holds because every ball to ``digits ≥``
    :data:`BULK_DIGITS` digits lies within a relative ``w`` of the probability ``p``, ``w`` its
    relative width ``10^{−digits}`` (``output_pairs.output_probabilities``) and roundings at
    80 bits or more, far below a float's spacing ``2^{−53}``; the screen's float ends enclose
    ``p``, so the ball's float ends, within one float of ``[p/(1 + w), p(1 + w)]``, are within
    two of the screen's, and the float bounds of ``pair_bounds`` are
    non-decreasing in every ``r_hi`` and non-increasing in every ``c_lo``
    (round-to-nearest and ``nextafter`` are monotone).  The candidates' bounds are those of
    the whole domain, pair by pair, so the worst pair is the same, and so is its certified
    ``δ(ε)``: its forms are among those evaluated."""
    upper, _ = comparison.bounds(_widened(screened[0]), _widened(screened[1]),
                                 _factor(comparison))
    mask = neighbours.rows(0, len(inputs))
    first, second = np.nonzero(mask & (upper >= screen.violator_bound))
    chosen = np.zeros(len(inputs), dtype=bool)
    chosen[first] = chosen[second] = True
    chosen = np.flatnonzero(chosen)
    ends = _input_ends(mech, inputs, comparison, layout, digits, jobs, progress, chosen)
    upper, _ = comparison.bounds(ends[0], ends[1], _factor(comparison))
    bounds = upper[np.searchsorted(chosen, first), np.searchsorted(chosen, second)]
    at = int(np.argmax(bounds))        # the first of equal ones, as _compare's
    bulk = _Bulk(pairs=screen.pairs, worst=(int(first[at]), int(second[at])),
                 worst_bound=float(bounds[at]))
    verdict = _verdict(mech, comparison, inputs, bulk, ends, digits, dps, progress)
    return None if verdict.private else verdict


def _widened(ends: tuple) -> tuple:
    """Float ends ``(lo, hi)`` moved two floats outward, a lower end not below 0
    (:func:`_proven_violation`)."""
    low, high = ends
    return (np.maximum(np.nextafter(np.nextafter(low, -math.inf), -math.inf), 0.0),
            np.nextafter(np.nextafter(high, math.inf), math.inf))


def _comparison(eps, delta, alpha, bound) -> Comparison:
    """The checked claim: exactly one of ``eps`` (with ``0 ≤ δ < 1``) and ``alpha`` (with a
    finite ``B ≥ 0``)."""
    if (eps is None) == (alpha is None):
        raise InputError("give exactly one of eps (with delta) and alpha (with bound)")
    if eps is not None:
        if bound is not None:
            raise InputError("bound goes with alpha; with eps give delta")
        eps, delta = to_fraction(eps, "eps"), to_fraction(delta, "delta")
        if eps < 0:
            raise InputError(f"eps must be at least 0, got eps={format_number(eps)}")
        if not 0 <= delta < 1:
            raise InputError(f"delta must be at least 0 and below 1, got "
                             f"delta={format_number(delta)}")
        return Comparison.of(eps=eps, delta=delta)
    if bound is None:
        raise InputError("alpha needs a bound B on D_alpha (--bound)")
    alpha, = check_alphas([alpha])
    bound = to_fraction(bound, "bound")
    if bound < 0:
        raise InputError(f"bound must be at least 0, got bound={format_number(bound)}")
    return Comparison.of(alpha=alpha, bound=bound)


def _domain(values, length) -> list[Fraction]:
    """``V`` as distinct exact rationals, after checking that ``V^N`` has at most
    :data:`MAX_INPUTS` inputs (refused before any work, with its size)."""
    if isinstance(values, str):
        values = [token.strip() for token in values.split(",")]
    domain = [to_fraction(value, "value") for value in values]
    if not domain:
        raise InputError("the list of values must not be empty")
    if len(set(domain)) < len(domain):
        raise InputError(f"the values must be distinct, got {','.join(map(format_number, domain))}")
    if isinstance(length, bool) or not isinstance(length, int) or length < 1:
        raise InputError(f"length must be a positive integer, got length={length!r}")
    size = len(domain) ** length
    if size > MAX_INPUTS:
        raise InputError(f"the domain {_domain_text(domain, length)} has {size:,} inputs "
                         f"({size * (size - 1):,} ordered pairs): verify enumerates at most "
                         f"{MAX_INPUTS:,} inputs")
    if size < 2:
        raise InputError(f"the domain {_domain_text(domain, length)} has one input: no pair")
    return domain


def _domain_text(domain: list, length: int) -> str:
    return f"{{{','.join(map(format_number, domain))}}}^{length}"


def _spelled(d: Runs) -> str:
    return ",".join(format_number(value) for value in d.expand())


class _Neighbours:
    """Which ordered pairs of the domain's inputs are compared: distinct, and neighbours by the
    mechanism's own check (:meth:`~exactdp.mechanisms.base.Mechanism.neighbour_violation`),
    unless any pair is allowed.  Each of the three relations depends only on the multiset of
    the pairs ``(d1_k, d2_k)`` of answers at each position (how far and in which direction
    each answer moves, and how many move), so the check runs once per such multiset, on a
    representative: 286 calls for the million pairs of ``{0,1}^10``.  A multiset is keyed by
    its sorted pair codes ``|V|·v1 + v2`` read in base ``|V|²``, an integer below
    ``(|V|^N)² ≤`` :data:`MAX_INPUTS`².
    """

    def __init__(self, mech, domain: list, inputs: list, allow_any_pair: bool):
        self.mech, self.domain, self.allow_any_pair = mech, domain, allow_any_pair
        index = {value: k for k, value in enumerate(domain)}
        self.codes = np.array([[index[value] for value in d] for d in inputs], dtype=np.int64)
        self.known: dict[int, bool] = {}

    def rows(self, start: int, stop: int) -> np.ndarray:
        """The boolean mask of the pairs with the first input in ``start:stop``, shape
        ``(stop − start, inputs)``."""
        size = len(self.domain)
        mask = np.ones((stop - start, len(self.codes)), dtype=bool)
        if not self.allow_any_pair:
            pairs = np.sort(self.codes[start:stop, None, :] * size + self.codes[None], axis=-1)
            keys = pairs @ (size * size) ** np.arange(pairs.shape[-1], dtype=np.int64)
            unique, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
            allowed = np.array([self._allowed(int(key), pairs.reshape(-1, pairs.shape[-1])[at])
                                for key, at in zip(unique, first)])
            mask = allowed[inverse.reshape(-1)].reshape(mask.shape)
        mask[np.arange(stop - start), np.arange(start, stop)] = False
        return mask

    def exist(self) -> bool:
        """Whether any ordered pair is compared (checked block by block, before any work)."""
        block = max(1, PAIRS_PER_BLOCK // len(self.codes))
        return any(self.rows(start, min(len(self.codes), start + block)).any()
                   for start in range(0, len(self.codes), block))

    def _allowed(self, key: int, codes: np.ndarray) -> bool:
        """Whether the pair of inputs with these sorted pair codes are neighbours."""
        if key not in self.known:
            size = len(self.domain)
            sides = [Runs.from_items(self.domain[int(code) // size] for code in codes),
                     Runs.from_items(self.domain[int(code) % size] for code in codes)]
            self.known[key] = self.mech.neighbour_violation(*sides) is None
        return self.known[key]


@dataclass(frozen=True)
class _Layout:
    """Where the probability of each output of each input of the domain comes from, laid out
    once for every evaluation of its forms (:func:`_input_ends`): ``forms`` the pairs ``(form,
    evaluator)`` of the domain (:func:`_collected_forms`), ``positions[i, k]`` the position in
    ``forms`` of the form of the ``k``-th output of the domain (first met first) on input
    ``i``, −1 where there is none; ``ends[i, k]`` the float ends ``(r_lo, r_hi, c_lo, c_hi)``
    of an output of an input whose family computes its outputs all at once (``direct[i]``),
    and of an output an input cannot produce (at its exact-zero ends)."""

    forms: list
    positions: np.ndarray
    ends: np.ndarray
    direct: np.ndarray

    @classmethod
    def of(cls, collected: tuple, comparison: Comparison) -> "_Layout":
        """The layout of ``(forms, per input ([output], [position of its form, or its
        ends]))`` (:func:`_collected_forms`)."""
        forms, per_input = collected
        columns: dict = {}      # output → its column, first met first (each output hashed once)
        where = [[columns.setdefault(output, len(columns)) for output in outputs]
                 for outputs, _ in per_input]
        positions = np.full((len(per_input), len(columns)), -1, dtype=np.int64)
        absent = comparison.absent
        ends = np.empty((len(per_input), len(columns), 4))
        ends[...] = (absent[0],) * 2 + (absent[1],) * 2
        direct = np.zeros(len(per_input), dtype=bool)
        for i, ((_, values), at) in enumerate(zip(per_input, where)):
            if any(isinstance(value, int) for value in values):
                positions[i, at] = values
            elif values:
                ends[i, at], direct[i] = values, True
        return cls(forms, positions, ends, direct)


def _input_ends(mech, inputs: list, comparison: Comparison, layout: _Layout, digits: int,
                jobs: int, progress,
                chosen: np.ndarray | None = None) -> tuple[tuple, tuple, int, dict]:
    """The float ends of ``r`` and ``c`` (``pair_bounds``) of every output on the inputs
    ``chosen`` (their positions in ``inputs``, increasing; all by default), from probabilities
    certified to ``digits`` digits: ``((r_lo, r_hi), (c_lo, c_hi), outputs, {form: its
    certified probability})``, arrays of shape ``(chosen inputs, outputs of the domain)``.

    The distinct forms of those inputs are evaluated once each, a few forms per task, the
    tasks split across the workers; each input's probabilities are then read from its forms
    (``layout``) and checked to sum to 1.  The tasks do not depend on the number of workers,
    and neither do the ends."""
    chosen = np.arange(len(inputs)) if chosen is None else chosen
    positions = layout.positions[chosen]
    used = np.zeros(len(layout.forms) + 1, dtype=bool)   # the last for −1: none
    used[positions] = True
    needed = np.flatnonzero(used[:-1])    # (np.unique would import numpy.ma: 10 ms)
    forms = [layout.forms[k] for k in needed]
    evaluation_tasks = [(mech.name, forms[start:start + FORMS_PER_TASK], digits)
                        for start in range(0, len(forms), FORMS_PER_TASK)]
    results = []
    with Progress(len(forms), f"{mech.name}: output probabilities", "integral", progress,
                  delay=START_DELAY) as bar, shared_constants():   # across the tasks run here
        for task, evaluated in zip(evaluation_tasks, _mapped(_task_results, evaluation_tasks,
                                                              jobs)):
            results.extend(evaluated)
            bar.update(len(task[1]))
    local = np.searchsorted(needed, positions)  # each output's form in ``forms`` (absent: 0)
    with flint_context(working_bits(digits, guard=COMBINE_GUARD_DIGITS)):
        balls = [ball_of(result) for result in results]
        for row, i in enumerate(chosen):
            if not layout.direct[i]:
                check_complete([balls[k] for k in local[row][positions[row] >= 0]], digits,
                               f"{mech.name} on {_spelled(Runs.from_items(inputs[i]))}")
        form_ends = np.array([_ends(ball, comparison) for ball in balls] + [(0.0,) * 4])
    table = np.where((positions >= 0)[..., None], form_ends[local],
                     layout.ends[chosen])
    return ((table[..., 0], table[..., 1]), (table[..., 2], table[..., 3]),
            positions.shape[1], {form: result for (form, _), result in zip(forms, results)})


def _collected_forms(mech, inputs: list, comparison: Comparison, jobs: int, progress,
                     digits: int) -> tuple[list, list]:
    """``(forms, per input ([output], [position of its form in forms]))``: the inputs' integral
    forms collected in tasks split across the workers
    (:class:`~exactdp.exact.divergences.output_pairs.FormCollector`; ``forms`` the pairs
    ``(form, evaluator)`` of the domain, first met first), or where a family computes an input's
    outputs all at once, their ends (from probabilities to ``digits`` digits) instead of
    positions."""
    form_tasks = [(mech, inputs[start:start + INPUTS_PER_TASK], comparison, len(inputs), digits)
                  for start in range(0, len(inputs), INPUTS_PER_TASK)]
    positions, per_input = {}, []    # form → its position in ``forms``; each input's outputs
    forms: list[tuple] = []          # (form, evaluator) of every distinct form, first met first
    with Progress(len(inputs), f"{mech.name}: integral forms", "input", progress,
                  delay=START_DELAY) as bar:
        for task, (collected, outputs) in zip(form_tasks, _mapped(_task_forms, form_tasks, jobs,
                                                                   first_here=True)):
            global_position = []
            for form, evaluator in collected:
                if form not in positions:
                    positions[form] = len(forms)
                    forms.append((form, evaluator))
                global_position.append(positions[form])
            per_input.extend((list(values), [global_position[value] if isinstance(value, int)
                                             else value for value in values.values()])
                             for values in outputs)
            bar.update(len(task[1]))
    return forms, per_input


def _mapped(function, tasks: list, jobs: int, first_here: bool = False):
    """``function(task)`` of every task, in order: here when ``jobs`` is 1 (and no Dask
    scheduler is set), else across workers (``exactdp.workers.parallel_map``).  ``first_here``:
    the first task runs here before the workers start, so that workers forked from this
    process inherit the modules it imports lazily (the first forms import ``scipy.special``:
    0.15 s of every worker's time otherwise)."""
    if jobs == 1 and current_scheduler() is None:
        return map(function, tasks)
    if first_here:
        return itertools.chain([function(tasks[0])], parallel_map(function, tasks[1:], jobs))
    return parallel_map(function, tasks, jobs)


def _ends(ball, comparison: Comparison) -> tuple:
    """``(r_lo, r_hi, c_lo, c_hi)``: the float ends of the row and column parts of an output's
    probability (``pair_bounds``)."""
    return tuple(end for part in comparison.row_and_column(ball) for end in float_ends(part))


def _task_forms(task) -> tuple[list, list[dict]]:
    """The integral forms of the outputs of each input of one task, collected: ``(forms,
    [{output: position in forms, or its ends}])``, the ends of an input whose family computes
    its outputs all at once (its probabilities checked to sum to 1); the task also carries the
    size of the whole domain (``FormCollector.inputs``) and the digits."""
    mech, inputs, comparison, domain_size, digits = task
    collector, outputs = FormCollector(domain_size), []
    for d in inputs:
        d = Runs.from_items(d)
        values = output_probabilities(mech, d, digits, collector)
        if not any(isinstance(value, int) for value in values.values()):
            check_complete(values.values(), digits, f"{mech.name} on {_spelled(d)}")
            with flint_context(working_bits(digits, guard=COMBINE_GUARD_DIGITS)):
                values = {key: _ends(ball, comparison) for key, ball in values.items()}
        outputs.append(values)
    return collector.forms, outputs


def _task_results(task) -> list:
    """The certified probability of each form of one task (``(mechanism's name, [(form,
    evaluator)], digits)``), an integral the forms share (up to a symmetry of its noises)
    computed once (``certified.shared_integrals``; the tasks are the same whatever the
    workers, and so are the results)."""
    name, forms, digits = task
    with shared_integrals():
        return [certified_result(form, evaluator, digits, name) for form, evaluator in forms]


@dataclass
class _Bulk:
    """What the float bounds of every ordered neighbouring pair say (:func:`_compare`).

    ``worst`` is the pair ``(i, j)`` of the largest upper bound (the first of equal ones),
    ``violator`` that of the largest lower bound when a lower bound is above the claim (a
    proven violation, ``None`` otherwise), ``straddling`` the pairs whose bounds neither prove
    nor refute the claim, largest upper bound first (all of them when there are at most
    :data:`MAX_STRADDLING`, else none: too many to certify one by one; ``straddling_count``
    counts all)."""

    pairs: int = 0
    worst: tuple | None = None
    worst_bound: float = -math.inf
    violator: tuple | None = None
    violator_bound: float = -math.inf
    straddling: list = field(default_factory=list)
    straddling_count: int = 0


#: Most pairs whose float bounds straddle the claim that are certified one by one (each takes
#: a certified divergence); more is a :class:`~exactdp.errors.PrecisionError` that says how many.
MAX_STRADDLING = 1000


def _compare(comparison: Comparison, rows: tuple, columns: tuple, neighbours: _Neighbours,
             progress, jobs: int = 1) -> _Bulk:
    """Bulk float bounds of every ordered neighbouring pair (``pair_bounds``), block by block
    of first inputs, the blocks split across ``jobs`` workers (:func:`_mapped`) and their
    findings merged in block order (as one pass over the blocks would)."""
    count = rows[0].shape[0]
    block = max(1, PAIRS_PER_BLOCK // count)
    tasks = [(comparison, (rows[0][start:start + block], rows[1][start:start + block]),
              columns, neighbours, start) for start in range(0, count, block)]
    bulk, straddling = _Bulk(), []
    with Progress(count, "comparing pairs", "input", progress, delay=START_DELAY) as bar:
        for task, part in zip(tasks, _mapped(_compare_block, tasks, jobs)):
            bulk.pairs += part.pairs
            for name in ("worst", "violator"):
                if getattr(part, name) is not None and \
                        getattr(part, f"{name}_bound") > getattr(bulk, f"{name}_bound"):
                    setattr(bulk, name, getattr(part, name))
                    setattr(bulk, f"{name}_bound", getattr(part, f"{name}_bound"))
            bulk.straddling_count += part.straddling_count
            straddling.extend(part.straddling)
            bar.update(len(task[1][0]))
    # the straddling pairs are certified only when there are at most MAX_STRADDLING of them
    if bulk.straddling_count <= MAX_STRADDLING:
        bulk.straddling = [(i, j) for _, i, j in sorted(straddling)]
    return bulk


def _compare_block(task) -> _Bulk:
    """What the float bounds say of the pairs whose first input is in one block (``(comparison,
    the block's rows, every column, neighbours, first row)``): :class:`_Bulk` with the
    straddling pairs as ``(−upper bound, i, j)``, none when the block alone has more than
    :data:`MAX_STRADDLING`."""
    comparison, rows, columns, neighbours, start = task
    stop = start + rows[0].shape[0]
    with flint_context(working_bits(BULK_DIGITS, guard=COMBINE_GUARD_DIGITS)):
        low, high = comparison.thresholds()
    mask = neighbours.rows(start, stop)
    upper, lower = comparison.bounds(rows, columns, _factor(comparison))
    upper, lower = np.where(mask, upper, -math.inf), np.where(mask, lower, -math.inf)
    part = _Bulk(pairs=int(mask.sum()))
    for bound, name in ((upper, "worst"), (lower, "violator")):
        where = np.unravel_index(int(np.argmax(bound)), bound.shape)
        if mask[where] and (name == "worst" or bound[where] > high):
            setattr(part, name, (start + int(where[0]), int(where[1])))
            setattr(part, f"{name}_bound", float(bound[where]))
    first, second = np.nonzero(mask & (upper > low) & (lower <= high))
    part.straddling_count = len(first)
    if part.straddling_count <= MAX_STRADDLING:
        part.straddling = list(zip((-upper[first, second]).tolist(), (first + start).tolist(),
                                   second.tolist()))
    return part


def _factor(comparison: Comparison) -> tuple[float, float]:
    """The float ends of ``e^ε`` the bulk bounds of ``δ(ε)`` read (``(1, 1)`` otherwise)."""
    if comparison.kind != "delta":
        return 1.0, 1.0
    with flint_context(working_bits(BULK_DIGITS, guard=COMBINE_GUARD_DIGITS)):
        return float_ends(to_arb(comparison.order).exp())


def _certify(mech, comparison: Comparison, inputs: list, bulk: _Bulk, dps: int,
             progress) -> tuple[bool, tuple, Enclosure, int]:
    """Certify the worst pair, then the pair of the largest lower bound if that bound refutes
    the claim, then each pair whose bounds straddle the claim, largest bound first, until one
    is certified above the claim: ``(private, pair, its enclosure, pairs certified)``.  An
    enclosure that holds the claim at ``dps`` digits, or more than :data:`MAX_STRADDLING`
    straddling pairs, is a :class:`~exactdp.errors.PrecisionError`."""
    claim, reported, done = comparison.claim, None, []

    def candidates():
        yield bulk.worst
        if bulk.violator is not None:
            yield bulk.violator
        if bulk.straddling_count > MAX_STRADDLING:
            raise PrecisionError(
                f"{mech.name}: the float bounds of {bulk.straddling_count:,} pairs straddle the "
                f"claimed {format_number(claim)}; verify certifies at most "
                f"{MAX_STRADDLING:,} pairs one by one")
        yield from bulk.straddling

    with Progress(1 + min(bulk.straddling_count, MAX_STRADDLING), "certifying pairs", "pair",
                  progress, delay=START_DELAY) as bar:
        for i, j in candidates():
            if (i, j) in done:
                continue
            done.append((i, j))
            value = _certified_value(mech, comparison, inputs[i], inputs[j], dps)
            reported = reported or value
            verdict = value.compared_with(claim)
            if verdict == "violation":
                return False, (i, j), value, len(done)
            if verdict == "undecided":
                raise PrecisionError(
                    f"{mech.name}: d1={_spelled(Runs.from_items(inputs[i]))}, "
                    f"d2={_spelled(Runs.from_items(inputs[j]))}: the certified enclosure "
                    f"[{mpmath.nstr(value.lower, 8)}, {mpmath.nstr(value.upper, 8)}] holds the "
                    f"claimed {format_number(claim)}: raise --dps (now {dps}) to decide")
            bar.update()
    return True, bulk.worst, reported, len(done)


def _certified_value(mech, comparison: Comparison, d1: tuple, d2: tuple, dps: int) -> Enclosure:
    """``δ(ε)`` or ``D_α`` of one pair, certified to ``dps`` digits."""
    if comparison.kind == "delta":
        return privacy_profile(mech, list(d1), list(d2), [comparison.order], dps,
                               allow_any_pair=True)[0].delta
    return renyi_divergence(mech, list(d1), list(d2), [comparison.order], dps,
                            allow_any_pair=True)[0].divergence
