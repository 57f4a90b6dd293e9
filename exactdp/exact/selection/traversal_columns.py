"""The columns of Sparse Vector with retraversal's later traversals (a quadrature node and a
traversal each, ``exact/selection/retraversal.py``): which are settled by Chernoff's bound,
which queries are passive at a node and the Poisson starts that bound them, the lifting of the
nodes' values into plain doubles and the a-priori bound on their rounding, and the binary
powers all of these take (docs/mathematics.md §12.4).
"""

from __future__ import annotations

import math

import numpy as np
from flint import arb

from ..backends.interval_arrays import FloatIntervals, PlainDoubles
from ..backends.rounding_bounds import UNDERFLOW, factor_bound, relative_doubles


def passive_answers(passes: list, fails: list, logs: list, counts: list, traversals: int,
                    share: arb, swept: int) -> tuple:
    """The answers whose queries are taken as passive at a node (``passes``, ``fails``, ``logs``:
    ``S``, ``F``, ``−log F`` per distinct answer; ``counts`` their multiplicities; ``R`` =
    ``traversals``): their positions are dropped and their count among the queries passed is
    bounded by Poisson variables (:func:`passive_starts`), their own terms taken in
    ``[0, F_a^s − F_a^R]`` (``s`` = ``swept``, the traversals integrated otherwise).  The
    answers least likely to pass are taken while each query's ``R·S_a ≥ F_a^s − F_a^R`` and Le Cam's
    ``R²Σ_P n_a S_a²`` stay within ``share`` and ``λ_R = R Σ_P n_a(−log F_a)`` within 300 (so
    that ``e^{−λ}`` is a normal double).  Returns ``(answers, own)``: their indices and the bounds
    ``F_a^s − F_a^R`` of every answer (a numpy array)."""
    order = sorted(range(len(passes)), key=lambda a: float(passes[a].mid()))
    own = np.array([float((fails[a] ** swept - fails[a] ** traversals).upper())
                    for a in range(len(passes))])
    chosen, squares, rate = [], arb(0), arb(0)
    for a in order:
        squares += counts[a] * passes[a] ** 2
        rate += counts[a] * logs[a]
        if not (traversals * passes[a] <= share and traversals ** 2 * squares <= share
                and traversals * rate <= 300):
            break
        chosen.append(a)
    return chosen, own


def passive_starts(arithmetic, chunk: list, quiet: list, values: list, logs: list,
                   counts: list, c: int) -> tuple:
    """The functionals after the last query
    (:func:`~exactdp.exact.selection.retraversal.fewer_in_traversal`) for each column ``(ν, r)``
    of ``chunk`` with the queries of the answers ``quiet`` passive (``values``:
    ``(p_ρ, S, F, w)`` per node; ``logs``: ``−log F`` per node and answer), ``u_k`` bounds on
    ``Pr[W ≤ c − 1 − k]``, ``W`` the passive queries before ``(r, i)``: between those passed
    by traversal ``r − 1`` and by ``r``.  Lower: a query passed by ``r`` with probability
    ``1 − F^r``, at most Poisson with mean ``−r log F`` stochastically (equal at 0), so
    ``W ≤ Π``, Poisson with ``λ = r Σ n_a(−log F_a)`` (rounded up to a double of at least
    ``2^{−400}``).  Upper: by Le Cam's inequality the count passed by ``r − 1`` is within
    ``Σ p_j² ≤ (r − 1)² Σ n_a S_a²`` in total variation of a Poisson variable with mean
    ``Σ p_j ≥ μ = (r − 1)Σ n_a S_a − C(r − 1, 2)Σ n_a S_a²`` (``p_j = 1 − F_j^{r−1}``,
    Bonferroni), whose distribution function is at most that of mean ``μ`` (rounded down):
    ``u_k ≤ Pr[Π_μ ≤ c − 1 − k] + (r − 1)² Σ n_a S_a²`` (docs/mathematics.md §12.4).  Returns
    ``([lower] or [lower, upper], ε)``: the starts (shape ``(c, columns)``, computed from
    ``e^{−λ}``, ``λ`` and ``1/m`` by sums and products; one start where nothing is passive)
    and the relative error the doubles were lifted with (``0`` in intervals)."""
    if not quiet:
        return [arithmetic.constant(1, (c, len(chunk)))], arb(0)
    sums = {}
    for k in {k for k, _ in chunk}:
        passes = values[k][1]
        sums[k] = tuple(sum((counts[a] * x[a] for a in quiet), arb(0)) for x in (
            logs[k], passes, [s ** 2 for s in passes]))
    rates = [arb(max(math.nextafter(float((r * sums[k][0]).upper()), math.inf), 2.0 ** -400))
             for k, r in chunk]
    means = [arb(max(0.0, math.nextafter(float(((r - 1) * sums[k][1] - (r - 1) * (r - 2) / 2
                                                * sums[k][2]).lower()), -math.inf)))
             for k, r in chunk]
    slack = [arb(math.nextafter(float(((r - 1) ** 2 * sums[k][2]).upper()), math.inf))
             for k, r in chunk]
    inverses = [arb(1) / m for m in range(1, c)]
    if isinstance(arithmetic, PlainDoubles):
        firsts = [[(-x).exp() for x in rates], [(-x).exp() for x in means]]
        doubles, lift_error, _, _ = relative_doubles(firsts)
        lift_error = max(lift_error, arb(2) ** -52)  # the 1/m
        firsts = list(doubles)
        lifted = [np.array([float(x) for x in xs]) for xs in (rates, means, slack)]
        inverses = np.array([float(x.mid()) for x in inverses])
    else:
        firsts = [arithmetic.lift([(-x).exp() for x in xs]) for xs in (rates, means)]
        lifted = [arithmetic.lift(xs) for xs in (rates, means, slack)]
        inverses = arithmetic.lift(inverses)
        lift_error = arb(0)
    starts = []
    for first, rate in zip(firsts, lifted):
        masses = [first]  # Pr[Π = m], m = 0 … c − 1
        for m in range(1, c):
            masses.append(arithmetic.mul(masses[-1],
                                         arithmetic.mul(rate, inverses[..., m - 1, None])))
        cumulative = [masses[0]]
        for m in range(1, c):
            cumulative.append(arithmetic.add(cumulative[-1], masses[m]))
        starts.append(np.stack(cumulative[::-1], axis=-2))
    starts[1] = arithmetic.add(starts[1], lifted[2][..., None, :])
    return starts, lift_error


@np.errstate(over="ignore", invalid="ignore")
def settled_columns(values: list, columns: list, counts: list, c: int, delta: arb,
                    entries: int) -> np.ndarray:
    """For each column ``(ν, r)`` (``values``: ``(p_ρ, S, F, w)`` per node, ``S`` and ``F`` per
    distinct answer): ``1`` where every ``Q_{i,r} ≥ 1 − δ``, ``−1`` where every
    ``Q_{i,r} ≤ δ``, else ``0``.  The queries before ``(r, i)`` are at most the ``M_r`` of all
    the queries with ``R_j ≤ r`` and at least ``M_{r−1} − 1``, so ``Q_{i,r} ≥ 1 − Pr[M_r ≥ c]``
    and ``Q_{i,r} ≤ Pr[M_{r−1} ≤ c]``; by Markov's inequality for ``x^M``
    (Chernoff's bound) ``Pr[M_t ≥ c] ≤ x^{−c} G_t(x)`` for ``x ≥ 1`` and
    ``Pr[M_t ≤ c] ≤ x^{−c} G_t(x)`` for ``0 < x ≤ 1``,
    ``G_t(x) = Π_j (F_j^t + (1 − F_j^t)x)^{n_j}``, at ``x = c/E[M_t]`` (any ``x`` gives a
    bound: it is evaluated in double intervals, its powers overflowing to no bound)."""
    settled = np.zeros(len(columns), dtype=int)
    if not columns:
        return settled
    arithmetic = FloatIntervals()
    lifted = [(arithmetic.lift(passes), arithmetic.lift(fails)) for _, passes, fails, _ in values]
    size = max(1, entries // (4 * len(counts)))  # columns at a time: 4·entries doubles
    for start in range(0, len(columns), size):
        settled[start:start + size] = _settled_chunk(
            arithmetic, lifted, columns[start:start + size], np.array(counts), c, delta)
    return settled


def _settled_chunk(arithmetic, lifted: list, columns: list, multiplicities: np.ndarray, c: int,
                   delta: arb) -> np.ndarray:
    """:func:`settled_columns` on some of the columns (``lifted``: the nodes' ``S`` and ``F``
    per distinct answer in double intervals).  The bound is evaluated only on the columns whose
    expected count, in doubles, lies at least ``3√max(c, E[M])`` from ``c`` (elsewhere it
    would not fall below ``δ``; which columns are tried changes no enclosure)."""
    settled = np.zeros(len(columns), dtype=int)
    passing, fails = (np.stack([lifted[k][part] for k, _ in columns], axis=-1)
                      for part in range(2))
    for sign, shift in ((1, 0), (-1, 1)):  # M_r ≥ c, then M_{r−1} ≤ c
        exponents = np.array([r - shift for _, r in columns])
        middles = [(x[0] + x[1]) / 2 for x in (passing, fails)]
        _, sums = column_powers(PlainDoubles(), middles[1], exponents)
        means = multiplicities @ (middles[0] * sums)  # E[M_t], roughly
        with np.errstate(invalid="ignore"):
            tried = np.flatnonzero((sign * (c - means) >= 3 * np.sqrt(np.maximum(c, means)))
                                   & (settled == 0))
        if not len(tried):
            continue
        powers, sums = column_powers(arithmetic, fails[..., tried], exponents[tried])
        passed = arithmetic.mul(passing[..., tried], sums)  # 1 − F^t
        with np.errstate(divide="ignore"):
            points = np.clip(c / means[tried], 2.0 ** -20, 2.0 ** 20)
        x = arithmetic.lift([arb(float(p)) for p in points])
        scaled = arithmetic.lift([arb(float(p)) ** -c for p in points])  # x^{−c}
        bases = arithmetic.add(powers, arithmetic.mul(passed, x[..., None, :]))
        bounds = arithmetic.mul(product_of_powers(arithmetic, bases, multiplicities), scaled)
        settled[tried[bounds[1] <= float(delta.lower())]] = sign
    return settled


def lifted_doubles(values: list, positions: np.ndarray) -> tuple | None:
    """The nodes' ``(w p_ρ, S, F)`` (``values``: ``(p_ρ, S, F, w)`` per node, ``S`` and ``F``
    per distinct answer, balls) as doubles, ``S`` and ``F`` per query, with one relative error
    (:func:`~exactdp.exact.backends.rounding_bounds.relative_doubles`): ``(lifted, ε, τ)``,
    those below :data:`~exactdp.exact.backends.rounding_bounds.LIFT_FLOOR` lifted as 0 and at
    most ``τ`` (a query whose ``F`` or ``S`` is taken as 0 changes every probability by at most
    ``F`` or ``R·S``: the two processes differ only where it fails its first traversal, or
    passes by the ``R``-th); ``None`` where a scale exceeds 1 (the range
    :func:`doubles_error` covers)."""
    rows = [[weight * density] + list(passes) + list(fails)
            for density, passes, fails, weight in values]
    doubles, error, dropped, _ = relative_doubles(rows)
    if not doubles[:, 0].max() <= 1:
        return None
    d = (doubles.shape[1] - 1) // 2
    return ([(row[0], row[1:d + 1][positions], row[d + 1:][positions]) for row in doubles],
            error, dropped)


def doubles_error(n: int, c: int, columns: list, chunks: int, lift_error: arb) -> tuple:
    """``(θ, η)``: the sum of :func:`later_traversals` computed in plain doubles lies within
    ``[v(1 − θ) − η, v(1 + θ) + η]`` of the exact one on the exact inputs, ``v`` the computed
    value (docs/mathematics.md §12.4): each term of it has at most
    ``K = (n + 1)(κ + 2) + c + columns + chunks`` roundings, ``κ = 2R + ⌈log₂ R⌉ + 1`` those of
    a query's factor at the most traversals ``R``, and ``D = (n + 1)R + 2`` inputs each within
    the relative error ``lift_error`` (:func:`~exactdp.exact.backends.rounding_bounds
    .factor_bound`); a product that underflows errs by at most ``2^{−1075}`` absolutely, and
    every value is at most ``1 + θ``, so the at most ``N = 4(n + 1)(c + 2)·columns`` products
    add at most ``η = 4N·2^{−1075}``.  ``(None, None)`` where ``(1 + θ)^{n+3} > 2``."""
    most = max(r for _, r in columns)
    kappa = 2 * most + most.bit_length() + 1
    roundings = (n + 1) * (kappa + 2) + 4 * c + len(columns) + chunks
    theta = factor_bound(roundings, (n + 1) * most + 2 * c + 4, lift_error)
    if not (1 + theta) ** (n + 3) <= 2:
        return None, None
    products = 4 * (n + 1) * (c + 2) * len(columns)
    return theta, 4 * products * UNDERFLOW


def column_powers(arithmetic, bases, exponents: np.ndarray) -> tuple:
    """``(x^e, Σ_{k<e} x^k)`` for ``x = bases[..., i, k]``, ``e = exponents[k]`` (``bases`` of
    shape ``(n, columns)``), by binary powering (``(x^m, G(m))`` and ``(x^l, G(l))`` combine
    to ``(x^{m+l}, G(m) + x^m G(l))``): only sums and
    products of non-negative numbers; ``x^e`` has at most ``e`` roundings, the sum at most
    ``2e + ⌈log₂ e⌉ + 1`` (docs/mathematics.md §12.4)."""
    shape = bases.shape[-2:]
    power, total = arithmetic.constant(1, shape), arithmetic.constant(0, shape)
    step_power, step_total = bases, arithmetic.constant(1, shape)
    for bit in range(int(exponents.max(initial=0)).bit_length()):
        chosen = ((exponents >> bit) & 1).astype(bool)
        total = np.where(chosen, arithmetic.add(total, arithmetic.mul(power, step_total)), total)
        power = np.where(chosen, arithmetic.mul(power, step_power), power)
        step_total = arithmetic.add(step_total, arithmetic.mul(step_power, step_total))
        step_power = arithmetic.mul(step_power, step_power)
    return power, total


def product_of_powers(arithmetic, bases, exponents: np.ndarray):
    """``Π_j bases[..., j, :]^exponents[j]``: the powers by binary powering (all rows at once),
    then the product over the rows by halving."""
    shape = bases.shape[-2:]
    power, step = arithmetic.constant(1, shape), bases
    for bit in range(int(exponents.max()).bit_length()):
        chosen = ((exponents >> bit) & 1).astype(bool)[:, None]
        power = np.where(chosen, arithmetic.mul(power, step), power)
        step = arithmetic.mul(step, step)
    while power.shape[-2] > 1:
        if power.shape[-2] % 2:
            power = np.concatenate((power, arithmetic.constant(1, (1, shape[1]))), axis=-2)
        power = arithmetic.mul(power[..., 0::2, :], power[..., 1::2, :])
    return power[..., 0, :]
