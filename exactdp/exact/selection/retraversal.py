"""Sparse Vector with retraversal (``svt_retraversal``; Lyu, Su & Li, "Understanding the Sparse
Vector Technique for Differential Privacy", PVLDB 10(6), 2017, §5) as a selection kind, in the
given order: a sum over traversals of the queries, its first term the given-order Sparse
Vector's integral, the later ones traversal by traversal, the dropped ones bounded
analytically (docs/mathematics.md §12.4).
"""

from __future__ import annotations

import bisect
import math
from fractions import Fraction

import numpy as np
from flint import arb

from ...errors import InputError, PrecisionError
from ...mechanisms.selection import RetraversalMechanism
from ...precision import to_arb
from ...workers import forked_map
from ..backends.interval_arrays import ArbArrays, FloatIntervals, PlainDoubles
from ..backends.peak_search import first_integer
from ..backends.vector_quadrature import quadrature_rule
from .generating import generating_value, truncated_power, truncated_product
from .given_order import given_order_probabilities
from .kinds import (EVALUATION_COST, FLOAT_DIGITS, PiecesInTurn, SelectionKind,
                    in_intervals_first, register_kind)
from .pass_probabilities import PassProbabilities
from .traversal_columns import (column_powers, doubles_error, lifted_doubles, passive_answers,
                                passive_starts, product_of_powers, settled_columns)

#: Most traversals of Sparse Vector with retraversal modelled exactly.
MAX_TRAVERSALS = 200_000
#: The traversals whose terms are integrated by the given-order Sparse Vector's sweep
#: (``given_order.py``): 1, the first; 0 sends every traversal through the recurrence of
#: :func:`later_traversals` (the computation before the sweep took the first, which
#: ``benchmarks/retraversal_speed.py`` times against it).
SWEPT_TRAVERSALS = 1


def retraversal(mech: RetraversalMechanism, values: list, c: int, tolerance: arb, progress,
                jobs: int, digits: int) -> list:
    """Given the threshold noise ``z``, query ``i`` first passes in traversal ``R_i``
    (geometric: ``Pr[R_i = r] = S_i F_i^{r−1}``), independently; it is selected iff fewer than
    ``c`` others come before ``(R_i, i)`` in the order of traversals then positions:
    ``P[i | z] = Σ_r S_i F_i^{r−1} Q_{i,r}``, ``Q_{i,r} = Pr[fewer than c of {j < i: R_j ≤ r}
    ∪ {j > i: R_j ≤ r − 1}]``, a Poisson-binomial tail.

    The first term, ``S_i·Pr[fewer than c of the queries before i pass]``, is the given-order
    Sparse Vector's integrand (:func:`given_order_probabilities`, its sweep stopping where the
    rest is negligible).  The threshold noise's range is cut into cells; on cell ``k`` the
    traversals ``2 … R_k`` are integrated (:func:`later_traversals`, to ``digits``) and the
    rest bounded analytically (:func:`traversals_per_cell`): where many queries pass in one
    traversal, ``R_k = 1`` and no later traversal is computed at all.  ``progress`` is told the
    traversals modelled, then the pieces of the first integral and the chunks of the later
    traversals, counted on."""
    hub = mech.threshold_noise
    laws = PassProbabilities(hub, mech.query_noise, mech.threshold, values, tolerance)
    grid = _grid(laws.cuts, hub.scale)
    masses, fails_at_ends = [], []
    for a, b in zip(grid, grid[1:]):
        masses.append(laws.hub_mass(a, b))
        fails_at_ends.append(laws.distinct_values(to_arb(b), (a + b) / 2)[2])
    per_cell, remainder = traversals_per_cell(fails_at_ends, masses, laws.counts, c,
                                               tolerance / 8)
    if progress is not None:
        progress(0, note=f"traversals modelled: {max(per_cell)}")
    in_turn = PiecesInTurn(progress)
    first = [arb(0)] * len(values)
    if SWEPT_TRAVERSALS:
        first = given_order_probabilities(laws, c, tolerance / 2, in_turn.next(), jobs)
    later = [arb(0)] * len(values)
    if max(per_cell) > SWEPT_TRAVERSALS:
        later = later_traversals(laws, grid, per_cell, c, tolerance / 4, in_turn.next(),
                                 digits, jobs)
    return [p + q + arb(0, remainder.upper()) for p, q in zip(first, later)]


def later_traversals(laws: PassProbabilities, grid: list, per_cell: list, c: int,
                     tolerance: arb, progress, digits: int, jobs: int) -> list:
    """``∫ p_ρ(z) Σ_{r=s+1}^{R_k} S_i F_i^{r−1} Q_{i,r} dz`` for every ``i`` over the cells
    of ``grid`` (``s`` = :data:`SWEPT_TRAVERSALS`, ``R_k = per_cell[k]`` on cell ``k``) by one
    Gauss–Legendre rule (:func:`~exactdp.exact.backends.vector_quadrature.quadrature_rule`,
    bounded by :func:`traversal_bound`), its nodes evaluated together: every pair of a node
    and a traversal is a column of one array, the columns taken in chunks, each a recurrence
    over the queries vectorised over its columns (:func:`fewer_in_traversal`), the chunks in
    ``jobs`` worker processes.  Up to :data:`~exactdp.exact.selection.kinds.FLOAT_DIGITS`
    digits in plain doubles with an a-priori rounding bound
    (:func:`~.traversal_columns.doubles_error`), else (or where a value leaves the range that
    bound covers) as :func:`~exactdp.exact.selection.kinds.in_intervals_first` chooses.  Its
    tails are left to the first traversal's integral, which bounds the whole integrand (at
    most ``p_ρ``) outside the range (with no first traversal swept, they are this
    integral's).  ``progress`` is told the chunks, then counts them."""
    n = len(laws.positions)
    bounding = FloatIntervals() if digits <= FLOAT_DIGITS else ArbArrays()

    def traversals_at(middle: Fraction) -> int:
        return per_cell[bisect.bisect_right(grid, middle) - 1]

    def bound(z, middle):
        density, passes, fails = laws.distinct_values(z, middle)
        return abs(density) * traversal_bound(bounding, passes, fails, laws.counts,
                                               traversals_at(middle))

    used = [k for k, traversals in enumerate(per_cell) if traversals > SWEPT_TRAVERSALS]
    cuts = grid[used[0]:used[-1] + 2]
    tails = arb(0) if SWEPT_TRAVERSALS else laws.tails
    nodes, error = quadrature_rule(bound, cuts, tails, tolerance, EVALUATION_COST,
                                   progress=progress, jobs=jobs)
    # the columns: (node, traversal r) for r = s + 1 … R at each node; those where every
    # Q_{i,r} is provably within δ of 1 or of 0 are not computed (settled_columns)
    columns = [(k, r) for k, (_, _, middle) in enumerate(nodes)
               for r in range(SWEPT_TRAVERSALS + 1, traversals_at(middle) + 1)]
    values = [laws.distinct_values(z, middle) + (weight,) for z, weight, middle in nodes]
    settled = settled_columns(values, columns, laws.counts, c, tolerance * SETTLED,
                              CHUNK_ENTRIES)
    scales = [w * p for p, _, _, w in values]
    # the passive answers of each node (passive_answers), and their own terms' bound
    logs = [[-f.log() for f in fails] for _, _, fails, _ in values]  # −log F per answer
    traversals = [traversals_at(middle) for _, _, middle in nodes]
    passive = [passive_answers(passes, fails, minus_logs, laws.counts, most,
                               tolerance * PASSIVE / (len(nodes) * abs(scale)), SWEPT_TRAVERSALS)
               for (_, passes, fails, _), minus_logs, most, scale
               in zip(values, logs, traversals, scales)]
    passive_radius = np.zeros(len(laws.counts))  # the passive queries' own terms, by answer
    for scale, (answers, own) in zip(scales, passive):
        passive_radius[answers] += float(abs(scale).upper()) * own[answers]
    passive = [set(answers) for answers, _ in passive]
    radius = arb(0, (error + tolerance * SETTLED * sum(scales, arb(0))).upper())
    chunks = [(part, False) for part in _chunks(
        [column for column, at in zip(columns, settled) if at == 1], lambda nodes: n, c)]
    chunks += [(part, True) for part in _chunks(
        [column for column, at in zip(columns, settled) if at == 0], lambda nodes: sum(
            count for answer, count in enumerate(laws.counts)
            if not all(answer in passive[k] for k in nodes)), c)]
    if progress is not None:
        progress(0, note=f"traversal chunks: {len(chunks)} of {len(columns)} node traversals, "
                         f"{int((settled != 0).sum())} settled")
    positions = np.array(laws.positions)

    def summed(arithmetic, lifted: list) -> tuple:
        """Lower and upper bounds on ``Σ_ν Σ_r w_ν p_ρ(z_ν) S_i F_i^{r−1} Q_{i,r}`` over the
        columns (``0`` for the passive queries of a chunk,
        :func:`~.traversal_columns.passive_answers`), ``lifted`` the nodes' ``(w p_ρ, S, F)`` in
        ``arithmetic``, ``Q`` by the recurrence (from both starts of
        :func:`~.traversal_columns.passive_starts`) or taken as 1, the chunks in worker
        processes; and the largest relative error of the values lifted for the starts."""
        def chunk_sum(chunk: tuple):
            chunk, recurred = chunk
            exponents = np.array([r - 1 for _, r in chunk])
            if not recurred:
                scale, passing, fails = (np.stack([lifted[k][part] for k, _ in chunk], axis=-1)
                                         for part in range(3))
                earlier, _ = column_powers(arithmetic, fails, exponents)
                weights = arithmetic.mul(arithmetic.mul(passing, earlier), scale[..., None, :])
                total = arithmetic.total(weights, -1)
                return total, total, 0.0
            quiet = sorted(set.intersection(*(passive[k] for k, _ in chunk)))
            active = np.flatnonzero(~np.isin(laws.positions, quiet))
            starts, lift_error = passive_starts(arithmetic, chunk, quiet, values, logs,
                                                laws.counts, c)
            scale, passing, fails = (np.stack([lifted[k][part][..., active] if part else
                                               lifted[k][part] for k, _ in chunk], axis=-1)
                                     for part in range(3))
            earlier, sums = column_powers(arithmetic, fails, exponents)  # F^{r−1}, Σ_{k<r−1}
            weights = arithmetic.mul(passing, earlier)  # S F^{r−1}
            passed_earlier = arithmetic.mul(passing, sums)  # 1 − F^{r−1} = S·Σ F^k
            later, passed_later = (arithmetic.mul(earlier, fails),
                                   arithmetic.add(passed_earlier, weights))
            weights = arithmetic.mul(weights, scale[..., None, :])
            totals = []
            for start in starts:  # the lower start, then the upper one
                fewer = fewer_in_traversal(arithmetic, earlier, passed_earlier, later,
                                           passed_later, start)
                total = arithmetic.constant(0, (n,))
                total[..., active] = arithmetic.total(arithmetic.mul(weights, fewer), -1)
                totals.append(total)
            # an upper bound on the error as a double: the result crosses from a worker process
            return totals[0], totals[-1], math.nextafter(float(lift_error.upper()), math.inf)

        lower, upper = arithmetic.constant(0, (n,)), arithmetic.constant(0, (n,))
        most_error = 0.0
        # Arb balls do not cross from a worker process: their chunks run here
        workers = 1 if type(arithmetic) is ArbArrays else jobs
        for done, (low, high, lift_error) in enumerate(
                forked_map(chunk_sum, chunks, workers), 1):
            lower, upper = arithmetic.add(lower, low), arithmetic.add(upper, high)
            most_error = max(most_error, lift_error)
            if progress is not None:
                progress(done)
        return lower, upper, arb(most_error)

    def enclosed(balls: list) -> list:
        """The balls, each with the quadrature's, the settled columns' and the passive
        queries' errors."""
        return [p + radius + arb(0, float(passive_radius[answer]) * (1 + 2.0 ** -40))
                for p, answer in zip(balls, laws.positions)]

    if digits <= FLOAT_DIGITS:
        lifted = lifted_doubles(values, positions)
        if lifted is not None:
            lifted, lift_error, dropped = lifted
            # the values lifted as 0 (:func:`~.traversal_columns.lifted_doubles`), over every node
            dropped *= (sum(scales, arb(0)) + 1) * (n * max(traversals) + len(nodes))
            lower, upper, start_error = summed(PlainDoubles(), lifted)
            theta, underflow = doubles_error(n, c, columns, len(chunks),
                                             max(lift_error, start_error))
            if theta is not None:
                underflow += dropped
                return enclosed([(arb(float(low)) * (1 - theta) - underflow).union(
                                    arb(float(high)) * (1 + theta) + underflow)
                                 for low, high in zip(lower, upper)])

    def in_arithmetic(arithmetic) -> list:
        lifted = [(arithmetic.lift([weight * density])[..., 0],
                   arithmetic.lift(passes)[..., positions], arithmetic.lift(fails)[..., positions])
                  for density, passes, fails, weight in values]
        lower, upper, _ = summed(arithmetic, lifted)
        return enclosed([low.union(high) for low, high in zip(arithmetic.balls(lower),
                                                             arithmetic.balls(upper))])
    return in_intervals_first(in_arithmetic, digits, tolerance)


#: The share of the later traversals' tolerance the passive queries may cost
#: (:func:`~.traversal_columns.passive_answers`).
PASSIVE = 0.125


#: The share of the later traversals' tolerance below which a column's ``Q_{i,r}`` is taken as
#: 1 or 0 (:func:`~.traversal_columns.settled_columns`).
SETTLED = 0.125


#: Most columns (a node and a traversal) computed in one vectorised chunk
#: (:func:`fewer_in_traversal`), and most entries of its largest arrays (the functionals kept:
#: about ``2√n`` of ``c`` entries per column, and the queries' powers, ``n`` per column; 16
#: bytes each in double intervals), which bounds its memory.
TRAVERSAL_CHUNK = 4096
CHUNK_ENTRIES = 4_000_000


def largest_chunk(n: int, c: int) -> int:
    """The most columns per chunk for ``n`` queries and cutoff ``c``."""
    kept = (2 * _segment(n) + 2) * c
    return max(1, min(TRAVERSAL_CHUNK, CHUNK_ENTRIES // max(kept, 4 * n)))


def _chunks(columns: list, queries, c: int) -> list:
    """``columns`` (sorted by node) cut into consecutive chunks of at most
    :func:`largest_chunk` columns for ``queries(nodes)`` queries, the number the recurrence
    runs over for the chunk's set of nodes."""
    chunks, current, nodes, most = [], [], set(), 0
    for column in columns:
        if column[0] not in nodes:
            nodes = nodes | {column[0]}
            most = largest_chunk(queries(nodes), c)
        if len(current) >= most:
            chunks.append(current)
            current, nodes = [], {column[0]}
            most = largest_chunk(queries(nodes), c)
        current.append(column)
    return chunks + ([current] if current else [])


def _segment(n: int) -> int:
    """The queries per segment of :func:`fewer_in_traversal`, about ``√n``."""
    return max(1, math.isqrt(n))


def fewer_in_traversal(arithmetic, earlier, passed_earlier, later, passed_later, start):
    """``Q_{i,r}`` (:func:`retraversal`) for every column ``(ν, r)`` of ``earlier`` =
    ``F_i^{r−1}`` and ``later`` = ``F_i^r`` (shape ``(n, columns)``; ``passed_…`` one minus
    them), by the recurrences of
    :func:`~exactdp.exact.selection.generating.weighted_around` over the queries: the prefix
    ``Π_{j<i}(F_j^r + (1 − F_j^r)y)`` truncated at degree ``c``, and the functional
    ``u_k = Pr[fewer than c − k of the queries after i passed by traversal r − 1]``
    (``u ← F_i^{r−1} u + (1 − F_i^{r−1}) shift(u)``), each step one operation on all the
    columns, arrays of shape ``(c, columns)``.  The functionals run backwards and the prefix
    forwards, so the functionals are kept at the ends of segments of about ``√n`` queries and
    recomputed within each segment as the prefix reaches it (twice the functional's steps, a
    ``2√n``-th of the memory)."""
    n, size = earlier.shape[-2:]
    c = start.shape[-2]
    if n == 0:
        return earlier
    zero = arithmetic.constant(0, (1, size))

    def before(functional, i: int):
        """The functional of query ``i − 1`` from that of ``i``."""
        shifted = np.concatenate((functional[..., 1:, :], zero), axis=-2)
        return arithmetic.mul_add(earlier[..., i, None, :], functional,
                                  passed_earlier[..., i, None, :], shifted)

    length = _segment(n)
    ends = list(range(length, n, length)) + [n]  # the segments [previous end, end)
    kept, functional = {}, start
    for i in range(n - 1, -1, -1):
        if i + 1 in ends:
            kept[i + 1] = functional  # the functional of query i
        functional = before(functional, i)
    prefix = np.concatenate((arithmetic.constant(1, (1, size)),
                             arithmetic.constant(0, (c - 1, size))), axis=-2)
    fewer = []
    for start, end in zip([0] + ends[:-1], ends):
        functionals, functional = [kept[end]], kept[end]
        for i in range(end - 1, start, -1):
            functional = before(functional, i)
            functionals.append(functional)
        for i, functional in zip(range(start, end), reversed(functionals)):
            fewer.append(arithmetic.dot(prefix, functional))
            shifted = np.concatenate((zero, prefix[..., :-1, :]), axis=-2)
            prefix = arithmetic.mul_add(later[..., i, None, :], prefix,
                                        passed_later[..., i, None, :], shifted)
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
    powers, sums = column_powers(  # a^{p−1}, Σ_{k<p−1} a^k
        arithmetic, np.broadcast_to(sizes[..., None], sizes.shape + (len(points),)), points - 1)
    at_points = arithmetic.mul(passing[..., None], powers)  # s_i a_i^{p−1}
    largest = np.maximum(arithmetic.largest(at_points[..., left], -2),
                         arithmetic.largest(at_points[..., right], -2))
    # f_j(p') = a^{p'} + s Σ_{k<p'} a^k, from a^{p'−1} and Σ_{k<p'−1} a^k
    ends = arithmetic.mul_add(powers[..., right], sizes[..., None], passing[..., None],
                              arithmetic.add(sums[..., right], powers[..., right]))
    lengths = (points[right] - points[left] + 1).astype(float)
    product = arithmetic.mul(arithmetic.from_upper(largest), arithmetic.from_upper(lengths))
    product = arithmetic.mul(product, product_of_powers(arithmetic, ends, np.array(counts)))
    return arithmetic.upper(arithmetic.total(product, -1))


#: Blocks of traversals of :func:`traversal_bound`.
BOUND_BLOCKS = 64


def _grid(cuts: list, scale: Fraction) -> list:
    """The cut points, with points added so that no cell is wider than ``scale``."""
    grid = [cuts[0]]
    for a, b in zip(cuts, cuts[1:]):
        steps = max(1, math.ceil((b - a) / scale))
        grid.extend(a + (b - a) * Fraction(k, steps) for k in range(1, steps + 1))
    return grid


def traversals_per_cell(fails: list, masses: list, counts: list, c: int, target: arb) -> tuple:
    """For each cell of the threshold noise's range the number of traversals ``R_k ≥ 1`` to
    integrate, and a bound (at most ``target``) on the dropped terms for every ``i``: on cell
    ``k`` at most ``masses[k]`` (an upper bound on its probability) times
    :func:`dropped_bound` at the cell's right end (``fails[k]``: the ``F`` of the distinct
    answers there, ``counts`` their multiplicities), since the dropped terms grow with ``z``.
    If one traversal everywhere keeps the sum of the bounds within ``target`` it is taken.
    Otherwise each cell whose bound exceeds an equal share of half of ``target`` is given the
    fewest traversals found that bring it within that share (:func:`_fewest_traversals`), and
    then all are capped at the least common number found (by bisection) that keeps the sum
    within ``target``: the unlikely cells, which need the most, stop where the likely ones
    leave room."""
    share = target / (2 * len(fails))
    known = {}

    def dropped(k: int, traversals: int) -> arb:
        if (k, traversals) not in known:
            enough = share / masses[k] if masses[k] > 0 else arb(1)
            known[k, traversals] = arb((masses[k] * dropped_bound(
                fails[k], counts, c, traversals, enough)).upper())
        return known[k, traversals]

    def total(per_cell: list) -> arb:
        return sum((dropped(k, r) for k, r in enumerate(per_cell)), arb(0))

    cells = range(len(fails))
    if total([1] * len(fails)) <= target:
        return [1] * len(fails), total([1] * len(fails))
    own = [1 if dropped(k, 1) <= share else
           _fewest_traversals(lambda r, k=k: dropped(k, r), share) for k in cells]
    # the sum is within target at the cap max(own), not at 1
    cap = first_integer(lambda cap: total([min(r, cap) for r in own]) <= target, 1, max(own))
    per_cell = [min(r, cap) for r in own]
    return per_cell, total(per_cell)


def dropped_bound(fails: list, counts: list, c: int, traversals: int, enough: arb) -> arb:
    """An upper bound on every ``Σ_{r>R} S_i F_i^{r−1} Q_{i,r}`` (:func:`retraversal`,
    ``R = traversals``) where the distinct answers fail with ``fails`` (``counts`` queries
    each).  ``Q_{i,r}`` cannot grow with ``r`` (the queries before ``(r, i)`` only gain), so the
    sum is at most ``F_i^R Q_{i,R+1} ≤ F_i^R Pr[M′ ≤ c − 1] = Pr[R_i > R, M′ ≤ c − 1]
    ≤ Pr[M ≤ c − 1]``, ``M′`` the number of the other queries with ``R_j ≤ R`` (each with
    probability ``1 − F_j^R``, independently) and ``M`` that of all of them.  Markov's
    inequality for ``x^{M′}``, ``0 < x ≤ 1``, bounds the middle term by
    ``x^{1−c} G_R(x)·F_i^R/(F_i^R + (1 − F_i^R)x)``, ``G_R(x) = Π_j (F_j^R + (1 − F_j^R)x)^{n_j}``
    (the last factor grows with ``F_i^R``: taken at the largest), in ``O(d)`` operations
    (:func:`_markov_point` places ``x``; for ``c = 1``, ``x = 0``, ``E[0^{M′}] = Pr[M′ = 0]``).
    Where that exceeds ``enough`` (and ``enough < 1``: the sum is at most ``F_i^R``, which
    then does) the last term is computed instead, the first ``c``
    coefficients of ``G_R`` (:func:`~exactdp.exact.selection.generating.truncated_product`,
    ``O(d·c)`` products), exact where Markov's bound is loose, near 1 (docs/mathematics.md
    §12.4)."""
    powers = [f ** traversals for f in fails]
    top = max(arb(p.upper()) for p in powers)
    if not top > 0:
        return arb(0)
    passes = [1 - p for p in powers]
    x = arb(_markov_point(fails, counts, c, traversals))
    bound = arb((x ** (1 - c) * generating_value(passes, powers, counts, x)
                 * top / (top + (1 - top) * x)).upper())
    if bound <= enough:
        return bound
    if enough >= 1:  # the dropped terms are at most F_i^R
        return top
    groups = [truncated_power(f, s, count, c) for f, s, count in zip(powers, passes, counts)]
    fewer = arb(sum(truncated_product(groups, c).coeffs()[:c], arb(0)).upper())
    return fewer if fewer < bound else bound


#: The points ``log x`` at which :func:`_markov_point` compares the bounds.
MARKOV_GRID = np.linspace(-60.0, 0.0, 301)


def _markov_point(fails: list, counts: list, c: int, traversals: int) -> float:
    """A point ``x ∈ [0, 1]`` where the bound of :func:`dropped_bound` is near its least: the
    best of :data:`MARKOV_GRID` (in ``log x``), its logarithm
    ``(1 − c) log x + Σ_j n_j log(F_j^R + (1 − F_j^R)x) − log(F^R + (1 − F^R)x)`` (``F`` the
    largest ``F_j``) evaluated in doubles; 0 for ``c = 1``.  It only places ``x``: the bound
    is evaluated in balls wherever ``x`` lies."""
    if c == 1:
        return 0.0
    logs = traversals * np.log(np.array([float(f.mid()) for f in fails]))[:, None]
    with np.errstate(divide="ignore"):
        rest = np.log(-np.expm1(logs))  # log(1 − F^R)
    terms = np.logaddexp(logs, rest + MARKOV_GRID)
    largest = int(np.argmax(logs[:, 0]))
    values = ((1 - c) * MARKOV_GRID + np.asarray(counts, dtype=float) @ terms
              - terms[largest])
    return float(np.exp(MARKOV_GRID[int(np.nanargmin(values))]))


def _fewest_traversals(bound, share: arb) -> int:
    """An ``R`` with ``bound(R) ≤ share``, ``R`` found by doubling from 2 and then
    bisecting (``bound`` need not be monotone: the ``R`` is valid whichever is found); a
    :class:`~exactdp.errors.PrecisionError` past :data:`MAX_TRAVERSALS`."""
    low, high = 1, 2
    while not bound(high) <= share:
        if high >= MAX_TRAVERSALS:
            raise _too_many_traversals()
        low, high = high, min(2 * high, MAX_TRAVERSALS)
    return first_integer(lambda r: bound(r) <= share, low, high)


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
    """:func:`retraversal` (its later traversals in double-precision intervals first,
    :func:`~exactdp.exact.selection.kinds.in_intervals_first`)."""
    return retraversal(mech, values, c, tolerance, progress, jobs, digits)


register_kind(RetraversalMechanism, SelectionKind(
    cutoff=lambda mech: mech.c, check=lambda mech, queries: None, order=_order,
    probabilities=_probabilities))
