"""The Gauss–Legendre planner: per piece, the fewest nodes whose rigorous error bound fits the
piece's share of the tolerance, on the best of some Bernstein ellipses, or the verdict that the
piece must be split.

The ``n``-point rule on a piece of half-width ``h`` errs by at most

    E(n, ρ) = h · (64/15) · M_ρ · ρ^{2−2n} / (ρ² − 1)

for ``|f| ≤ M_ρ`` on the Bernstein ellipse ``E_ρ`` of the piece (``backends/gauss_legendre.py``;
Trefethen, *Approximation Theory and Approximation Practice*, SIAM 2013, Thm 19.3).  Every
``ρ > 1`` gives a valid bound: a larger ``ρ`` gains ``2·log ρ`` per node, but ``M_ρ`` grows on
the larger ellipse (they are nested).  Solving ``E(n, ρ) ≤ share`` for ``n`` gives the fewest
nodes (:func:`fewest_nodes`); a piece on which every ellipse tried needs more than the largest
rule allowed must be split (its halves have smaller ``h`` and, for an integrand with
singularities off the piece, ellipses that stay away from them).

The callers give ``log M_ρ`` through a hook, one ``ρ`` at a time.  Where it is cheap and
vectorised (sums of logs in double precision) :func:`plan` tries every ``ρ`` for every
integrand and piece at once; where each ``M_ρ`` costs a cover of the ellipse by complex balls,
:func:`climb` tries few, starting from the previous piece's choice, and checks its bound in
balls (:func:`checked_nodes`).
"""

from __future__ import annotations

import math
from typing import Callable, NamedTuple, Sequence

import numpy as np
from flint import arb

from ...precision import to_arb
from .gauss_legendre import error_bound, log_error_bound

#: Rules with more nodes than this are never used: :func:`checked_nodes` does not check them.
MAX_NODES = 1_000_000


def fewest_nodes(half, rho, log_modulus, log_share):
    """The fewest nodes ``n ≥ 2`` with ``log E(n, ρ) ≤ log_share``, ``log M_ρ = log_modulus``:

        n = max(2, ⌈1 + (log E(1, ρ) − log_share) / (2 log ρ)⌉)

    in double precision (floats, or numpy arrays broadcast together; ``+inf`` where
    ``M_ρ = ∞``).  A bound that needs an exact check raises it by its rounding
    (:func:`checked_nodes`)."""
    log_head = log_error_bound(half, rho, 1, log_modulus)
    order = np.maximum(2, np.ceil(1 + (log_head - log_share) / (2 * np.log(rho))))
    return int(order) if np.ndim(order) == 0 and np.isfinite(order) else order


def checked_nodes(modulus: arb, rho: arb, half: arb, share: arb) -> tuple:
    """``(n, E(n, ρ))`` for the fewest nodes ``n ≥ 2`` from :func:`fewest_nodes` whose bound,
    evaluated in balls (``gauss_legendre.error_bound``), is at most ``share``: ``n`` is raised
    until the check passes.

    Beyond :data:`MAX_NODES` (an astronomically large ``M``, as on a large ellipse around a
    double exponential) the ball check may never pass, its powers of ``ρ`` too wide: the ``n``
    from the logarithms is returned with an infinite bound, a rule no caller uses."""
    if not modulus.is_finite():
        return MAX_NODES + 1, arb("inf")
    largest = arb(modulus.upper())
    log_modulus = float(largest.log().upper()) if largest > 0 else -math.inf
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        order = fewest_nodes(float(half.upper()), float(rho.mid()), log_modulus,
                             float(share.log().lower()))
    if not isinstance(order, int):  # not finite
        return MAX_NODES + 1, arb("inf")
    if order > MAX_NODES:
        return order, arb("inf")
    while True:
        error = error_bound(modulus, rho, order, half)
        if error <= share:
            return order, error
        order += 1


class Plan(NamedTuple):
    """The rules :func:`plan` chose.

    ``orders`` holds per piece the most nodes any integrand needs on its best ellipse (0 where
    none is ``needed``); ``split`` whether that exceeds ``max_order`` (the piece must be split);
    ``rules``, with a ladder, per integrand and piece the rule it takes (the first rung of the
    ladder at or above its own need; None without); ``log_errors`` per integrand and piece the
    log of the bound of its rule (that of ``orders[p]`` nodes without a ladder) on the
    integrand's best ellipse (``+inf`` on a split piece)."""

    orders: np.ndarray
    split: np.ndarray
    log_errors: np.ndarray
    rules: np.ndarray | None = None


def plan(half, log_modulus: Callable, log_share, rhos: Sequence, max_order=None,
         needed=None, ladder=None) -> Plan:
    """Per piece the fewest nodes on the best ellipse of ``rhos``, every ellipse tried
    (module docstring), in double precision.

    Parameters
    ----------
    half : array
        The pieces' half-widths, shape ``(P,)``.
    log_modulus : callable
        ``log_modulus(k)`` → ``log M`` on the ellipse ``rhos[k]`` of every piece, for every
        integrand: an array of shape ``(…, P)`` (leading axes, if any, index the integrands;
        ``nan`` or ``+inf`` where not finite).
    log_share : array
        The log of each integrand's share of the tolerance on each piece, broadcast against
        ``(…, P)``.
    rhos : sequence
        The ellipse parameters tried (each a number, or an array over the pieces).
    max_order : int, optional
        The largest rule allowed: a piece needing more is marked ``split``.
    needed : bool array, optional
        Which integrands need a rule on which piece (shape ``(…, P)``); all by default.
    ladder : sequence of int, optional
        Increasing rule sizes ending at ``max_order`` or above: each integrand takes its own
        rule on each piece, the first rung at or above its need (integrands that each sum only
        their own rule share the nodes of a few rules per piece), instead of the piece's most.

    Returns
    -------
    Plan
        The orders per piece, the pieces to split, and each integrand's bound on each piece.
    """
    moduli = [log_modulus(k) for k in range(len(rhos))]
    best = np.inf
    for rho, modulus in zip(rhos, moduli):
        best = np.minimum(best, np.nan_to_num(fewest_nodes(half, rho, modulus, log_share),
                                              nan=np.inf))
    best = np.broadcast_to(best, np.broadcast(best, half).shape)
    if needed is not None:
        best = np.where(needed, best, 0)
    orders = np.max(best, axis=tuple(range(best.ndim - 1)), initial=0) if best.ndim > 1 else best
    split = orders > max_order if max_order is not None else np.zeros(orders.shape, dtype=bool)
    rules = None
    if ladder is None:
        rule = np.where(split, 2, np.maximum(orders, 2))
    else:
        rungs = np.asarray(ladder)
        rung = np.minimum(np.searchsorted(rungs, np.minimum(best, rungs[-1])), len(rungs) - 1)
        rule = rules = np.where(split, 2, rungs[rung])
    log_errors = np.inf
    for rho, modulus in zip(rhos, moduli):
        error = log_error_bound(half, rho, rule, modulus)
        log_errors = np.minimum(log_errors, np.nan_to_num(error, nan=np.inf))
    log_errors = np.where(split, np.inf, log_errors)
    return Plan(orders, split, log_errors, rules)


def climb(modulus: Callable, half: arb, share: arb, rhos: Sequence, start: int, last: int,
          max_order: int, cover_cost: float, evaluation_cost: float = 1,
          previous: int | None = None):
    """``(order, error bound, index in rhos)`` of the fewest nodes (at most ``max_order``) found
    over the ellipses ``rhos[:last + 1]`` (increasing) whose bound, checked in balls
    (:func:`checked_nodes`), is at most ``share``; ``None`` if none was found (the piece must be
    split).

    ``modulus(k)`` → a bound of ``M`` on the ellipse ``rhos[k]`` (an exact ``arb``), or ``None``
    where it is not finite; each costs ``cover_cost``, a node ``evaluation_cost``.  The search
    starts at ``rhos[start]`` (the previous piece's choice) and climbs while a larger ellipse
    may save nodes costing more than its bound: ``M`` only grows with ``ρ``, so the nodes the
    current ``M`` would need on the larger ellipse are a lower bound of what it needs.  Where the
    start needs more than ``max_order`` nodes or ``M`` is not finite, it descends instead, and
    also while it needs more nodes than the ``previous`` piece's rule by more than a bound's
    cost and the smaller ellipse needs fewer (an ellipse too large for this piece).  Where the
    start's ``M`` is finite but no smaller ellipse fits, the first larger one that does is
    taken: a piece whose integrand barely grows off the real line gains too few digits per node
    on a small ellipse (``ρ = 2``: 0.6) however short it is, so splitting it would never help.
    Every bound is valid, so any choice is rigorous."""
    def nodes(k):
        """``(order, error bound, M)`` on the ellipse ``rhos[k]``; ``None`` where ``M`` is not
        finite."""
        bound = modulus(k)
        if bound is None:
            return None
        return (*checked_nodes(bound, to_arb(rhos[k]), half, share), bound)

    index = start
    found = nodes(index)
    while found is None or found[0] > max_order:  # too large an ellipse for this piece
        if index == 0:  # or too small: the start's M was finite but its nodes too many
            if found is None:
                return None
            for larger in range(start + 1, last + 1):
                found = nodes(larger)
                if found is None:
                    return None
                if found[0] <= max_order:
                    return found[0], found[1], larger
            return None
        index -= 1
        found = nodes(index)
        if found is not None and found[0] <= max_order:
            return found[0], found[1], index
    descended = False
    while (index > 0 and previous is not None
           and (found[0] - previous) * evaluation_cost >= cover_cost):
        smaller = nodes(index - 1)
        if smaller is None or smaller[0] >= found[0]:
            break
        index, found, descended = index - 1, smaller, True
    while not descended and index < last:
        least = checked_nodes(found[2], to_arb(rhos[index + 1]), half, share)[0]
        if (found[0] - least) * evaluation_cost < cover_cost:
            break
        larger = nodes(index + 1)
        if larger is None or larger[0] >= found[0]:
            break
        index, found = index + 1, larger
    return found[0], found[1], index
