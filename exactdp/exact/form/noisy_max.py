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
from ...sequences import Runs, as_output, as_queries, to_fraction
from .integral_form import IntegralBuilder, IntegralForm, make_term
from ..backends import noisy_max_nodes
from ..backends.piece_series import flint_context
from ..losses.privacy_loss import (MAX_ENUMERATED_QUERIES, MAX_SHARED_QUERIES,
                                   at_once_or_alone)
from ..divergences.output_pairs import (FormCollector, certified_balls,
                                        output_probabilities)
from ..probability import evaluate, probability
from ..losses.worst_output import (Witness, best_witness, maximise_over_values, pair_witness,
                                   value_grid, worst_output)


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
    """Every index's probability: all at once on shared nodes for a smooth law
    (``backends/noisy_max_nodes.py``) unless a ``collector`` gathers the forms of inputs of at
    most ``MAX_ENUMERATED_QUERIES`` queries, else each index's certified probability (also
    where the shared nodes fail, as at scales far below the answers' spread, whose bounds in
    double precision are too coarse, up to ``MAX_ENUMERATED_QUERIES`` queries)."""
    indices = _indices(mech, len(d))

    def at_once() -> dict:
        with flint_context(working_bits(dps, guard=COMBINE_GUARD_DIGITS)):
            balls = noisy_max_nodes.index_probabilities(mech, d.expand(), dps)
        return {tuple(index): ball for index, ball in zip(indices, balls)}

    # a caller sharing the forms across many inputs (``collector``) does better one index at a
    # time than with a pass of erfc's per input, where there are few (``exactdp verify``)
    shared = noisy_max_nodes.applies(mech) and (collector is None
                                                or len(d) > MAX_ENUMERATED_QUERIES)
    return at_once_or_alone(shared, len(d), at_once, lambda: certified_balls(
        mech, {tuple(index): index_form(mech, d, index[0]) for index in indices}, evaluate, dps,
        collector))


def _indices(mech: NoisyMaxMechanism, n: int) -> list[list[int]]:
    """The outputs of noisy max releasing an index: ``[0], …, [n − 1]`` (ties have
    probability 0), up to ``MAX_SHARED_QUERIES`` where they are evaluated at once on shared
    nodes, else ``MAX_ENUMERATED_QUERIES``."""
    if mech.releases_value:
        raise MethodUnavailableError(f"{mech.name} releases the largest noisy value: of its "
                                     f"divergences only D_∞ is computed (Rényi α = inf)")
    limit = (MAX_SHARED_QUERIES if noisy_max_nodes.applies(mech)
             else MAX_ENUMERATED_QUERIES)
    if n > limit:
        raise InputError(f"a divergence enumerates every output: at most {limit} queries for "
                         f"{mech.name}, got {n}")
    return [[index] for index in range(n)]
