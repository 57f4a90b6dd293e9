"""The chain of thresholds of Sparse Vector with a redrawn threshold
(exactdp/exact/selection/threshold_chain.py), on given node values, against its definition summed
in exact rationals: ``π_r(k) = Σ_{p≤k} a_r(p) Σ_ν W_ν S_k(ν) Π_{p≤j<k} F_j(ν)``, ``a_1(0) = 1``,
``a_{r+1}(k + 1) = π_r(k)``, ``P_k = Σ_{r≤c} π_r(k)`` — a double sum over the starts, not the
recurrence or the matrix products under test.
"""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest
from flint import arb, ctx

from exactdp.exact.selection import threshold_chain
from exactdp.exact.backends.interval_arrays import ArbArrays
from exactdp.exact.selection.threshold_chain import chain_in_blocks, chain_in_doubles
from exactdp.precision import to_arb


def random_nodes(seed: int, nodes: int, answers: int, queries: int):
    """Exact rationals: per distinct answer its ``W·S`` and ``F`` at each node (``W`` a node's
    weight times density, ``S + F = 1``), and the answer of each query."""
    rng = random.Random(seed)
    weights = [Fraction(rng.randint(1, 99), 100 * nodes) for _ in range(nodes)]
    passes = [[Fraction(rng.randint(1, 999), 1000) for _ in range(nodes)]
              for _ in range(answers)]
    passing = [[w * s for w, s in zip(weights, column)] for column in passes]
    failing = [[1 - s for s in column] for column in passes]
    positions = [rng.randrange(answers) for _ in range(queries)]
    return passing, failing, positions


def exact_chain(passing, failing, positions, c: int) -> list:
    """``P_k`` in exact rationals from the definition (module docstring)."""
    n, nodes = len(positions), len(passing[0])
    starts = {(1, 0): Fraction(1)}  # a_r(p)
    selected = []
    for k in range(n):
        total = Fraction(0)
        for r in range(1, c + 1):
            pi = Fraction(0)
            for p in range(k + 1):
                start = starts.get((r, p), Fraction(0))
                if start:
                    for nu in range(nodes):
                        product = passing[positions[k]][nu]
                        for j in range(p, k):
                            product *= failing[positions[j]][nu]
                        pi += start * product
            total += pi
            if r < c:
                starts[(r + 1, k + 1)] = pi
        selected.append(total)
    return selected


def as_columns(columns) -> list:
    """Each column as a numpy object array of exact balls."""
    return [ArbArrays.lift([to_arb(x) for x in column]) for column in columns]


@pytest.mark.parametrize("block", [1, 3, 16])
def test_blocks_equal_the_definition(block, monkeypatch):
    # 11 queries over 3 answers, 4 nodes, c = 3: with blocks of 1 and 3 every query is in a
    # later block than some of its starts, and the last block is partial
    monkeypatch.setattr(threshold_chain, "CHAIN_BLOCK", block)
    passing, failing, positions = random_nodes(1, 4, 3, 11)
    reference = exact_chain(passing, failing, positions, 3)
    with ctx.workprec(100):
        result = chain_in_blocks(as_columns(passing), as_columns(failing), positions, 3,
                                 arb(0))
        for ball, exact in zip(result, reference):
            assert ball.overlaps(to_arb(exact)) and ball.rad() < 1e-25, (ball, exact)


def as_doubles(columns) -> np.ndarray:
    """The exact rationals as the nearest doubles, one row per column."""
    return np.array([[float(x) for x in column] for column in columns])


@pytest.mark.parametrize("c", [1, 3, 11])
def test_doubles_equal_the_definition(c, monkeypatch):
    # blocks of 4 over 11 queries (a partial last block), each double within 2^−53 of its
    # rational: enclosures of the definition's sums, about 12 digits wide
    monkeypatch.setattr(threshold_chain, "DOUBLE_BLOCK", 4)
    passing, failing, positions = random_nodes(2, 4, 3, 11)
    reference = exact_chain(passing, failing, positions, c)
    result = chain_in_doubles(as_doubles(passing), as_doubles(failing), positions, c, arb(0),
                              arb(2) ** -52, arb(10) ** -6)
    for ball, exact in zip(result, reference):
        assert ball.overlaps(to_arb(exact)) and ball.rad() < 1e-12, (ball, exact)


def test_doubles_contain_the_arb_chain_with_a_rule_error():
    # 60 nodes, 40 queries, c = 20, E = 2^−40: the error columns bound what the rule's error
    # carries forward as the Arb balls do; the balls in doubles hold the Arb chain's and are
    # at most a tenth wider (the rounding bound)
    passing, failing, positions = random_nodes(4, 60, 5, 40)
    error = arb(2) ** -40
    with ctx.workprec(100):
        careful = chain_in_blocks(as_columns(passing), as_columns(failing), positions, 20, error)
    quick = chain_in_doubles(as_doubles(passing), as_doubles(failing), positions, 20, error,
                             arb(2) ** -52, arb(10) ** -6)
    for fast, slow in zip(quick, careful):
        assert fast.contains(slow) and fast.rad() < 1.1 * slow.rad(), (fast, slow)


def test_doubles_split_blocks_where_fails_are_tiny():
    # fails of 2^−300 at the first five queries: a block may hold at most one of them (two
    # would take D below 2^−470), and the chain still agrees with the definition, within the
    # a-priori bound (about 10^−13 per step, carried by the error columns)
    nodes = 3
    positions = [0] * 5 + [1] * 7
    tiny = Fraction(1, 2 ** 300)
    passing = [[(1 - tiny) / nodes] * nodes, [Fraction(1, 4 * nodes)] * nodes]
    failing = [[tiny] * nodes, [Fraction(3, 4)] * nodes]
    blocks = threshold_chain._blocks_in_range(np.log2(as_doubles(failing).min(axis=1)),
                                              positions)
    assert [last - first for first, last in blocks] == [1, 1, 1, 1, 8]
    reference = exact_chain(passing, failing, positions, 2)
    result = chain_in_doubles(as_doubles(passing), as_doubles(failing), positions, 2, arb(0),
                              arb(2) ** -52, arb(10) ** -6)
    for ball, exact in zip(result, reference):
        assert ball.overlaps(to_arb(exact)) and ball.rad() < 1e-11, (ball, exact)


def test_doubles_decline_what_their_bound_cannot_certify():
    # the relative error of the inputs (2^−20) over 11 queries and 4 nodes exceeds a 16th of
    # a tolerance of 10^−9, and a fail below 2^−500 cannot be lifted with a relative error
    passing, failing, positions = random_nodes(2, 4, 3, 11)
    assert chain_in_doubles(as_doubles(passing), as_doubles(failing), positions, 3, arb(0),
                            arb(2) ** -20, arb(10) ** -9) is None
    tiny = as_doubles(failing)
    tiny[0, 0] = 2.0 ** -600
    assert chain_in_doubles(as_doubles(passing), tiny, positions, 3, arb(0), arb(2) ** -52,
                            arb(10) ** -6) is None


def test_blocks_pad_every_level_by_the_rule_error():
    # the error E enters each π_r(k) that can be positive (r ≤ k + 1), so P_k by at least
    # min(c, k + 1)·E (and by what the earlier errors carry forward), P_0 by E alone; c = 3
    passing, failing, positions = random_nodes(3, 2, 2, 5)
    error = arb(2) ** -40
    with ctx.workprec(100):
        exact = chain_in_blocks(as_columns(passing), as_columns(failing), positions, 3, arb(0))
        padded = chain_in_blocks(as_columns(passing), as_columns(failing), positions, 3, error)
    for k, (a, b) in enumerate(zip(exact, padded)):
        assert b.contains(a) and min(3, k + 1) * 0.999 <= b.rad() / error
    assert padded[0].rad() / error < 1.001


def test_blocks_keep_tiny_fails_finite():
    # fails of e^{−5000} at every node: their products 10^{−2000} and beyond, and the quotients
    # 1/E_p as large, stay finite balls; the first query passes at once, the others hardly
    nodes, n = 3, 40
    positions = [0] * 5 + [1] * (n - 5)
    with ctx.workprec(100):
        tiny = arb(-5000).exp()
        passing = [ArbArrays.lift([arb(1) / nodes] * nodes),
                   ArbArrays.lift([tiny / nodes] * nodes)]
        failing = [ArbArrays.lift([tiny] * nodes), ArbArrays.lift([1 - tiny] * nodes)]
        result = chain_in_blocks(passing, failing, positions, 2, arb(0))
    assert all(p.is_finite() for p in result)
    # P_0 = 1 (the first query passes), P_1 = 1 (so does the second, against the threshold
    # drawn after the first ⊤), then c = 2 is reached
    assert result[0].contains(1) and result[0].rad() < 1e-25
    assert result[1].contains(1) and result[1].rad() < 1e-25
    assert all(abs(p) < arb(-4000).exp() for p in result[5:])


def test_threads_give_the_same_balls():
    # 60 nodes, 40 queries, c = 20: the matrix products in two threads, the same balls as in
    # one, and FLINT's thread count restored
    passing, failing, positions = random_nodes(4, 60, 5, 40)
    before = ctx.threads
    with ctx.workprec(100):
        results = [chain_in_blocks(as_columns(passing), as_columns(failing), positions, 20,
                                   arb(2) ** -90, threads=threads) for threads in (1, 2)]
    assert ctx.threads == before
    for a, b in zip(*results):
        assert a.mid() == b.mid() and a.rad() == b.rad()
