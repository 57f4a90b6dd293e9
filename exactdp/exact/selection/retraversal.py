"""Sparse Vector with retraversal (``svt_retraversal``; Lyu, Su & Li, "Understanding the Sparse
Vector Technique for Differential Privacy", PVLDB 10(6), 2017, §5) as a selection kind, in the
given order: a sum over traversals of the queries, the dropped ones bounded
(docs/mathematics.md §12.4).
"""

from __future__ import annotations

import bisect
import functools
import math
from fractions import Fraction

import numpy as np
from flint import arb

from ...errors import InputError, PrecisionError
from ...mechanisms.selection import RetraversalMechanism
from ...precision import to_arb
from ..backends.vector_quadrature import integrate_vector
from .kinds import EVALUATION_COST, SelectionKind, in_intervals_first, register_kind
from .pass_probabilities import PassProbabilities

#: Most traversals of Sparse Vector with retraversal modelled exactly.
MAX_TRAVERSALS = 200_000


def retraversal(mech: RetraversalMechanism, values: list, c: int, tolerance: arb,
                progress, arithmetic, jobs: int) -> list:
    """Given the threshold noise ``z``, query ``i`` first passes in traversal ``R_i``
    (geometric: ``Pr[R_i = r] = S_i F_i^{r−1}``), independently; it is selected iff fewer than
    ``c`` others come before ``(R_i, i)`` in the order of traversals then positions:
    ``P[i | z] = Σ_r S_i F_i^{r−1} Q_{i,r}``, ``Q_{i,r} = Pr[fewer than c of {j < i: R_j ≤ r}
    ∪ {j > i: R_j ≤ r − 1}]``.  The threshold noise's range is cut into cells; on cell ``k`` the
    first ``R_k`` traversals are integrated and the rest, at most ``F_i^{R_k}·Q_{i,R_k+1}``
    (increasing in ``z``), are bounded (:func:`traversals_per_cell`; docs/mathematics.md
    §12.4): few traversals where queries often pass, many only where the threshold noise is
    likely enough to need them.  The traversals are computed in chunks, each a recurrence over
    the queries vectorised over its traversals (:func:`_traversal_chunk`), in ``arithmetic``
    (``exact/backends/interval_arrays.py``)."""
    hub = mech.threshold_noise
    laws = PassProbabilities(hub, mech.query_noise, mech.threshold, values, tolerance)
    grid = _grid(laws.cuts, hub.scale)
    masses, fails_at_ends = [], []
    for a, b in zip(grid, grid[1:]):
        masses.append(laws.hub_mass(a, b))
        fails_at_ends.append(laws(to_arb(b), (a + b) / 2)[2])
    searched = None if progress is None else (
        lambda done: progress(0, note=f"traversals modelled: {done}"))
    per_cell, remainder = traversals_per_cell(arithmetic, fails_at_ends, masses, c,
                                               tolerance / 8, searched)

    def traversals_at(middle: Fraction) -> int:
        return per_cell[bisect.bisect_right(grid, middle) - 1]

    def evaluate(z, middle):
        density, _, fails = laws(z, middle)
        fails = arithmetic.lift(fails)
        passing = arithmetic.one_minus(fails)
        total = arithmetic.constant(0, (len(values),))
        earliest = arithmetic.constant(1, (len(values),))  # F^{r−1} at the chunk's first r
        sizes = _chunk_sizes(traversals_at(middle), len(values), c)
        table = _powers(arithmetic, fails, max(sizes, default=0) + 1)
        for size in sizes:
            earlier, fewer, earliest = _traversal_chunk(arithmetic, table, earliest, size, c)
            weights = arithmetic.mul(passing[..., None], earlier)  # S_i F_i^{r−1}
            total = arithmetic.add(total, arithmetic.total(arithmetic.mul(weights, fewer), -1))
        return [density * p for p in arithmetic.balls(total)]

    def bound(z, middle):
        density, passes, fails = laws.distinct_values(z, middle)
        return abs(density) * traversal_bound(arithmetic, passes, fails, laws.counts,
                                               traversals_at(middle))

    results = integrate_vector(evaluate, bound, grid, laws.tails, tolerance, progress,
                               EVALUATION_COST, jobs=jobs)
    return [p + arb(0, remainder.upper()) for p in results]


#: Most traversals computed in one vectorised chunk (:func:`_traversal_chunk`), and most
#: entries of its largest array (the functionals: queries × c × traversals, 16 bytes each in
#: double intervals), which bounds its memory.
TRAVERSAL_CHUNK = 512
CHUNK_ENTRIES = 4_000_000
#: The first chunk of the search for the traversals each cell needs
#: (:func:`traversals_per_cell`); the chunks double from there up to the largest.
FIRST_SEARCH_CHUNK = 16


def largest_chunk(n: int, c: int) -> int:
    """The most traversals per chunk for ``n`` queries and cutoff ``c``."""
    return max(1, min(TRAVERSAL_CHUNK, CHUNK_ENTRIES // (n * c)))


def _chunk_sizes(traversals: int, n: int, c: int) -> list:
    """``traversals`` split into chunks of at most :func:`largest_chunk` traversals."""
    full, rest = divmod(traversals, largest_chunk(n, c))
    return [largest_chunk(n, c)] * full + ([rest] if rest else [])


def _powers(arithmetic, bases, count: int):
    """``bases^k`` for ``k = 0 … count − 1`` (shape ``(len(bases), count)``), by doubling."""
    table = np.concatenate((arithmetic.constant(1, (bases.shape[-1], 1)), bases[..., None]),
                           axis=-1)
    while table.shape[-1] < count:
        top = arithmetic.mul(table[..., -1:], bases[..., None])  # bases^{columns}
        table = np.concatenate((table, arithmetic.mul(table, top)), axis=-1)
    return table[..., :count]


def _traversal_chunk(arithmetic, table, earliest, size: int, c: int) -> tuple:
    """For the ``size`` traversals ``r`` from the one where ``F_i^{r−1}`` is ``earliest``: the
    arrays ``F_i^{r−1}`` and ``Q_{i,r}`` (:func:`retraversal`), shape ``(n, size)``, and
    ``F_i^{r−1}`` for the traversal after the chunk (``table``: ``F_i^k`` for ``k = 0 …`` at
    least ``size``, :func:`_powers`).  ``Q`` follows the recurrences of
    :func:`~exactdp.exact.selection.generating.weighted_around` over the queries (the prefix
    ``Π_{j<i}(F_j^r + (1 − F_j^r)y)`` truncated at degree ``c``, and the functional
    ``u_k = Pr[fewer than c − k of the queries after i passed by traversal r − 1]``), each step
    one operation on the whole chunk."""
    earlier = arithmetic.mul(earliest[..., None], table[..., :size])  # F^{r−1}
    later = arithmetic.mul(earliest[..., None], table[..., 1:size + 1])  # F^r
    return earlier, _fewer_in_traversal(arithmetic, earlier, later, c), later[..., -1].copy()


def _fewer_in_traversal(arithmetic, earlier, later, c: int):
    """``Q_{i,r}`` for every traversal of a chunk (:func:`_traversal_chunk`): the prefix and
    the functional are arrays of shape ``(c, chunk)``."""
    n, size = earlier.shape[-2:]
    passed_earlier, passed_later = arithmetic.one_minus(earlier), arithmetic.one_minus(later)
    zero = arithmetic.constant(0, (1, size))
    functional, functionals = arithmetic.constant(1, (c, size)), [None] * n
    for i in range(n - 1, -1, -1):
        functionals[i] = functional
        shifted = np.concatenate((functional[..., 1:, :], zero), axis=-2)
        functional = arithmetic.mul_add(earlier[..., i, None, :], functional,
                                        passed_earlier[..., i, None, :], shifted)
    prefix = np.concatenate((arithmetic.constant(1, (1, size)),
                             arithmetic.constant(0, (c - 1, size))), axis=-2)
    fewer = []
    for i in range(n):
        fewer.append(arithmetic.dot(prefix, functionals[i]))
        shifted = np.concatenate((zero, prefix[..., :-1, :]), axis=-2)
        prefix = arithmetic.mul_add(later[..., i, None, :], prefix, passed_later[..., i, None, :],
                                    shifted)
    return np.stack(fewer, axis=-2)


@np.errstate(over="ignore", invalid="ignore")
def traversal_bound(arithmetic, passes: list, fails: list, counts: list,
                    traversals: int) -> arb:
    """A bound on every ``|Σ_{r≤R} S_i F_i^{r−1} Q_{i,r}|`` on complex balls (``R`` =
    ``traversals``; ``passes``, ``fails`` of the distinct answers, ``counts`` their
    multiplicities).  With ``a_j ≥ |F_j|``, ``s_j ≥ |S_j|``: ``|S_i F_i^{r−1}| ≤ s_i a_i^{r−1}``
    and the coefficients of ``Q``'s factors sum to at most
    ``f_j(r) = a_j^r + s_j Σ_{k<r} a_j^k`` (``1 − F^r = S·Σ_{k<r} F^k``), so the sum is at most
    ``Σ_r max_i s_i a_i^{r−1} Π_j f_j(r)^{n_j}``.  Each ``f_j`` is nondecreasing in ``r``
    (``f_j(r + 1) − f_j(r) = a_j^r (a_j + s_j − 1) ≥ 0``, as ``|F_j| + |S_j| ≥ |F_j + S_j| = 1``)
    and each ``a_i^{r−1}`` monotone, so on a block ``p ≤ r ≤ p'`` of traversals the terms are at
    most ``max_i s_i max(a_i^{p−1}, a_i^{p'−1})·Π_j f_j(p')^{n_j}``: the bound sums that times
    the block's length over at most :data:`BOUND_BLOCKS` blocks (every traversal its own block
    up to the first :data:`BOUND_BLOCKS`/2, then geometrically growing ones; fewer where the
    distinct answers times the blocks would exceed :data:`CHUNK_ENTRIES`).  Off the real
    line ``a_j`` may exceed 1 and the powers overflow double precision: their upper ends become
    ``+inf`` (the bound is then infinite, that ellipse unusable) and lower ends may become NaN
    (``0·inf``); only upper ends enter the bound."""
    if traversals == 0:
        return arb(0)
    sizes = arithmetic.lift([arb(abs(f).upper()) for f in fails])
    passing = arithmetic.lift([arb(abs(s).upper()) for s in passes])
    half = max(1, min(BOUND_BLOCKS, CHUNK_ENTRIES // len(fails)) // 2)
    points = np.unique(np.concatenate((
        np.arange(1, min(traversals, half) + 1),
        np.geomspace(min(traversals, half), traversals, half).round().astype(int),
        [traversals])))
    # blocks [points[k], points[k + 1]] (one block [1, 1] for a single traversal)
    left = np.arange(max(1, len(points) - 1))
    right = np.minimum(left + 1, len(points) - 1)
    powers, sums = _geometric_at(arithmetic, sizes, points - 1)  # a^{p−1}, Σ_{k<p−1} a^k
    at_points = arithmetic.mul(passing[..., None], powers)  # s_i a_i^{p−1}
    largest = np.maximum(arithmetic.largest(at_points[..., left], -2),
                         arithmetic.largest(at_points[..., right], -2))
    # f_j(p') = a^{p'} + s Σ_{k<p'} a^k, from a^{p'−1} and Σ_{k<p'−1} a^k
    ends = arithmetic.mul_add(powers[..., right], sizes[..., None], passing[..., None],
                              arithmetic.add(sums[..., right], powers[..., right]))
    lengths = (points[right] - points[left] + 1).astype(float)
    product = arithmetic.mul(arithmetic.from_upper(largest), arithmetic.from_upper(lengths))
    for j, count in enumerate(counts):
        product = arithmetic.mul(product, _integer_power(arithmetic, ends[..., j, :], count))
    return arithmetic.upper(arithmetic.total(product, -1))


#: Blocks of traversals of :func:`traversal_bound`.
BOUND_BLOCKS = 512


def _geometric_at(arithmetic, bases, exponents: np.ndarray) -> tuple:
    """``(bases^p, Σ_{k<p} bases^k)`` for each ``p`` of ``exponents`` (shape
    ``(len(bases), len(exponents))``), by binary powering: ``(x^m, G(m))`` and ``(x^l, G(l))``
    combine to ``(x^{m+l}, G(m) + x^m G(l))``."""
    shape = (bases.shape[-1], len(exponents))
    power, total = arithmetic.constant(1, shape), arithmetic.constant(0, shape)
    step_power, step_total = bases[..., None], arithmetic.constant(1, (shape[0], 1))
    for bit in range(int(exponents.max()).bit_length()):
        chosen = ((exponents >> bit) & 1).astype(bool)
        total = np.where(chosen, arithmetic.add(total, arithmetic.mul(power, step_total)), total)
        power = np.where(chosen, arithmetic.mul(power, step_power), power)
        step_total = arithmetic.add(step_total, arithmetic.mul(step_power, step_total))
        step_power = arithmetic.mul(step_power, step_power)
    return power, total


def _integer_power(arithmetic, x, exponent: int):
    """``x^exponent`` elementwise, by repeated squaring."""
    result = None
    while exponent:
        if exponent & 1:
            result = x if result is None else arithmetic.mul(result, x)
        exponent >>= 1
        if exponent:
            x = arithmetic.mul(x, x)
    return result


def _grid(cuts: list, scale: Fraction) -> list:
    """The cut points, with points added so that no cell is wider than ``scale``."""
    grid = [cuts[0]]
    for a, b in zip(cuts, cuts[1:]):
        steps = max(1, math.ceil((b - a) / scale))
        grid.extend(a + (b - a) * Fraction(k, steps) for k in range(1, steps + 1))
    return grid


def traversals_per_cell(arithmetic, fails: list, masses: list, c: int, target: arb,
                        searched=None) -> tuple:
    """For each cell of the threshold noise's range the number of traversals ``R_k`` to
    integrate, and a bound (at most ``target``) on the dropped terms for every ``i``.  On cell
    ``k`` they are at most ``F_i^R·Q_{i,R+1}`` at the cell's right end (both increase with
    ``z``), times the cell's probability (``fails[k]``: the ``F_i`` at the right end of cell
    ``k``, ``masses[k]`` an upper bound on its probability); with no traversal at all
    (``R_k = 0``) they are at most the cell's probability.  A cell stops as soon as its bound is
    within an equal share of half of ``target`` (the central cells, where queries often pass,
    after a few traversals; the far ones, if unlikely enough, at once); every cell still going
    stops at the first ``R`` where all the bounds together are within ``target``.  The bounds
    come in chunks of traversals (:func:`_dropped_bounds`), in ``arithmetic``.
    ``searched``, if given, is called with each number of traversals modelled."""
    share = target / (2 * len(fails))
    per_cell, total = [None] * len(fails), arb(0)
    for k, mass in enumerate(masses):
        if mass <= share:
            per_cell[k], total = 0, total + arb(mass.upper())
    active = [k for k in range(len(fails)) if per_cell[k] is None]
    bounds = {k: _dropped_bounds(arithmetic, fails[k], masses[k], c) for k in active}
    probe = None  # the sum of the active cells' bounds at the last probe
    for traversals in range(1, MAX_TRAVERSALS + 1):
        if not active:
            return per_cell, total
        if searched is not None:
            searched(traversals)
        dropped = {k: next(bounds[k]) for k in active}
        going = sum(dropped.values(), arb(0))
        if total + going <= target:
            for k in active:
                per_cell[k] = traversals
            return per_cell, total + going
        for k, bound in dropped.items():
            if bound <= share:
                per_cell[k], total = traversals, total + bound
                active.remove(k)
        if traversals >= PROBE_TRAVERSALS and traversals & (traversals - 1) == 0:
            left = sum((dropped[k] for k in active), arb(0))
            if probe is not None:
                refuse_slow_decay(probe, left, traversals, target - total)
            probe = left
    raise _too_many_traversals()


def _dropped_bounds(arithmetic, fails: list, mass: arb, c: int):
    """For ``R = 1, 2, …`` an upper bound on ``mass·max_i F_i^R·Q_{i,R+1}``
    (:func:`traversals_per_cell`), computed in chunks of traversals doubling from
    :data:`FIRST_SEARCH_CHUNK`; between chunks only ``F_i^R`` and the powers ``F_i^k`` up to
    the chunk's size are kept (the search holds one such generator per cell)."""
    fails = arithmetic.lift(fails)
    earliest, size = fails, min(FIRST_SEARCH_CHUNK, largest_chunk(fails.shape[-1], c))
    table = None
    while True:
        if table is None or table.shape[-1] <= size:
            table = _powers(arithmetic, fails, size + 1)
        earlier, fewer, earliest = _traversal_chunk(arithmetic, table, earliest, size, c)
        largest = arithmetic.largest(arithmetic.mul(earlier, fewer), -2)
        del earlier, fewer
        for value in largest:
            yield arb((mass * arb(float(value))).upper())
        size = min(2 * size, largest_chunk(fails.shape[-1], c))


#: Traversals after which the decay of the dropped terms is first measured, then again at each
#: doubling (:func:`refuse_slow_decay`); a power of 2.
PROBE_TRAVERSALS = 16


def refuse_slow_decay(earlier: arb, later: arb, done: int, target: arb) -> None:
    """Refuse early when the dropped terms, ``earlier`` after ``done/2`` traversals and
    ``later`` after ``done``, shrink so slowly that continuing at that geometric rate
    (``later/earlier`` per ``done/2`` traversals) would need more than :data:`MAX_TRAVERSALS` in
    all, where the search stops anyway (each traversal costs a pass over every cell: without
    this the refusal comes only after minutes; the decay slows rather than speeds up as the
    cells where queries rarely pass come to dominate).  Only a refusal depends on this
    extrapolation, never a value."""
    rate = float(later.upper()) / float(earlier.upper()) if earlier > 0 else 0.0
    if not 0 < rate < 1:
        return
    remaining = done / 2 * math.log(float(target.mid()) / float(later.upper())) / math.log(rate)
    if done + remaining > MAX_TRAVERSALS:
        raise _too_many_traversals()


def _too_many_traversals() -> PrecisionError:
    return PrecisionError(f"Sparse Vector with retraversal needs more than {MAX_TRAVERSALS} "
                          f"traversals for this accuracy (the queries rarely pass; a lower "
                          f"threshold or fewer digits needs fewer)")


def _order(mech: RetraversalMechanism, order: str) -> str:
    """The given order only."""
    if order == "random":
        raise InputError("Sparse Vector with retraversal is modelled in the given order only")
    return order


def _probabilities(mech: RetraversalMechanism, values: list, c: int, order: str, digits: int,
                   tolerance, progress, jobs: int) -> list:
    """:func:`retraversal`, in double-precision intervals first (:func:`in_intervals_first`)."""
    return in_intervals_first(
        functools.partial(retraversal, mech, values, c, tolerance, progress, jobs=jobs),
        digits, tolerance)


register_kind(RetraversalMechanism, SelectionKind(
    cutoff=lambda mech: mech.c, check=lambda mech, queries: None, order=_order,
    probabilities=_probabilities))
