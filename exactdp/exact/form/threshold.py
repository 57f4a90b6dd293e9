"""From (Sparse Vector mechanism, queries, output) to the integral form.

``Pr[M(D) = a] = C · Π_k I_k`` where each ``I_k`` is an integral over the threshold noise::

    I = ∫_{lower}^{upper} p_{b_ρ}(z) · Π_j F_{b_ν}(z − s_j)^{m_j} · Π_k S_{b_ν}(z − s_k)^{n_k} dz

with ``s = q_i − T`` (Lyu, Su & Li, PVLDB 2017, Eq. 5: answer ⊤ iff ``q_i + ν_i ≥ T + ρ``, so
``Pr[⊥ | ρ = z] = F(T + z − q_i)`` and ``Pr[⊤ | ρ = z] = S(T + z − q_i)``).  Identical factors are
grouped into powers, so the cost depends on the number of distinct factors, never on n.

Variations (docs/mathematics.md):

* no query noise (``b_ν = 0``): ``F_0``/``S_0`` are indicators, i.e. the bounds ``z > s`` (⊥) and
  ``z ≤ s`` (⊤);
* release of the compared noisy value ``v`` (Lyu Alg. 3): the constant density ``p_{b_ν}(v − q)``
  and the bound ``z ≤ v − T``;
* release of a fresh noisy value (Lyu Alg. 7, ε3 > 0): the ⊤ factor times ``p_{b_3}(v − q)``;
* release of the gap ``g = q + ν − (T + ρ)`` (GapSVT): ``ν = g + T + z − q``, so the ⊤ factor is the
  density ``p_{b_ν}(z − (q − T − g))``; a negative gap is impossible (an exact zero);
* threshold redrawn after each ⊤ (Lyu Alg. 2): one integral per segment ending in a ⊤, identical
  segments grouped into powers;
* cutoff c: the output stops right after the c-th ⊤.
"""

from __future__ import annotations

from collections import Counter

from ...errors import InputError
from ...mechanisms.description import Release, ThresholdMechanism
from ...noise import Kind
from ...sequences import Runs, as_output, as_queries, format_number, zip_runs
from .integral_form import IntegralBuilder, IntegralForm, make_term


def check_output_shape(mech: ThresholdMechanism, n_queries: int, output: Runs) -> None:
    """Raise :class:`InputError` unless ``output`` is a possible output shape of ``mech`` on
    ``n_queries`` queries (token types, cutoff, length)."""
    what = f"not an output {mech.name} can produce"
    cutoff = mech.cutoff
    total_tops = sum(count for token, count in output if token is not False)
    if cutoff is not None and total_tops > cutoff:
        raise InputError(f"{what}: it stops after the c-th ⊤ (c={cutoff}), got {total_tops} ⊤ "
                         f"entries")
    tops = 0
    position = 0
    for token, count in output:
        if cutoff is not None and tops == cutoff:
            raise InputError(f"{what}: it stops after the c-th ⊤ (c={cutoff}), but the output "
                             f"goes on after entry {position}")
        if token is True and mech.releases_numbers:
            raise InputError(f"{what}: it releases a number at each ⊤, got T")
        if token is not True and token is not False and not mech.releases_numbers:
            raise InputError(f"{what}: it outputs only T/F, got the number {format_number(token)}")
        if token is not False:
            tops += count
        position += count
    length = len(output)
    if length > n_queries:
        raise InputError(f"{what}: output length {length} exceeds the number of queries "
                         f"{n_queries}")
    ends_at_cutoff = cutoff is not None and tops == cutoff and output.runs[-1][0] is not False
    if length < n_queries and not ends_at_cutoff:
        raise InputError(f"{what}: output length {length} is shorter than the number of queries "
                         f"{n_queries} but does not end with the c-th ⊤")


def build_output_integral(mech: ThresholdMechanism, queries, output) -> IntegralForm:
    """Write ``Pr[mech(queries) = output]`` in the integral form (one term).

    Parameters
    ----------
    mech : ThresholdMechanism
    queries : Runs, str or sequence of numbers
        The query answers ``q_1..q_n``.
    output : Runs, str or sequence of tokens
        ``T``/``F``/numbers; may stop early right after the c-th ⊤.
    """
    queries, output = as_queries(queries), as_output(output)
    mech.check_queries(queries)
    check_output_shape(mech, len(queries), output)
    hub, query_noise = mech.threshold_noise, mech.query_noise
    threshold = mech.threshold
    integrals: Counter = Counter()
    constants: Counter = Counter()
    segment = IntegralBuilder(hub)
    for (q, token), count in zip_runs(queries.prefix(len(output)), output):
        shift = q - threshold
        if token is False:
            segment.add(query_noise, Kind.CDF, shift, count)
            continue
        if mech.release is Release.GAP:
            if token < 0:  # q + ν ≥ T + ρ: the released gap is never negative
                segment.make_impossible()
            segment.add(query_noise, Kind.PDF, shift - token, count)
        elif mech.release is Release.NOISY_VALUE:
            # ⊤ iff v = q + ν ≥ T + z; ν has density p_{b_ν}(v − q).
            constants[query_noise, Kind.PDF, token - q] += count
            segment.bound_above(token - threshold)
        else:
            if mech.release is Release.FRESH_VALUE:
                constants[mech.release_noise, Kind.PDF, token - q] += count
            segment.add(query_noise, Kind.SF, shift, count if not mech.redraw_threshold else 1)
        if mech.redraw_threshold:
            # Each ⊤ ends a threshold draw; the remaining count−1 ⊤'s each form a one-factor
            # segment.
            integrals[segment.build()] += 1
            if count > 1:
                single = IntegralBuilder(hub)
                single.add(query_noise, Kind.SF, shift, 1)
                integrals[single.build()] += count - 1
            segment = IntegralBuilder(hub)
    if not mech.redraw_threshold or not segment.is_trivial or not integrals:
        integrals[segment.build()] += 1
    return IntegralForm((make_term(constants, integrals),), is_density=mech.releases_numbers)
