"""The worst output of one pair for the Sparse Vector family (``losses/worst_output.py``'s rule for
:class:`~exactdp.mechanisms.description.ThresholdMechanism`): every ⊤/⊥ pattern scored exactly,
the released numbers of a pattern chosen over their kinks and grid.
"""

from __future__ import annotations

import math
from dataclasses import replace
from fractions import Fraction

from ...mechanisms.description import Release, ThresholdMechanism
from ...sequences import Runs
from ..backends import output_tree
from .privacy_loss import possible_outputs, worst_of_all_outputs
from .worst_output import (Witness, best_witness, maximise_over_values, pair_witness,
                           scored_outputs, value_grid, worst_output)


def _release_candidates(mech: ThresholdMechanism, d1: Runs, d2: Runs) -> list[Fraction]:
    """:func:`value_grid` of a released number: kinks at ``T`` and the query values (a released
    value ``v``: the bound ``z ≤ v − T`` meets the kinks ``0, s_j`` of the integral form, and
    ``p(v − q_i)`` has its own at ``v = q_i``); for a gap ``g ≥ 0`` the kink ``z = s_i − g`` of
    ``p_ν`` meets them at ``g = s_i − s_j`` and ``g = s_i``, differences of the same levels."""
    levels = {mech.threshold} | set(d1.expand()) | set(d2.expand())
    if mech.release is Release.GAP:
        return value_grid({a - b for a in levels for b in levels if a >= b}, mech.query_scale,
                          lower=Fraction(0))
    scale = mech.release_scale if mech.release is Release.FRESH_VALUE else mech.query_scale
    return value_grid(levels, scale)


@worst_output.register
def _(mech: ThresholdMechanism, d1: Runs, d2: Runs, dps: int) -> Witness:
    """Every ⊤/⊥ pattern of ``possible_outputs`` (on the flag version of ``mech``) scored with
    the closed form (all at once where ``output_tree.applies``); for a mechanism that releases
    numbers at the ⊤'s, the numbers of each pattern are chosen by :func:`maximise_over_values`
    (coarse), and the best pattern's are refined.  The sum-to-one check and two-method
    recomputation of ``max_privacy_loss`` are left to :func:`search`, which does them once for
    the final witness.  Discrete noise has no closed form: its patterns are scored by the
    certified sum over the integers."""
    method = "certified" if mech.law.integer_valued else "closed"
    if not mech.releases_numbers and output_tree.applies(mech):  # every output at once
        best, _ = worst_of_all_outputs(mech, d1, d2, list(possible_outputs(mech, len(d1))), dps)
        return pair_witness(mech, d1, d2, Runs.from_items(best), dps)
    flags = replace(mech, release=Release.FLAG, release_scale=None)
    grid = _release_candidates(mech, d1, d2) if mech.releases_numbers else []

    def pattern_witness(pattern, refine):
        tops = [i for i, answer in enumerate(pattern) if answer]

        def witness_at(values):
            items = list(pattern)
            for i, v in zip(tops, values):
                items[i] = v
            return pair_witness(mech, d1, d2, Runs.from_items(items), dps, method)

        if not mech.releases_numbers or not tops:
            return witness_at([])
        return maximise_over_values(witness_at, [grid] * len(tops), refine)[1]

    patterns = list(possible_outputs(flags, len(d1)))
    best = best_witness(pattern_witness(pattern, False) for pattern in patterns)
    pattern = [item is not False for item in best.output.expand()]
    return pattern_witness(pattern, True) if mech.releases_numbers and any(pattern) else best


@scored_outputs.register
def pattern_count(mech: ThresholdMechanism, n: int) -> int:
    """How many ⊤/⊥ patterns ``mech`` can produce on ``n`` queries: ``Σ_{k ≤ min(c, n)} C(n, k)``
    with cutoff ``c`` (fewer than ``c`` ⊤'s, or stopped at the ``c``-th ⊤ after ``m ≤ n``
    queries: ``Σ_{m=c}^{n} C(m−1, c−1) = C(n, c)``), ``2^n`` without.

    Examples
    --------
    >>> import exactdp
    >>> from exactdp.exact.losses.privacy_loss import possible_outputs
    >>> m = exactdp.mechanism("svt1", c=2)
    >>> pattern_count(m, 4) == sum(1 for _ in possible_outputs(m, 4))
    True
    """
    cutoff = n if mech.cutoff is None else min(mech.cutoff, n)
    return sum(math.comb(n, k) for k in range(cutoff + 1))
