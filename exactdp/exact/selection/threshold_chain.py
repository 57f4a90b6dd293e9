"""The chain of thresholds of Sparse Vector with a threshold redrawn after each ⊤ (Lyu, Su &
Li, "Understanding the Sparse Vector Technique for Differential Privacy", PVLDB 10(6), 2017,
arXiv:1603.01699, Alg. 2), in the given order, on the nodes of one quadrature rule
(docs/mathematics.md §12.1).

At a node ``z_ν`` (weight ``w_ν``, threshold density ``p_ρ``) query ``k`` passes with
``S_k(ν)`` and fails with ``F_k(ν)``.  The ``r``-th threshold is drawn at position ``p`` with
probability ``a_r(p)`` (``a_1(0) = 1``), the ``r``-th ⊤ falls at ``k`` with probability

    π_r(k) ∈ Σ_ν w_ν p_ρ(z_ν) S_k(ν) G_r(k, ν) ± E,    G_r(k, ν) = Σ_{p≤k} a_r(p) Π_{p≤j<k} F_j(ν),

``E`` the rule's error, and ``a_{r+1}(k + 1) = π_r(k)``; query ``k`` is selected with
probability ``P_k = Σ_{r≤c} π_r(k)``.  Two ways to run it, both ``O(n·c·m)`` for ``n`` queries
and ``m`` nodes:

* :func:`chain_by_recurrence`: ``G_r(k + 1) = G_r(k)·F_k + a_r(k + 1)``, all levels advanced
  together, one array operation per query in any arithmetic of ``exact/backends/interval_arrays.py``
  (double-precision intervals up to about 8 digits); a level begins only once the starts it
  has been offered exceed a budget.
* :func:`chain_in_blocks`: in Arb balls, ``G_r(k, ν) = E_k(ν)·H_r(k, ν)`` with
  ``E_k = Π_{j<k} F_j`` and ``H_r(k) = Σ_{p≤k} a_r(p)/E_p``; over a block of queries the sums
  over the nodes are three products of Arb matrices, which Arb computes in C, instead of one
  Python-level operation per node, level and query.  The quotients stay finite and exact to
  the working precision whatever their size: every ``F`` is a positive ball (Arb's exponents do
  not underflow) and every sum has positive terms.
"""

from __future__ import annotations

import numpy as np
from flint import arb, arb_mat, ctx

#: Queries per block of :func:`chain_in_blocks`: the sums over the nodes are products of
#: ``B × m`` by ``m × c`` matrices, plus ``B × B`` within the block.
CHAIN_BLOCK = 16


def chain_by_recurrence(arithmetic, passing: list, failing: list, positions: list, c: int,
                        error: arb, budget: arb, progress=None) -> list:
    """``P_k`` for every query ``k`` (module docstring), by the recurrence over the queries.

    Parameters
    ----------
    arithmetic : FloatIntervals or ArbArrays
        The array arithmetic (``exact/backends/interval_arrays.py``).
    passing, failing : list
        For each distinct answer, its column over the nodes of ``w_ν p_ρ(z_ν) S(ν)`` and of
        ``F(ν)``, lifted into ``arithmetic`` with shape ``(m, 1)``.
    positions : list
        The distinct answer of each query, in order.
    c : int
        The cutoff.
    error : arb
        The rule's error ``E`` on each ``π_r(k)``.
    budget : arb
        Level ``r`` begins once the starts it has been offered exceed ``budget``; the starts
        left out and their descendants add at most their mass to each ``P_k`` (a path of ⊤
        positions reaches ``k`` at most once), a one-sided ball.
    progress : callable, optional
        Called with ``0`` and a note per thousand queries.

    Returns
    -------
    list of arb
    """
    nodes, n = passing[0].shape[-2], len(positions)
    offered, left_out = arb(0), arb(0)  # offered: the starts of the next level, not begun
    # G_r(k, ν) + a_r(k) of the levels begun, at k = 0 the first threshold, for level 1
    chain = arithmetic.constant(1, (nodes, 1))
    one = arithmetic.constant(1, (1, 1))
    selected = []
    for k, answer in enumerate(positions):
        latest = arithmetic.pad(arithmetic.dot(passing[answer], chain), error)  # π_r(k)
        selected.extend(arithmetic.balls(arithmetic.total(latest, -1)))
        if k + 1 == n:
            break
        begun = chain.shape[-1]
        if begun < c:  # the last level's π(k) is offered to the next
            offer = arithmetic.upper(latest[..., -1])
            if offered + offer <= budget:
                offered += offer
            else:  # the next level begins with this start, the earlier ones left out
                chain = np.concatenate((chain, arithmetic.constant(0, (nodes, 1))), axis=-1)
                begun, left_out, offered = begun + 1, left_out + offered, arb(0)
        starts = np.concatenate((arithmetic.constant(0, (1,)), latest[..., :begun - 1]),
                                axis=-1)  # a_r(k + 1) = π_{r−1}(k)
        # G·F + a·1: one fused step (in doubles, one widening for its three roundings)
        chain = arithmetic.mul_add(chain, failing[answer], starts[..., None, :], one)
        _report(progress, k, n)
    missing = arb(0).union(arb((left_out + offered).upper()))
    return [p + missing for p in selected]


def chain_in_blocks(passing: list, failing: list, positions: list, c: int, error: arb,
                    progress=None, threads: int = 1) -> list:
    """``P_k`` for every query ``k`` (module docstring), in blocks of :data:`CHAIN_BLOCK`
    queries of Arb matrix products.

    With ``u_k = w p_ρ S_k E_k`` and ``v_p = 1/E_p`` (vectors over the nodes), a block of
    queries ``k_0 ≤ k < k_0 + B`` needs ``X = U·H(k_0 − 1)`` (rows ``u_k``) and
    ``L = U·V^T`` (``L_{kp} = u_k·v_p``): ``π(k) = X_k + Σ_{k_0≤p≤k} L_{kp} a(p)``, the vector
    over the levels, and ``a(k + 1)`` is ``π(k)`` moved up a level.  Then
    ``H(k_0 + B − 1) = H(k_0 − 1) + V^T A`` (rows ``a(p)``).  Every level is followed from the
    start (the products cost the same for all ``c``), so nothing is left out; the rule's error
    ``E`` is added to each ``π_r(k)`` that can be positive, ``r ≤ k + 1``.

    Parameters
    ----------
    passing, failing : list
        For each distinct answer, a numpy object array over the nodes of the balls
        ``w_ν p_ρ(z_ν) S(ν)`` and of ``F(ν)``, every ``F`` positive.
    positions, c, error, progress
        As for :func:`chain_by_recurrence`.
    threads : int
        The threads FLINT runs each matrix product in (every entry is computed by one of them
        in the same way, so the balls do not depend on it).

    Returns
    -------
    list of arb
    """
    previous = ctx.threads
    ctx.threads = threads
    try:
        return _blocks(passing, failing, positions, c, error, progress)
    finally:
        ctx.threads = previous


def _blocks(passing: list, failing: list, positions: list, c: int, error: arb,
            progress) -> list:
    """The loop of :func:`chain_in_blocks` over its blocks of queries."""
    nodes, n = len(passing[0]), len(positions)
    below = np.empty(nodes, dtype=object)  # E_k, the product of the fails before k
    below.fill(arb(1))
    sums = arb_mat(nodes, c)  # H(k_0 − 1), zero before the first block
    start = [arb(1)] + [arb(0)] * (c - 1)  # a(0): the first threshold, level 1
    pad = arb(0, error.upper())
    selected = []
    for first in range(0, n, CHAIN_BLOCK):
        block = positions[first:first + CHAIN_BLOCK]
        rows, inverses = [], []  # u_k, and v_k = 1/E_k
        for answer in block:
            rows.append(list(passing[answer] * below))
            inverses.append(list(1 / below))
            below = below * failing[answer]
        across, inverse = arb_mat(rows), arb_mat(inverses).transpose()
        before, within = across * sums, across * inverse
        starts = arb_mat(len(block), c)  # rows a(k)
        for i in range(len(block)):
            for r in range(c):
                starts[i, r] = start[r]
            # the rows of the later starts are still zero: Σ_{p≤k} L_kp a(p)
            coupled = arb_mat([[within[i, j] for j in range(len(block))]]) * starts
            # π(k): level r (column r − 1) is exactly 0 before query r − 1, so only the first
            # k + 1 levels carry the rule's error
            reached = min(c, first + i + 1)
            latest = ([before[i, r] + coupled[0, r] + pad for r in range(reached)]
                      + [before[i, r] + coupled[0, r] for r in range(reached, c)])
            selected.append(sum(latest, arb(0)))
            start = [arb(0)] + latest[:-1]  # a(k + 1) = π(k) a level up
            _report(progress, first + i, n)
        sums = sums + inverse * starts
    return selected


def _report(progress, k: int, n: int) -> None:
    """Call ``progress`` with a note after each thousandth query."""
    if progress is not None and (k + 1) % 1000 == 0:
        progress(0, note=f"queries chained: {k + 1} of {n}")
