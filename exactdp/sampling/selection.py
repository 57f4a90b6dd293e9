"""Simulated runs of selection mechanisms, and the false negative rate and score error rate of
each run.

Lyu, Su & Li, "Understanding the Sparse Vector Technique for Differential Privacy", PVLDB 10(6),
2017 (arXiv:1603.01699), §6, compare selection mechanisms by the false negative rate (FNR: the
fraction of the true top ``c`` not selected) and the score error rate
(SER ``= 1 − Σ_{i selected} q_i / Σ_{i ∈ top c} q_i``) of seeded runs, summarised by their mean
and standard deviation.  ``exact/selection/`` computes the expectations exactly; this module
draws the runs themselves, in double precision (a simulation: its numbers carry the sampling
error of the runs, not a certified bound), vectorised over the runs:

* a Sparse Vector variant with a cutoff (:class:`ThresholdMechanism`): the sampler of its
  description (:func:`exactdp.sampling.sampler.sample`), ⊤ marking a selected query;
* ``em_top`` (:class:`ExponentialTopMechanism`): the top ``c`` of ``q_i + η_i``, ``η_i`` drawn
  from the mechanism's noise law ``Gumbel(β)`` (CDF ``exp(−e^{−x/β})``: numpy's ``gumbel(0, β)``);
  no ties occur almost surely;
* ``svt_retraversal`` (:class:`RetraversalMechanism`): one threshold ``T + ρ``; the queries are
  traversed with fresh noise ``ν`` each time, ``q_i + ν ≥ T + ρ`` selecting the query, the
  selected ones skipped, until ``c`` are selected.

In a uniformly random order each run examines the queries in its own permutation (``em_top``
does not depend on the order and draws none).  Randomness comes only from the
``numpy.random.Generator`` passed in, so a seeded generator reproduces every run.
"""

from __future__ import annotations

import numpy as np

from ..checks import check_simulation_size
from ..errors import InputError
from ..mechanisms.description import ThresholdMechanism
from ..mechanisms.selection import ExponentialTopMechanism, RetraversalMechanism
from ..sequences import as_queries
from ..exact.selection import ORDERS, check_cutoff, selection_cutoff, selection_rates, true_top
from .sampler import BLOCK_DRAWS, query_array, sample

#: Most traversals of one simulated run of Sparse Vector with retraversal.  Every run ends
#: almost surely, but the expected number of traversals grows without bound as the threshold
#: rises above the answers: beyond this many the simulation refuses rather than loop on.
SIMULATED_TRAVERSALS = 100_000


def simulate_selection(mech, queries, runs: int, rng: np.random.Generator,
                       order: str = "given") -> np.ndarray:
    """Which queries each of ``runs`` independent runs of ``mech`` selects (module docstring).

    Parameters
    ----------
    mech : ThresholdMechanism, ExponentialTopMechanism or RetraversalMechanism
        A Sparse Vector variant with a cutoff ``c``, ``em_top`` or ``svt_retraversal``.
    queries : str or sequence of numbers
        The query answers ``q_i``.
    runs : int
        The number of runs, at least 1.
    rng : numpy.random.Generator
        The only source of randomness.
    order : {"given", "random"}
        Queries examined in the given order, or each run in a fresh uniformly random one.

    Returns
    -------
    numpy.ndarray of bool, shape (runs, n)
        True where the run selected query ``i`` (``i`` in the given order of ``queries``).

    Raises
    ------
    InputError
        For an unknown order, fewer than one run, more than
        :data:`~exactdp.checks.MAX_SIMULATED_ENTRIES` runs × queries (the selections, and the
        noise of em_top, are held in arrays of that size), a mechanism that is not a selection
        mechanism with a cutoff, a cutoff above the number of queries, or a retraversal run
        that has not selected ``c`` queries after :data:`SIMULATED_TRAVERSALS` traversals.

    Examples
    --------
    >>> from exactdp import mechanism
    >>> selected = simulate_selection(mechanism("em_top", eps=1, c=2), [3, 0, 1], 4,
    ...                               np.random.default_rng(7))
    >>> selected.shape, selected.sum(axis=1).tolist()
    ((4, 3), [2, 2, 2, 2])
    """
    if order not in ORDERS:
        raise InputError(f"order must be given or random, got {order!r}")
    values = query_array(queries)
    check_runs(runs, values.size)
    check_cutoff(selection_cutoff(mech, "simulate_selection"), values.size)
    if isinstance(mech, ExponentialTopMechanism):
        return _exponential_top(mech, values, runs, rng)
    orders = None  # each run's order of examination, row r: the queries run r examines in turn
    if order == "random":
        orders = rng.permuted(np.tile(np.arange(values.size), (runs, 1)), axis=1)
    if isinstance(mech, RetraversalMechanism):
        return _retraversal(mech, values, runs, rng, orders)
    return _sparse_vector(mech, values, runs, rng, orders)


def check_runs(runs, n: int) -> None:
    """Refuse, in one line, a number of runs that is not a positive integer or whose selections
    on ``n`` queries exceed :data:`~exactdp.checks.MAX_SIMULATED_ENTRIES` (callers check before
    long work)."""
    if isinstance(runs, bool) or not isinstance(runs, (int, np.integer)) or runs < 1:
        raise InputError(f"runs must be a positive integer, got {runs!r}")
    check_simulation_size("runs", runs, n, "queries")


def run_rates(selected: np.ndarray, queries, c: int) -> tuple:
    """``(fnr, ser)``: the false negative rate and score error rate of each run,
    ``FNR = 1 − |selected ∩ top c|/c`` and ``SER = 1 − Σ_{i selected} q_i / Σ_{i ∈ top c} q_i``
    (:func:`exactdp.exact.selection.selection_rates`, the definitions of ``E[FNR]`` and
    ``E[SER]``; top ``c``: :func:`exactdp.exact.selection.true_top`).

    Parameters
    ----------
    selected : numpy.ndarray of bool, shape (runs, n)
        The selections of the runs (:func:`simulate_selection`).
    queries : str or sequence of numbers
        The query answers ``q_i`` (the true top ``c`` is decided on their exact values).
    c : int
        The cutoff.

    Returns
    -------
    fnr : numpy.ndarray of float, shape (runs,)
    ser : numpy.ndarray of float, shape (runs,), or None
        ``None`` when ``Σ_{i ∈ top c} q_i ≤ 0`` (as ``Utility.ser``).

    Examples
    --------
    >>> fnr, ser = run_rates(np.array([[True, False, True], [True, True, False]]), [3, 1, 0], 2)
    >>> fnr.tolist(), ser.tolist()
    ([0.5, 0.0], [0.25, 0.0])
    """
    values = as_queries(queries).expand()
    selected = np.asarray(selected, dtype=bool)
    if selected.ndim != 2 or selected.shape[1] != len(values):
        raise InputError(f"selected must have one column per query ({len(values)}), got shape "
                         f"{selected.shape}")
    check_cutoff(c, len(values))
    weights = [column.astype(float) for column in selected.T]
    return selection_rates(weights, values, true_top(values, c), float)


def _in_given_order(chosen: np.ndarray, orders: np.ndarray | None) -> np.ndarray:
    """``chosen[r, k]`` refers to query ``orders[r, k]``: the same selections indexed by query
    (``orders`` ``None``: already so)."""
    if orders is None:
        return chosen
    selected = np.empty_like(chosen)
    np.put_along_axis(selected, orders, chosen, axis=1)
    return selected


def _exponential_top(mech: ExponentialTopMechanism, values: np.ndarray, runs: int,
                     rng: np.random.Generator) -> np.ndarray:
    noisy = mech.noise.sample(rng, (runs, values.size), loc=values)
    top = np.argpartition(-noisy, mech.c - 1, axis=1)[:, :mech.c]
    selected = np.zeros(noisy.shape, dtype=bool)
    np.put_along_axis(selected, top, True, axis=1)
    return selected


def _sparse_vector(mech: ThresholdMechanism, values: np.ndarray, runs: int,
                   rng: np.random.Generator, orders: np.ndarray | None) -> np.ndarray:
    """The sampler's ⊤'s.  In random order the runs sharing a permutation are drawn together
    (one call of the sampler per distinct permutation: for few queries many runs share one)."""
    if orders is None:
        return sample(mech, values, runs, rng).answers == 1
    distinct, group, sizes = np.unique(orders, axis=0, return_inverse=True, return_counts=True)
    members = np.split(np.argsort(group.reshape(-1), kind="stable"), np.cumsum(sizes)[:-1])
    chosen = np.empty(orders.shape, dtype=bool)
    for permutation, rows in zip(distinct, members):
        chosen[rows] = sample(mech, values[permutation], rows.size, rng).answers == 1
    return _in_given_order(chosen, orders)


def _retraversal(mech: RetraversalMechanism, values: np.ndarray, runs: int,
                 rng: np.random.Generator, orders: np.ndarray | None) -> np.ndarray:
    """Traversal after traversal, the positions in blocks of at most :data:`BLOCK_DRAWS` draws
    over the runs still going: the positions that pass (and were not selected before), up to the
    run's ``c``-th selection, are selected (the noise drawn past it is never used)."""
    n, c = values.size, mech.c
    answers = np.broadcast_to(values, (runs, n)) if orders is None else values[orders]
    threshold = mech.threshold_noise.sample(rng, runs, loc=float(mech.threshold))
    chosen = np.zeros((runs, n), dtype=bool)
    counts = np.zeros(runs, dtype=np.int64)
    going = np.arange(runs)
    for _ in range(SIMULATED_TRAVERSALS):
        start = 0
        while start < n and going.size:
            stop = min(n, start + max(1, BLOCK_DRAWS // going.size))
            noisy = mech.query_noise.sample(rng, (going.size, stop - start),
                                            loc=answers[going, start:stop])
            passing = (noisy >= threshold[going, None]) & ~chosen[going, start:stop]
            taken = passing & (np.cumsum(passing, axis=1) <= (c - counts[going])[:, None])
            chosen[going, start:stop] |= taken
            counts[going] += taken.sum(axis=1)
            going = going[counts[going] < c]
            start = stop
        if not going.size:
            return _in_given_order(chosen, orders)
    raise InputError(f"{mech.name}: {going.size} of {runs} runs selected fewer than c={c} "
                     f"queries in {SIMULATED_TRAVERSALS} traversals (the queries rarely pass "
                     f"the threshold T={mech.threshold}; lower it)")
