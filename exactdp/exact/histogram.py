"""Exact output densities of the noisy histogram in the integral form (``HistogramMechanism``,
``@probability.register``).

The bins are independent: the density of the noisy vector ``v`` is ``Π_i p(v_i − q_i)`` (only
``p(v_1 − q_1)`` for StatDP's first-bin versions), one term of constant densities without an
integral (Dwork & Roth 2014, §3.3).
"""

from __future__ import annotations

from collections import Counter

from ..errors import InputError
from ..mechanisms.histogram import HistogramMechanism
from ..noise import Kind
from ..precision import check_dps
from ..sequences import Runs, as_output, as_queries, zip_runs
from .integral_form import IntegralForm, make_term
from .probability import evaluate, probability
from .worst_output import Witness, pair_witness, worst_output


def density_form(mech: HistogramMechanism, queries, output) -> IntegralForm:
    """The density of ``output`` in the integral form; an :class:`InputError` unless it has one
    number per bin (one in all for the first-bin versions)."""
    answers, values = as_queries(queries), as_output(output)
    if mech.first_bin_only:
        answers = answers.prefix(1)
    if len(values) != len(answers) or any(v is True or v is False for v, _ in values):
        raise InputError(f"not an output {mech.name} can produce: {len(answers)} number(s), got "
                         f"{output!r}")
    constants: Counter = Counter()
    for (v, q), count in zip_runs(values, answers):
        constants[mech.noise, Kind.PDF, v - q] += count
    return IntegralForm((make_term(constants, Counter()),), is_density=True)


@probability.register
def _(mech: HistogramMechanism, queries, output, dps: int = 30, method: str = "auto"):
    return evaluate(density_form(mech, queries, output), check_dps(dps), method,
                    f"{mech.name}: density of the output")


@worst_output.register
def _(mech: HistogramMechanism, d1: Runs, d2: Runs, dps: int) -> Witness:
    """The noiseless output ``v = d1`` (its first bin for StatDP's views): the log density ratio
    ``Σ_i (|v_i − d2_i| − |v_i − d1_i|)/b`` is at most ``Σ_i |d1_i − d2_i|/b`` (triangle
    inequality), with equality at ``v = d1`` (Dwork & Roth §3.3)."""
    output = d1.prefix(1) if mech.first_bin_only else d1
    return pair_witness(mech, d1, d2, output, dps)
