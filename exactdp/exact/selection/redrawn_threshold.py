"""Sparse Vector with its threshold redrawn after each ⊤ (``svt2``; Lyu, Su & Li,
"Understanding the Sparse Vector Technique for Differential Privacy", PVLDB 10(6), 2017,
Alg. 2), in the given order: the probabilities of the next ⊤ from each position, chained on the
nodes of one certified quadrature rule (``threshold_chain.py``)."""

from __future__ import annotations

import functools

from flint import arb

from ...mechanisms.description import ThresholdMechanism
from ..backends.interval_arrays import ArbArrays
from ..backends import rounding_bounds
from ..backends.rounding_bounds import relative_doubles
from ..backends.vector_quadrature import quadrature_rule
from .kinds import EVALUATION_COST
from .pass_probabilities import PassProbabilities
from .threshold_chain import chain_in_blocks, chain_in_doubles

#: Steps of the chain of a redrawn threshold (one query, one level, one node:
#: :func:`redrawn_threshold`) taken to cost about one call of the quadrature's bound
#: (0.2–0.6 ms); it steers the choice of rule (``integrate_vector``'s ``evaluation_cost``).  Set
#: when a step cost about 0.2 µs in Arb object arrays; in Arb matrix products it costs about
#: 50 ns (577 s for 10,000 queries, 300 levels, 4046 nodes), in double intervals a few ns, so it
#: now overstates a node's cost: the search spends more bounds than needed to save nodes.
CHAIN_STEPS_PER_BOUND = 1000


def redrawn_threshold(mech: ThresholdMechanism, values: list, c: int, tolerance: arb,
                      progress, jobs: int) -> list:
    """Lyu Alg. 2 (threshold redrawn after each ⊤), given order.  From a fresh threshold at
    position ``p`` the next ⊤ is at ``k ≥ p`` with probability
    ``K[p][k] = ∫ p_ρ(z) S_k(z) Π_{p≤j<k} F_j(z) dz``; the ``r``-th ⊤ is at ``k`` with
    probability ``π_r(k) = Σ_{p≤k} a_r(p)·K[p][k]``, ``a_r(p) = π_{r−1}(p − 1)`` the
    probability that the ``r``-th threshold is drawn at ``p`` (``a_1(0) = 1``), and
    ``P_k = Σ_{r≤c} π_r(k)``.

    One Gauss–Legendre rule (:func:`~exactdp.exact.backends.vector_quadrature.quadrature_rule`:
    nodes ``z_ν``, weights ``w_ν``) integrates every ``K[p][k]`` within the same ``E``, its
    bound covering every ``p_ρ·S_k·Π_{j∈J} F_j`` (:meth:`PassProbabilities.bound`).  At a node
    the kernel is a product of a factor of ``p`` and one of ``k``, so the sums over the starts
    are a chain over the queries, ``O(n·c·m)`` operations for ``m`` nodes
    (``threshold_chain.py``): in doubles where the a-priori bound on their rounding fits the
    tolerance (:func:`~exactdp.exact.selection.threshold_chain.chain_in_doubles`), otherwise
    in Arb balls (docs/mathematics.md §12.1, §12.5).  The rule is searched in ``jobs`` worker
    processes; the chain, whose every step sums over all the nodes, runs in this one, its Arb
    matrix products in ``jobs`` threads.  ``progress`` is called with ``0`` and a note while
    the rule is searched, then per thousand queries of the chain."""
    share = tolerance / (4 * c)  # the rule's error enters each P_k once per level
    laws = PassProbabilities(mech.threshold_noise, mech.query_noise, mech.threshold, values,
                              share)
    n = len(values)
    nodes, error = quadrature_rule(functools.partial(laws.bound, without_pass=True),
                                   laws.cuts, laws.tails, share,
                                   max(EVALUATION_COST, c * n / CHAIN_STEPS_PER_BOUND),
                                   progress=progress, jobs=jobs)
    fast = _in_doubles(laws, nodes, c, error, tolerance, progress)
    if fast is not None:
        return fast
    passing, failing = _node_balls(laws, nodes)
    return chain_in_blocks([ArbArrays.lift(column) for column in passing],
                           [ArbArrays.lift(column) for column in failing], laws.positions, c,
                           error, progress, threads=jobs)


def _node_balls(laws: PassProbabilities, nodes: list) -> tuple:
    """``w p_ρ S`` and ``F`` of each distinct answer at the nodes, Arb balls: per answer, a list
    over the nodes."""
    passing, failing = [], []  # at each node, for each distinct answer
    for z, weight, middle in nodes:
        density, passes, fails = laws.distinct_values(z, middle)
        passing.append([weight * density * s for s in passes])
        failing.append(fails)
    return list(zip(*passing)), list(zip(*failing))


def _in_doubles(laws: PassProbabilities, nodes: list, c: int, error: arb, tolerance: arb,
                progress) -> list | None:
    """:func:`~exactdp.exact.selection.threshold_chain.chain_in_doubles` on the node values in
    doubles (:meth:`PassProbabilities.distinct_doubles` from closed forms, else the Arb balls
    lifted), or ``None`` where it does not apply: a ``w p_ρ S`` above 1, a fail too small, or
    a rounding bound beyond its share of ``tolerance`` (never when
    :data:`~exactdp.exact.backends.rounding_bounds.DOUBLE_SHARE` is 0: then nothing is
    computed).  Each ``w p_ρ S`` taken as 0 adds at most its bound to every
    kernel value per node."""
    if rounding_bounds.DOUBLE_SHARE == 0:
        return None
    lifted = laws.distinct_doubles(nodes)
    if lifted is None:
        passing, failing = _node_balls(laws, nodes)
        weighted, input_error, dropped, largest = relative_doubles(passing)
        fails, fail_error, _, _ = relative_doubles(failing)
        input_error = max(input_error, fail_error)
    else:
        weighted, fails, input_error, dropped, largest = lifted
    if largest > 1:
        return None
    left_out = dropped * int((weighted == 0).any(axis=0).sum())
    return chain_in_doubles(weighted, fails, laws.positions, c, error + left_out, input_error,
                            tolerance, progress)
