"""The given-order sweep ``h_i = Σ_{m<c} [x^m] Π_{j<i}(F_j + S_j x)`` (the probability that
fewer than ``c`` of the queries before ``i`` pass; ``generating.fewer_before`` in Arb balls) in
doubles, by numpy, with the a-priori bound on its rounding (``backends/rounding_bounds.py``;
docs/mathematics.md §12.5): every coefficient is a sum of products of non-negative numbers.

In blocks of :data:`BLOCK` queries from ``b``: with ``p`` the coefficients of the prefix
``P = Π_{j<b}(F_j + S_j x)`` truncated at degree ``c``, ``C_l = Σ_{m<c−l} p_m`` and
``Q_t = Π_{b≤j<b+t}(F_j + S_j x)``, ``h_{b+t} = Σ_{l≤t} [x^l]Q_t·C_l`` (one matrix-vector
product for the block), and ``P ← P·Q_B`` truncated at degree ``c`` (one convolution).  The
``Q_t`` of many blocks are formed at once, one array operation per ``t``: those of
:data:`FIRST_BLOCKS` blocks at least and past the ``c``-th query (the sweep may stop soon after
it), then four times as many in each pass.
"""

from __future__ import annotations

import numpy as np
from flint import arb

from ..backends.rounding_bounds import UNDERFLOW, factor_bound

#: Queries per block of :func:`fewer_before_in_doubles`.
BLOCK = 32
#: Fewest blocks whose products ``Q_t`` are formed in the first pass.
FIRST_BLOCKS = 16


def sweep_bounds(n: int, c: int, input_error: arb) -> tuple:
    """``(θ, η)`` with ``|h_i − ĥ_i| ≤ θ·ĥ_i + η`` for every ``ĥ_i``, ``i < n``, that
    :func:`fewer_before_in_doubles` computes from doubles ``S_j``, ``F_j`` within the relative
    error ``ε = input_error`` of the exact ones (docs/mathematics.md §12.5).

    Each term of ``ĥ_i``, ``i`` in the ``k``-th block, went through ``3B + 1`` roundings per
    earlier block (``2B`` forming ``Q_B``, ``B + 1`` in the convolution's dot products), then
    ``c − 1`` in the cumulative sum, ``2B`` forming ``Q_t`` and ``B + 1`` in the last dot
    product, and has at most ``n`` inputs: ``θ = factor_bound(N(3B + 2) + c, n, ε)`` over the
    ``N`` blocks.  A product that underflows errs by at most ``2^{−1075}``, and an error in a
    coefficient reaches each ``ĥ_i`` with a total weight at most ``(1 + θ) ≤ 2`` (the
    coefficients of ``Π(F_j + S_j x)`` sum to 1, to within ``θ``); a block takes at most
    ``(B + 1)(c + 2B + 2)`` products."""
    blocks = -(-n // BLOCK)
    theta = factor_bound(blocks * (3 * BLOCK + 2) + c, n, input_error)
    products = blocks * (BLOCK + 1) * (c + 2 * BLOCK + 2)
    eta = 2 * products * UNDERFLOW
    return theta, arb(eta.upper())


def fewer_before_in_doubles(passes: np.ndarray, fails: np.ndarray, positions: np.ndarray,
                            c: int, stop_below: float, limit: int) -> tuple:
    """``ĥ_i`` for the first ``limit`` queries (module docstring; ``passes[positions[i]]``,
    ``fails[positions[i]]`` the doubles of query ``i``), ``1`` exactly for ``i < c``, up to the
    first ``i ≥ c`` with ``ĥ_i ≤ stop_below``: ``(ĥ before it, ĥ_i)``, or ``(all, None)``
    when there is none (the sum cannot grow with ``i``: the caller bounds the rest by it).
    ``stop_below`` is to hold ``ĥ_i(1 + θ) + η`` below the negligible level
    (:func:`sweep_bounds`)."""
    swept = np.ones(limit)
    if c >= limit:
        return swept, None
    order = positions[:limit]
    prefix = np.zeros(c)
    prefix[0] = 1.0
    done, blocks = 0, max(FIRST_BLOCKS, c // BLOCK + 2)  # the sweep runs past c at least
    while done < limit:
        count = min(blocks, -(-(limit - done) // BLOCK))
        products = _block_products(fails[order[done:done + count * BLOCK]],
                                   passes[order[done:done + count * BLOCK]], count)
        for product in products:
            # C_l = Σ_{m<c−l} p_m for l ≤ B (0 beyond the prefix's degree)
            taken = np.cumsum(prefix)[::-1][:BLOCK + 1]
            if len(taken) <= BLOCK:
                taken = np.concatenate((taken, np.zeros(BLOCK + 1 - len(taken))))
            values = product[:BLOCK] @ taken
            size = min(BLOCK, limit - done)
            low = np.flatnonzero(values[:size] <= stop_below)
            low = low[done + low >= c]
            if low.size:
                stop = done + low[0]
                swept[max(c, done):stop] = values[max(c, done) - done:low[0]]
                return swept[:stop], float(values[low[0]])
            swept[max(c, done):done + size] = values[max(c, done) - done:size]
            prefix = np.convolve(prefix, product[BLOCK])[:c]
            done += size
            if done >= limit:
                break
        blocks *= 4
    return swept, None


def _block_products(fails: np.ndarray, passes: np.ndarray, count: int) -> np.ndarray:
    """``[x^l]Q_t`` for ``count`` blocks of :data:`BLOCK` queries (the last one padded with
    ``F = 1``, ``S = 0``, which change nothing exactly), ``t, l ≤ B``: an array
    ``(count, B + 1, B + 1)``, row ``t`` the product of the block's first ``t`` factors."""
    size = count * BLOCK
    padded_fails, padded_passes = np.ones(size), np.zeros(size)
    padded_fails[:len(fails)], padded_passes[:len(passes)] = fails, passes
    padded_fails = padded_fails.reshape(count, BLOCK).T.copy()  # one row per t, over the blocks
    padded_passes = padded_passes.reshape(count, BLOCK).T.copy()
    product = np.zeros((BLOCK + 1, BLOCK + 1, count))  # the blocks last: each step is contiguous
    product[0, 0] = 1.0
    moved = np.empty((BLOCK + 1, count))
    for t in range(BLOCK):
        np.multiply(product[t, :t + 2], padded_fails[t], out=product[t + 1, :t + 2])
        np.multiply(product[t, :t + 1], padded_passes[t], out=moved[:t + 1])
        product[t + 1, 1:t + 2] += moved[:t + 1]
    product = product.transpose(2, 0, 1).copy()
    return product
