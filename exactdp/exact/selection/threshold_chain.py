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
and ``m`` nodes, in blocks of queries whose sums over the nodes are matrix products:

* :func:`chain_in_doubles`: in doubles, by numpy and BLAS, each ``P_k`` enclosed by the
  a-priori bound on the rounding of sums and products of non-negative numbers
  (``exact/backends/rounding_bounds.py``) and one more column of the chain, which carries the
  error of each step; used where that bound fits the accuracy asked.
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

from ..backends.rounding_bounds import LIFT_FLOOR, UNDERFLOW, factor_bound, fits

#: Queries per block of :func:`chain_in_blocks`: the sums over the nodes are products of
#: ``B × m`` by ``m × c`` matrices, plus ``B × B`` within the block.
CHAIN_BLOCK = 16
#: Queries per block of :func:`chain_in_doubles` at most: the products over a block's nodes are
#: ``B × m`` by ``m × (c + 1)`` and ``m × B`` by ``B × (c + 1)``, plus ``B × B``.
DOUBLE_BLOCK = 128
#: ``log2`` of the least product of fails at a node within a block of :func:`chain_in_doubles`.
BLOCK_FLOOR_LOG2 = -470


def chain_in_doubles(passing: np.ndarray, failing: np.ndarray, positions: list, c: int,
                     error: arb, input_error: arb, tolerance: arb, progress=None) -> list | None:
    """``P_k`` for every query ``k`` (module docstring) in doubles, by numpy and BLAS products
    over blocks of queries, each ``P_k`` a ball from the a-priori bound on their rounding
    (docs/mathematics.md §12.5); ``None`` where that bound does not fit ``tolerance``
    (:func:`~exactdp.exact.backends.rounding_bounds.fits`), or a fail is below
    :data:`~exactdp.exact.backends.rounding_bounds.LIFT_FLOOR`.

    Within a block from ``k_0`` with ``D_k = Π_{k_0≤j<k} F_j`` the chain is the Arb one's
    (:func:`chain_in_blocks`) with ``G(k_0)`` carried in place of ``H``:
    ``π(k) = [W·G(k_0)]_k + Σ_{k_0≤p≤k} [W·Vᵀ]_{kp} a(p)``, rows ``w_k = u_k D_k`` and
    ``v_p = 1/D_p``, and ``G(k_0 + B) = D_{k_0+B}∘G(k_0) + Rᵀ A``, ``R_p = Π_{p≤j<k_0+B} F_j``.
    A block ends before ``D`` falls below ``2^{−470}`` at a node, so every ``w``, ``v``, ``R``
    and ``w·v`` is a normal double.  Beside the levels, as many columns carry a bound
    ``e_r(k)`` on the error of each ``π_r(k)`` (the rule's, the rounding and the underflow),
    which the chain moves up a level like an error of a start.

    Parameters
    ----------
    passing, failing : numpy.ndarray
        ``u = w_ν p_ρ(z_ν) S(ν)`` and ``F(ν)``, one row per distinct answer, one column per
        node: doubles within the relative error ``input_error`` of the exact values (``u`` may
        be 0 where the exact value is within ``error``'s share, see ``error``), every ``u`` at
        most 1.
    positions, c
        As for :func:`chain_in_blocks`.
    error : arb
        A bound on the rule's error for ``K[p][k]`` over the starts ``p`` and queries ``k``
        (with what ``u`` lifted as 0 leaves out).
    input_error : arb
        The relative error ``ε`` of the doubles.
    tolerance : arb
        The accuracy asked of each ``P_k``.
    progress : callable, optional
        Called with ``0`` and a note per thousand queries.

    Returns
    -------
    list of arb or None
    """
    nodes, n = passing.shape[1], len(positions)
    smallest = failing.min(axis=1)
    if smallest.min() < LIFT_FLOOR:
        return None
    blocks = _blocks_in_range(np.log2(smallest), positions)
    # roundings (and factors of the input) of a term from a start to a π: one step within a
    # block, then one per carry (docs/mathematics.md §12.5)
    roundings = nodes + 3 * DOUBLE_BLOCK + 6 + len(blocks) * (DOUBLE_BLOCK + 2)
    theta = factor_bound(roundings, n + 1, input_error)
    if not fits(theta, tolerance):
        return None
    underflow = (nodes + DOUBLE_BLOCK + 8 * nodes * len(blocks) * (DOUBLE_BLOCK + 1)) * (
        16 * UNDERFLOW)
    # what a level's error gains at each π: the rule's error, the underflow, and θ times π
    gain = (_upward((error * (1 + theta) + 2 * underflow) / (1 - theta)),
            _upward(theta / (1 - theta)))
    growth = ((1 + theta) / (1 - theta) ** 2) ** c  # Λ: the error columns' own rounding
    sums, errors = np.zeros(n), np.zeros(n)
    carried = np.zeros((nodes, 2 * c))  # G(k_0): the levels, then their errors
    start = np.zeros(2 * c)
    start[0] = 1.0  # a(0): the first threshold, level 1
    for first, last in blocks:
        carried, start = _block(passing, failing, positions[first:last], first, c, carried,
                                start, gain, sums, errors, progress)
    if not (np.isfinite(sums).all() and np.isfinite(errors).all()):
        return None
    summing = factor_bound(2 * c, 0, arb(0))  # (1 − u')^{−c} − 1: a sum of c terms
    return [arb(s) + arb(0, (summing * arb(s) + growth * (1 + summing) * arb(e)).upper())
            for s, e in zip(sums.tolist(), errors.tolist())]


def _block(passing, failing, rows: list, first: int, c: int, carried: np.ndarray,
           start: np.ndarray, gain: tuple, sums: np.ndarray, errors: np.ndarray,
           progress) -> tuple:
    """One block of :func:`chain_in_doubles` from query ``first`` (answers ``rows``):
    ``Ŝ_k`` and ``Ê_k`` (the sums over the levels and over their errors) into ``sums`` and
    ``errors``, and ``(G(k_0 + B), a(k_0 + B))``."""
    size = len(rows)
    below = np.empty((size + 1, carried.shape[0]))  # D_k, k_0 ≤ k ≤ k_0 + B
    below[0] = 1.0
    np.cumprod(failing[rows], axis=0, out=below[1:])
    weighted = passing[rows] * below[:size]
    before, within = weighted @ carried, weighted @ (1.0 / below[:size]).T
    rest = np.cumprod(failing[rows[::-1]], axis=0)[::-1]  # R_p, each start p of the block
    starts = np.zeros((size, 2 * c))  # rows a(p)
    starts[0] = start
    for i in range(size):
        k = first + i
        latest = before[i] + within[i, :i + 1] @ starts[:i + 1]
        reached = min(c, k + 1)  # the levels that can be positive
        latest[c:c + reached] += gain[0] + gain[1] * latest[:reached]
        sums[k], errors[k] = latest[:c].sum(), latest[c:].sum()
        start = np.concatenate(([0.0], latest[:c - 1], [0.0], latest[c:-1]))  # a(k + 1)
        if i + 1 < size:
            starts[i + 1] = start
        _report(progress, k, len(sums))
    carried *= below[size][:, None]
    carried += rest.T @ starts
    return carried, start


def _blocks_in_range(smallest_log: np.ndarray, positions: list) -> list:
    """``(first, last)`` of each block of :func:`chain_in_doubles`: at most
    :data:`DOUBLE_BLOCK` queries, and the product of their least fails (``log2`` of each in
    ``smallest_log``, per answer) at least ``2^{−470}``, unless the block is one query."""
    blocks, first, n = [], 0, len(positions)
    while first < n:
        last, total = first, 0.0
        while last < n and last - first < DOUBLE_BLOCK:
            total += smallest_log[positions[last]]
            if total < BLOCK_FLOOR_LOG2 and last > first:
                break
            last += 1
        blocks.append((first, last))
        first = last
    return blocks


def _upward(bound: arb) -> float:
    """The upper end of ``bound`` as a double at least as large."""
    return float(np.nextafter(float(bound.upper()), np.inf))


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
    positions : list
        The distinct answer of each query, in order.
    c : int
        The cutoff.
    error : arb
        The rule's error ``E`` on each ``π_r(k)``.
    progress : callable, optional
        Called with ``0`` and a note per thousand queries.
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
