"""Exact densities of the noisy-sum family (``exactdp.mechanisms.sums``).

Output ``j`` is ``o_j = carry_j·o_{j−1} + s_j + η_j`` with ``s_j`` a sum of queries and
``η_j ~ Lap(b_j)`` independent.  The map ``η ↦ o`` is triangular with unit diagonal (Jacobian 1),
so the density of a point output is the product of the noise densities at the residuals::

    f(o) = Π_{j: b_j > 0} p_{b_j}(r_j) · Π_{j: b_j = 0} 1[r_j = 0],
    r_j = o_j − carry_j·o_{j−1} − s_j

(change of variables, e.g. Casella & Berger Thm 4.6.15; ``p_b`` the Laplace density of
``exactdp.noise``).  The density is with respect to Lebesgue measure on the noisy coordinates and
counting measure on the exact ones, the same reference measure for every input, so the ratio of two
such densities is the privacy loss (mixed discrete/continuous outputs, docs/mathematics.md).
Residuals are exact rationals: a deterministic coordinate that misses gives an exact zero, never an
underflow.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import mpmath
from mpmath import mpf

from ...errors import InputError
from ...mechanisms.sums import NoisySum
from ...noise import Kind, Laplace
from ...sequences import Runs, as_output, as_queries, format_number
from ...precision import to_mpf
from ...precision import (CERTIFIED_METHODS, Probability, check_dps, check_method, unit_roundoff,
                         working_dps)
from .integral_form import IntegralForm, make_term
from ..losses.privacy_loss import privacy_loss
from ..probability import evaluate, probability
from ..losses.worst_output import Witness, worst_event, worst_output


def prefix_sums(queries: Runs) -> list[Fraction]:
    """``[0, q_0, q_0 + q_1, …]``: the sum of ``q[first:last]`` is ``P[last] − P[first]``."""
    sums = [Fraction(0)]
    for value in queries.expand():
        sums.append(sums[-1] + value)
    return sums


def noiseless_output(mech: NoisySum, queries) -> list[Fraction]:
    """The output with every noise term at 0 (the mode of the density).

    Examples
    --------
    >>> from exactdp import mechanism
    >>> [str(v) for v in noiseless_output(mechanism("smart_sum", M=2), [1, 2, 3])]
    ['1', '3', '6']
    """
    sums = prefix_sums(as_queries(queries))
    output: list[Fraction] = []
    for term in mech.terms(len(sums) - 1):
        previous = output[-1] if term.carry else 0
        output.append(previous + sums[term.last] - sums[term.first])
    return output


def residuals(mech: NoisySum, queries, output) -> list[tuple[Fraction, Fraction]]:
    """``(r_j, b_j)`` for every output coordinate: the noise value that produces ``output``.

    Raises :class:`InputError` unless ``output`` is a list of numbers of the mechanism's length.
    """
    queries = as_queries(queries)
    values = as_output(output).expand()
    expected = mech.output_length(len(queries))
    if len(values) != expected or any(isinstance(v, bool) for v in values):
        raise InputError(f"not an output this mechanism can produce: {mech.name} releases "
                         f"{expected} number(s) on {len(queries)} queries, got {as_output(output)}")
    mode = noiseless_output(mech, queries)
    result = []
    for j, term in enumerate(mech.terms(len(queries))):
        # o_j − carry·o_{j−1} − s_j = (o_j − mode_j) − carry·(o_{j−1} − mode_{j−1})
        shift = values[j - 1] - mode[j - 1] if term.carry else 0
        result.append((values[j] - mode[j] - shift, term.scale))
    return result


def log_density_ratio(mech: NoisySum, d1, d2, output) -> Fraction | None:
    """``ln(f_{d1}(o)/f_{d2}(o))`` exactly, or None when a density is an exact zero.

    Both densities are products of ``p_{b_j}(r_j) = e^{−|r_j|/b_j}/(2b_j)`` over the same noisy
    coordinates (module docstring), so the ratio is ``Σ_j (|r_j(d2)| − |r_j(d1)|)/b_j``: an exact
    rational.

    Examples
    --------
    >>> from exactdp import mechanism
    >>> log_density_ratio(mechanism("partial_sum", eps=1), [1], [2], [1])
    Fraction(1, 1)
    """
    sides = [residuals(mech, queries, output) for queries in (d1, d2)]
    if any(scale == 0 and r != 0 for pairs in sides for r, scale in pairs):
        return None
    return sum((Fraction(abs(r2) - abs(r1)) / scale
                for (r1, scale), (r2, _) in zip(*sides) if scale > 0), Fraction(0))


@probability.register
def _(mech: NoisySum, queries, output, dps: int = 30, method: str = "auto") -> Probability:
    """Closed-form density of a noisy-sum output (module docstring); every method is the closed
    form, exact up to the rounding of one logarithm per coordinate."""
    dps, _ = check_dps(dps), check_method(method)
    pairs = residuals(mech, queries, output)
    is_density = any(scale > 0 for _, scale in pairs)
    if any(scale == 0 and r != 0 for r, scale in pairs):
        return evaluate(IntegralForm((), is_density), dps, method)
    if method in CERTIFIED_METHODS:  # the same product, as a term of constant densities
        densities = Counter((Laplace(scale), Kind.PDF, r) for r, scale in pairs if scale > 0)
        return evaluate(IntegralForm((make_term(densities, Counter()),), is_density), dps, method,
                        f"{mech.name}: density")
    magnitude = sum(1 + abs(r) / scale for r, scale in pairs if scale > 0)
    with mpmath.workdps(working_dps(dps, magnitude + 1)):
        log_value, size = mpf(0), mpf(0)
        for r, scale in pairs:
            if scale > 0:
                term = Laplace(scale).logpdf(to_mpf(r))
                log_value += term
                size += abs(term) + 1
        # each log is rounded, and its argument too: the sum's absolute error (a relative error
        # of the density) is a few units of roundoff times the terms' sizes
        return Probability.from_log(log_value, 4 * (size + 1) * unit_roundoff(), "closed",
                                    is_density, dps, f"{mech.name}: density", method)


@worst_output.register
def _(mech: NoisySum, d1: Runs, d2: Runs, dps: int) -> Witness:
    """The noiseless output of ``d1``.

    ``ln(f1/f2) = Σ_j (|r_j + δ_j| − |r_j|)/b_j`` with ``r_j`` the residuals under ``d1`` and
    ``δ_j = s_j(d1) − s_j(d2)`` independent of the output (``exactdp.exact.form.sums``); each term
    is at
    most ``|δ_j|/b_j`` (``+∞`` for a deterministic coordinate, ``b_j = 0``), with equality at
    ``r = 0``.  So the point ``r = 0`` attains the supremum ``Σ_j |δ_j|/b_j`` exactly.
    """
    output = Runs.from_items(noiseless_output(mech, d1))
    return Witness(d1, d2, output, privacy_loss(mech, d1, d2, output, dps, allow_any_pair=True))




@worst_event.register
def _(mech: NoisySum, d1: Runs, d2: Runs) -> str | None:
    """For an infinite loss, ``o_j = s_j(d1)`` on every deterministic coordinate where the inputs
    differ (probability 1 under ``d1``, 0 under ``d2``); for PartialSum's single output the tail
    ``o ≥ s(d1)`` (or ``≤``), whose ratio ``S_b(0)/S_b(|δ|) = e^{|δ|/b}`` is the density supremum.
    Otherwise ``None``."""
    mode1, mode2 = noiseless_output(mech, d1), noiseless_output(mech, d2)
    terms = mech.terms(len(d1))
    exact = [f"out{j} = {format_number(a)}"
             for j, (a, b, term) in enumerate(zip(mode1, mode2, terms))
             if term.scale == 0 and a != b]
    if exact:
        return " and ".join(exact)
    if len(terms) == 1 and mode1[0] != mode2[0]:
        return f"out0 {'>=' if mode1[0] > mode2[0] else '<='} {format_number(mode1[0])}"
    return None
