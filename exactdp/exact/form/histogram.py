"""Exact output densities of the noisy histogram in the integral form (``HistogramMechanism``,
``@probability.register``).

The bins are independent: the density of the noisy vector ``v`` is ``Π_i p(v_i − q_i)`` (only
``p(v_1 − q_1)`` for StatDP's first-bin versions), one term of constant densities without an
integral (Dwork & Roth 2014, §3.3).  With integer-valued noise (the noisy counts of
``count_discrete_gaussian``) ``p`` is the mass, and the product a probability.
"""

from __future__ import annotations

from collections import Counter

from ...errors import InputError, MethodUnavailableError
from ...mechanisms.histogram import HistogramMechanism
from ...noise import Kind, Laplace
from ...precision import check_dps
from ...sequences import Runs, as_output, as_queries, to_fraction, zip_runs
from .integral_form import IntegralForm, make_term
from ..divergences.output_pairs import LocationShift, location_shift, location_shift_of
from ..probability import evaluate, probability
from ..losses.worst_output import Witness, pair_witness, worst_output


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
    return IntegralForm((make_term(constants, Counter()),),
                        is_density=not mech.noise.integer_valued)


@probability.register
def _(mech: HistogramMechanism, queries, output, dps: int = 30, method: str = "auto"):
    form = density_form(mech, queries, output)
    return evaluate(form, check_dps(dps), method,
                    f"{mech.name}: {'density' if form.is_density else 'probability'} of the "
                    f"output")


@worst_output.register
def _(mech: HistogramMechanism, d1: Runs, d2: Runs, dps: int) -> Witness:
    """The noiseless output ``v = d1`` (its first bin for StatDP's views): the log density ratio
    ``Σ_i (|v_i − d2_i| − |v_i − d1_i|)/b`` is at most ``Σ_i |d1_i − d2_i|/b`` (triangle
    inequality), with equality at ``v = d1`` (Dwork & Roth §3.3).  That argument is the Laplace
    law's: for another law (the discrete Gaussian's log mass ratio grows linearly in ``v``,
    without bound) there is no worst output, and the search is refused in one line."""
    if not isinstance(mech.noise, Laplace):
        raise MethodUnavailableError(f"{mech.name}: the loss of {mech.noise} noise grows without "
                                     f"bound as a bin moves away from its answer: no worst "
                                     f"output to search for")
    output = d1.prefix(1) if mech.first_bin_only else d1
    return pair_witness(mech, d1, d2, output, dps)


@location_shift.register
def _(mech: HistogramMechanism, d1: Runs, d2: Runs) -> LocationShift:
    """The one bin in which the histograms differ (the first when none does): the other bins
    are independent and identically distributed on both inputs, so the ratio of the joint
    densities is that of this bin, and every divergence is the bin's."""
    q1, q2 = d1.expand(), d2.expand()
    bins = range(1 if mech.first_bin_only else len(q1))
    differing = [i for i in bins if q1[i] != q2[i]] or [0]
    if len(differing) > 1:
        raise MethodUnavailableError(f"{mech.name}: {len(differing)} bins differ; divergences "
                                     f"of released numbers are computed for one number q + η "
                                     f"(neighbouring histograms differ in one bin)")
    index, = differing
    return location_shift_of(mech.noise, to_fraction(q1[index], "a query"),
                             to_fraction(q2[index], "a query"), index,
                             d1.prefix(1) if mech.first_bin_only else d1, mech.name)
