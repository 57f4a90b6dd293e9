"""Exact output probabilities of Report Noisy Max in the integral form (``NoisyMaxMechanism``,
``@probability.register``).

With i.i.d. noise of density ``p`` and CDF ``F`` added to the answers ``q_1..q_n`` (ties have
probability 0):

* index (Dwork & Roth 2014, §3.3): the hub is the winner's noise ``z = η_i``, and ``i`` wins iff
  every other noisy answer is below ``q_i + z``::

      Pr[argmax = i] = ∫ p(z) Π_{j≠i} F(z − (q_j − q_i)) dz

  answers equal to ``q_i`` form one factor with power (their count − 1);
* largest value ``v`` (StatDP's v1b/v2b): the density
  ``f(v) = Σ_i p(v − q_i) Π_{j≠i} F(v − q_j)``, one term per distinct answer (weighted by its
  count) and no integral.

The laws come from the mechanism (``exactdp.noise``); a law whose density or CDF vanishes on a
half-line (the exponential law) bounds the integral, and a vanishing constant factor makes its
term an exact zero.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from ...errors import InputError, MethodUnavailableError
from ...mechanisms.noisy_max import NoisyMaxMechanism
from ...noise import Kind
from ...precision import COMBINE_GUARD_DIGITS, check_dps, working_bits
from ...sequences import Runs, as_output, as_queries, to_fraction, zip_runs
from .integral_form import IntegralBuilder, IntegralForm, make_term
from ..backends import noisy_max_nodes
from ..backends.piece_series import flint_context
from ..losses.privacy_loss import (MAX_ENUMERATED_QUERIES, MAX_SHARED_QUERIES,
                                   at_once_or_alone)
from ..divergences.output_pairs import (FormCollector, OutputPair, certified_balls,
                                        exchangeable_pairs, output_probabilities)
from ..probability import evaluate, probability
from ..losses.worst_output import (Witness, best_witness, maximise_over_values, pair_witness,
                                   value_grid, worst_output)

#: Fewest inputs of a domain (``FormCollector.inputs``) from which ``exactdp verify`` collects
#: the forms of Gaussian noisy max's indices, each distinct form evaluated once, instead of a
#: pass over all answers of each input on shared nodes: ``noisy_max_gaussian`` on ``{0,1}^N``
#: takes 0.072 s (pass) against 0.089 s (forms) at N = 3, 0.141 s against 0.124 s at N = 4
#: (16 inputs) and 0.281 s against 0.174 s at N = 5 (benchmarks/verify_small_domains.py).
FORMS_SHARED_FROM = 16


def answer_counts(queries) -> Counter:
    """How often each distinct answer occurs."""
    counts: Counter = Counter()
    for value, count in as_queries(queries):
        counts[value] += count
    return counts


def index_form(mech: NoisyMaxMechanism, queries, index: int) -> IntegralForm:
    """``Pr[argmax = index]`` in the integral form (module docstring)."""
    answers = as_queries(queries).prefix(index + 1)
    own = answers.runs[-1][0]
    builder = IntegralBuilder(mech.noise)
    for value, count in answer_counts(queries).items():
        power = count - 1 if value == own else count
        if power:
            builder.add(mech.noise, Kind.CDF, value - own, power)
    return IntegralForm((make_term(Counter(), Counter({builder.build(): 1})),), is_density=False)


def value_form(mech: NoisyMaxMechanism, queries, v) -> IntegralForm:
    """The density of the largest noisy value at ``v`` in the integral form (module
    docstring)."""
    counts = answer_counts(queries)
    terms = []
    for own, own_count in counts.items():
        constants = Counter({(mech.noise, Kind.PDF, v - own): 1})
        for value, count in counts.items():
            power = count - 1 if value == own else count
            if power:
                constants[mech.noise, Kind.CDF, v - value] += power
        terms.append(make_term(constants, Counter(), multiplicity=own_count))
    return IntegralForm(tuple(terms), is_density=True)


def _single_entry(mech, output):
    """Noisy max outputs one number: accept it bare, or as a one-entry sequence or ``Runs``."""
    if isinstance(output, (Runs, list, tuple)):
        runs = as_output(output)
        if len(runs) != 1:
            raise InputError(f"not an output {mech.name} can produce: one number, got "
                             f"{len(runs)} entries")
        output = runs.runs[0][0]
    return output


def _index(mech: NoisyMaxMechanism, n: int, output) -> int:
    text = str(output).strip()
    if isinstance(output, bool) or not text.lstrip("+").isdigit() or not int(text) < n:
        raise InputError(f"not an output {mech.name} can produce: an index from 0 to {n - 1}, "
                         f"got {output!r}")
    return int(text)


@probability.register
def _(mech: NoisyMaxMechanism, queries, output, dps: int = 30, method: str = "auto"):
    queries, dps = as_queries(queries), check_dps(dps)
    output = _single_entry(mech, output)
    if mech.releases_value:
        form = value_form(mech, queries, to_fraction(output, "output value"))
        return evaluate(form, dps, method, f"{mech.name}: density of the largest value")
    form = index_form(mech, queries, _index(mech, len(queries), output))
    return evaluate(form, dps, method, f"{mech.name}: probability of the index")


@worst_output.register
def _(mech: NoisyMaxMechanism, d1: Runs, d2: Runs, dps: int) -> Witness:
    """The index: one index per distinct ``(d1_i, d2_i)`` (two such indices are swapped by a
    permutation that fixes both inputs, so their probabilities agree), by peak-aware quadrature.
    The largest value: :func:`maximise_over_values` with kinks at the query values — below all
    of them the Laplace density ratio is exactly ``e^{Σ_j (d2_j − d1_j)/b}`` (``nε/2`` when every
    query moves by Δ: CheckDP's BadNoisyMax)."""
    if mech.releases_value:
        grid = value_grid(set(d1.expand()) | set(d2.expand()), mech.noise.scale)
        return maximise_over_values(
            lambda values: pair_witness(mech, d1, d2, Runs.from_items(values), dps), [grid],
            True)[1]
    first_index = {}
    for i, pair in enumerate(zip(d1.expand(), d2.expand())):
        first_index.setdefault(pair, i)
    return best_witness(pair_witness(mech, d1, d2, Runs.from_items([Fraction(i)]), dps, "quad")
                         for i in first_index.values())


@output_probabilities.register
def _(mech: NoisyMaxMechanism, d: Runs, dps: int,
      collector: FormCollector | None = None) -> dict:
    """Every index's probability, one per distinct answer (:func:`_answer_balls`)."""
    _check_index(mech)
    answers = d.expand() if _enumerated(mech, len(d), "queries") else []
    by_answer = _answer_balls(mech, d, {answer: index for index, answer
                                        in reversed(list(enumerate(answers)))}, dps, collector)
    return {(index,): by_answer[answer] for index, answer in enumerate(answers)}


@exchangeable_pairs.register
def _(mech: NoisyMaxMechanism, d1: Runs, d2: Runs, dps: int) -> list[OutputPair]:
    """The indices ``i`` of equal ``(d1_i, d2_i)`` as one class each: a permutation of the
    queries that fixes both inputs permutes the indices, so those of one class have equal
    probabilities on each input (docs/mathematics.md §11, "Exchangeable outputs").  Each
    input's probability of a class is that of its first index, one per distinct answer: the
    work depends on the distinct answers and classes, not on how often each occurs
    (``0*1000000`` against ``1*1000000`` is one class)."""
    _check_index(mech)
    classes: dict = {}  # (d1_i, d2_i) → [first index, count]
    position = 0
    for answers, count in zip_runs(d1, d2):
        classes.setdefault(answers, [position, 0])[1] += count
        position += count
    _enumerated(mech, len(classes), "classes of equal (d1_i, d2_i) answers")
    sides = [_answer_balls(mech, d, {answers[side]: first
                                     for answers, (first, _) in reversed(classes.items())},
                           dps, None)
             for side, d in enumerate((d1, d2))]
    return [OutputPair(sides[0][answers[0]], sides[1][answers[1]], count, (first,))
            for answers, (first, count) in classes.items()]


def _answer_balls(mech: NoisyMaxMechanism, d: Runs, firsts: dict, dps: int,
                  collector: FormCollector | None) -> dict:
    """``{v: Pr[argmax = i]}`` on ``d`` for each answer ``v`` of ``firsts`` (``{v: an index i
    with d_i = v}``): on shared nodes for a smooth law (``noisy_max_nodes.answer_probabilities``)
    unless a ``collector`` gathers the forms of inputs of at most ``MAX_ENUMERATED_QUERIES``
    queries for a domain of many inputs (a caller sharing the forms across them, ``exactdp
    verify``, does better one answer at a time than with a pass of erfc's per input, where the
    queries are few and the inputs at least :data:`FORMS_SHARED_FROM`; the values are then
    the forms' positions, ``output_pairs.certified_balls``), else the certified probability
    of the index ``firsts[v]`` (also where the shared nodes fail, as at scales far below the
    answers' spread, whose bounds in double precision are too coarse, on at most
    ``MAX_ENUMERATED_QUERIES`` distinct answers)."""
    def at_once() -> dict:
        with flint_context(working_bits(dps, guard=COMBINE_GUARD_DIGITS)):
            return noisy_max_nodes.answer_probabilities(mech, answer_counts(d), dps)

    def alone() -> dict:
        balls = certified_balls(mech, {(index,): index_form(mech, d, index)
                                       for index in firsts.values()}, evaluate, dps, collector)
        return {answer: balls[(index,)] for answer, index in firsts.items()}

    shared = noisy_max_nodes.applies(mech) and (collector is None
                                                or collector.inputs < FORMS_SHARED_FROM
                                                or len(d) > MAX_ENUMERATED_QUERIES)
    return at_once_or_alone(shared, len(firsts), at_once, alone)


def _check_index(mech: NoisyMaxMechanism) -> None:
    """:class:`~exactdp.errors.MethodUnavailableError` for noisy max releasing its value."""
    if mech.releases_value:
        raise MethodUnavailableError(f"{mech.name} releases the largest noisy value: of its "
                                     f"divergences only D_∞ is computed (Rényi α = inf)")


def _enumerated(mech: NoisyMaxMechanism, outputs: int, what: str) -> int:
    """``outputs``, the number of outputs of distinct probabilities (``what``: the queries, or
    the classes of equal answers), checked: at most ``MAX_SHARED_QUERIES`` where they are
    evaluated at once on shared nodes, else ``MAX_ENUMERATED_QUERIES``."""
    limit = (MAX_SHARED_QUERIES if noisy_max_nodes.applies(mech)
             else MAX_ENUMERATED_QUERIES)
    if outputs > limit:
        raise InputError(f"a divergence enumerates every output: at most {limit} {what} for "
                         f"{mech.name}, got {outputs}")
    return outputs
