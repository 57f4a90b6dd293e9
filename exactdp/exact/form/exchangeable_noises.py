"""Integrals over several noises that are equal because their noises are exchangeable: one key
for every :class:`~.nested_integral.HubPair` or :class:`~.nested_integral.NestedIntegral`
whose region is the same up to a permutation of independent noises of equal law.

Such an integral is ``Pr[x ∈ R]`` weighted by the densities released: noises ``x_1, …, x_n``,
independent, ``x_v ~ law_v`` times its density factors ``Π p_d(x_v − s)``, and ``R`` the
intersection of its comparisons.  Where every comparison is a *difference bound*
``x_i − x_j < c`` (a noise with another, bound coefficient 1, or with a constant: ``x_0 = 0``),
``R`` is the set of points satisfying the **closure** of the bounds, the tightest bound
``M_ij`` on each ``x_i − x_j`` that they imply (the shortest path from ``i`` to ``j`` in the
graph of the bounds; Floyd–Warshall): each closed bound is implied by the given ones, and the
given ones are among the closed ones or weaker.  Two integrals whose closures are equal have
the same region, and so the same value; so have two whose closures are equal after a
permutation ``π`` of the noises that maps each noise to one of the same law and density
factors, since ``x ↦ (x_{π(v)})`` preserves the joint density and maps one region onto the
other (Dill, "Timing assumptions and verification of finite-state concurrent systems",
Automatic Verification Methods for Finite State Systems, LNCS 407, 1989: the canonical
difference-bound matrix).  k-Min-Max's ``Pr[η₁ < η₃ < η₂]`` and ``Pr[η₁ < η₂ < η₃]`` (with
``η₃ > η₁`` implied) are one key for three noises of one law: its two-hub terms of one input
compute four integrals instead of eight, and 7 instead of 28 on ``{0,1}^3``.

The key is the smallest closure over the permutations within the groups of equal noises (at
most :data:`MOST_PERMUTATIONS` of them); an integral with another bound (a coefficient other
than 0 or 1), an empty closure (a cycle of non-positive length) or more permutations is its
own key.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

from .nested_integral import Branch, HubPair, NestedIntegral

#: Most permutations of equal noises tried for the smallest closure.
MOST_PERMUTATIONS = 720


def group_key(integral: HubPair | NestedIntegral):
    """A hashable key, equal for two integrals whose values are equal by the closure of their
    difference bounds and a permutation of equal noises (module docstring); the integral itself
    where that does not apply."""
    noises = _noises(integral)
    if noises is None:
        return integral
    labels, bounds = noises
    closure = _closure(len(labels), bounds)
    if closure is None:
        return integral
    order = sorted(range(1, len(labels)), key=lambda v: repr(labels[v]))
    groups = [list(group) for _, group in itertools.groupby(order, key=lambda v: repr(labels[v]))]
    if math.prod(math.factorial(len(group)) for group in groups) > MOST_PERMUTATIONS:
        groups = [[v] for v in order]
    best = None
    for chosen in itertools.product(*(itertools.permutations(group) for group in groups)):
        placed = [0] + [v for group in chosen for v in group]
        matrix = tuple(tuple(_entry(closure[i][j]) for j in placed) for i in placed)
        best = matrix if best is None or matrix < best else best
    return tuple(repr(labels[v]) for v in [0] + order), best


def _entry(bound: Fraction | None) -> tuple:
    """A closed bound as a totally ordered value (no bound after every number)."""
    return (1, 0) if bound is None else (0, bound)


def _closure(size: int, bounds: list) -> list | None:
    """``M[i][j]``, the tightest bound on ``x_i − x_j`` the bounds ``(i, j, c)`` (``x_i − x_j <
    c``) imply (``None``: none), by Floyd–Warshall; ``None`` where a cycle has length ``≤ 0``
    (the region is empty)."""
    matrix: list = [[None] * size for _ in range(size)]
    for i, j, c in bounds:
        if matrix[i][j] is None or c < matrix[i][j]:
            matrix[i][j] = c
    for k in range(size):
        for i in range(size):
            if matrix[i][k] is None:
                continue
            for j in range(size):
                if matrix[k][j] is not None:
                    through = matrix[i][k] + matrix[k][j]
                    if matrix[i][j] is None or through < matrix[i][j]:
                        matrix[i][j] = through
    if any(matrix[i][i] is not None and matrix[i][i] <= 0 for i in range(size)):
        return None
    return matrix


def _noises(integral) -> tuple[list, list] | None:
    """``(labels, bounds)``: each noise's ``(law, density factors)`` (index 0: the constant 0)
    and each comparison as ``(i, j, c)``, ``x_i − x_j < c``; ``None`` where a comparison is not
    a difference bound."""
    labels: list = [None]
    bounds: list = []

    def add(label, lowers, uppers, parents) -> bool:
        """A noise compared with ``parents[k]`` (its index) where the bound's ``k``-th
        coefficient is 1 (with 0 where all are 0)."""
        v = len(labels)
        labels.append(label)
        for bound, sign in [(b, 1) for b in lowers] + [(b, -1) for b in uppers]:
            alpha, coefficients = bound[0], bound[1:]
            linked = [parent for parent, beta in zip(parents, coefficients) if beta != 0]
            if any(beta not in (0, 1) for beta in coefficients) or len(linked) > 1:
                return False
            other = linked[0] if linked else 0
            # v > α + x_other: x_other − x_v < −α; v < α + x_other: x_v − x_other < α
            bounds.append((other, v, -alpha) if sign == 1 else (v, other, alpha))
        return True

    def branch(node: Branch, parent: int) -> bool:
        index = len(labels)
        return (add((node.law, node.densities), node.lowers, node.uppers, [parent])
                and all(branch(child, index) for child in node.children))

    if isinstance(integral, HubPair):
        if not (branch(integral.outer, 0) and branch(integral.inner, 1)):
            return None
        for leaf in integral.leaves:
            if not add((leaf.law, leaf.densities), leaf.lowers, leaf.uppers, [1, 2]):
                return None
        return labels, bounds
    return (labels, bounds) if branch(integral.root, 0) else None
