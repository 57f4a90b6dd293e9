"""Integrals equal by a symmetry of their noises: one key for every integral that a permutation
of independent noises of one law, or the reflection of all noises, maps onto another.

An integral of the form is ``E[Π densities; x ∈ R]``: noises ``x_1, …, x_n``, independent,
``x_v ~ law_v``, the densities released ``p_d(x_v − s)``, ``R`` the intersection of the
comparisons.  A linear map of the noises that preserves their joint law maps it onto the
integral of the mapped region and densities, of the same value:

* a **permutation** ``π`` that maps each noise to one of the same law (and the same released
  densities): the noises are independent and identically distributed within each group;
* the **reflection** ``x ↦ −x`` of every noise, where every law is symmetric and continuous
  (``NoiseLaw.symmetric``, not integer-valued): a bound ``x_i − x_j < c`` becomes
  ``x_j − x_i < c``, a density ``p(x − s)`` becomes ``p(x + s)``, and a CDF ``F(z − s)`` of a
  one-hub integral the survival function ``S(z + s)`` (``F(−y) = S(y)``).

Where every comparison of a group (a :class:`~.nested_integral.NestedIntegral`,
:class:`~.nested_integral.HubPair` or :class:`~.nested_integral.HubTriple`) is a *difference
bound* ``x_i − x_j < c`` (a noise with another, coefficient 1, or with a constant,
``x_0 = 0``), ``R`` is the set of points satisfying their **closure** ``M``, the tightest
bound ``M_ij`` on each ``x_i − x_j`` that they imply (shortest paths in the graph of the
bounds, Floyd–Warshall): each closed bound is implied by the given ones, which are among the
closed ones or weaker (the canonical difference-bound matrix of Dill, "Timing assumptions and
verification of finite-state concurrent systems", Automatic Verification Methods for Finite
State Systems, LNCS 407, 1989).  Equal closures mean equal regions, whatever bounds are
implied, so the key of a group is the smallest closure over the permutations within its groups
of equal noises (at most :data:`MOST_PERMUTATIONS`) and the reflection (the transpose).
k-Min-Max's ``Pr[η₁ < η₃ < η₂]`` and ``Pr[η₁ < η₂ < η₃]`` (with ``η₃ > η₁`` implied) have one
key for three noises of one law: its two-hub terms of one input are four integrals instead of
eight.  A group with another
bound (a coefficient other than 0 or 1), an empty closure (a cycle of length ``≤ 0``) or more
permutations is its own key.  The key of a one-hub :class:`~.integral_form.Integral` is the
smaller of it and its reflection.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

from ...noise import Kind
from .integral_form import Integral
from .nested_integral import Branch, HubPair, HubTriple, NestedIntegral

#: Most permutations of equal noises tried for the smallest closure.
MOST_PERMUTATIONS = 720
#: A factor's function under the reflection.
REFLECTED = {Kind.CDF: Kind.SF, Kind.SF: Kind.CDF, Kind.PDF: Kind.PDF}


def reflectable(laws) -> bool:
    """Whether every law is symmetric and continuous: the reflection preserves their law."""
    return all(law.symmetric and not law.integer_valued for law in laws)


def integral_key(integral: Integral):
    """A hashable key, equal for a one-hub integral and its reflection
    ``∫_{−upper}^{−lower} p(z) Π g'_j(z + s_j) dz`` (module docstring); the integral itself
    where the laws are not all symmetric and continuous."""
    laws = [integral.hub] + [factor.law for factor in integral.factors]
    if not reflectable(laws):
        return integral
    reflected = (tuple(sorted(((repr(f.law), REFLECTED[f.kind].value, -f.shift, f.power)
                               for f in integral.factors))),
                 _negated(integral.upper), _negated(integral.lower))
    own = (tuple(sorted((repr(f.law), f.kind.value, f.shift, f.power)
                        for f in integral.factors)), integral.lower, integral.upper)
    return repr(integral.hub), min(own, reflected, key=_order)


def _negated(bound: Fraction | None) -> Fraction | None:
    return None if bound is None else -bound


def _order(key: tuple) -> tuple:
    """A total order on ``(factors, lower, upper)`` (an infinite bound after every number)."""
    factors, lower, upper = key
    return factors, _entry(lower), _entry(upper)


def group_key(integral: NestedIntegral | HubPair | HubTriple):
    """A hashable key, equal for two groups (trees, two or three hubs) whose values are equal
    by the closure of their difference bounds, a permutation of equal noises and the reflection
    (module docstring); the integral itself where that does not apply."""
    noises = _noises(integral)
    if noises is None:
        return integral
    laws, densities, bounds = noises
    closure = _closure(len(laws), bounds)
    if closure is None:
        return integral
    sides = [(densities, closure)]
    if reflectable(integral.laws()):
        sides.append(([tuple(sorted(((law, -shift) for law, shift in own), key=repr))
                       for own in densities],
                      [list(column) for column in zip(*closure)]))
    keys = [_smallest(laws, own, matrix) for own, matrix in sides]
    return integral if None in keys else min(keys)


def _smallest(laws: list, densities: list, closure: list) -> tuple | None:
    """``(labels, closure)`` smallest over the permutations of equal noises (``None``: too
    many)."""
    labels = [repr((law, own)) for law, own in zip(laws, densities)]
    order = sorted(range(1, len(labels)), key=lambda v: labels[v])
    groups = [list(group) for _, group in itertools.groupby(order, key=lambda v: labels[v])]
    if math.prod(math.factorial(len(group)) for group in groups) > MOST_PERMUTATIONS:
        return None
    best = None
    for chosen in itertools.product(*(itertools.permutations(group) for group in groups)):
        placed = [0] + [v for group in chosen for v in group]
        matrix = tuple(tuple(_entry(closure[i][j]) for j in placed) for i in placed)
        best = matrix if best is None or matrix < best else best
    return tuple(labels[v] for v in order), best


def _entry(bound: Fraction | None) -> tuple:
    """A bound as a totally ordered value (no bound after every number)."""
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


def _noises(integral) -> tuple[list, list, list] | None:
    """``(laws, densities, bounds)``: each noise's law and released densities ``(law, shift)``
    (index 0: the constant 0) and each comparison as ``(i, j, c)``, ``x_i − x_j < c``;
    ``None`` where a comparison is not a difference bound."""
    laws: list = [None]
    densities: list = [()]
    bounds: list = []

    def add(law, own, lowers, uppers, parents) -> bool:
        """A noise compared with ``parents[k]`` (its index) where the bound's ``k``-th
        coefficient is 1 (with 0 where all are 0)."""
        v = len(laws)
        laws.append(law)
        densities.append(tuple(sorted(own, key=repr)))
        for bound, sign in [(b, 1) for b in lowers] + [(b, -1) for b in uppers]:
            alpha, coefficients = bound[0], bound[1:]
            linked = [parent for parent, beta in zip(parents, coefficients) if beta != 0]
            if (len(coefficients) != len(parents) or len(linked) > 1
                    or any(beta not in (0, 1) for beta in coefficients)):
                return False
            other = linked[0] if linked else 0
            # v > α + x_other: x_other − x_v < −α; v < α + x_other: x_v − x_other < α
            bounds.append((other, v, -alpha) if sign == 1 else (v, other, alpha))
        return True

    def branch(node: Branch, parent: int) -> bool:
        index = len(laws)
        return (add(node.law, node.densities, node.lowers, node.uppers, [parent])
                and all(branch(child, index) for child in node.children))

    if isinstance(integral, NestedIntegral):
        return (laws, densities, bounds) if branch(integral.root, 0) else None
    if isinstance(integral, HubPair):
        hubs = branch(integral.outer, 0) and branch(integral.inner, 1)
    else:   # HubTriple: its inner hub a leaf of the outer two
        hubs = (branch(integral.outer, 0) and branch(integral.middle, 1)
                and add(integral.inner.law, integral.inner.densities, integral.inner.lowers,
                        integral.inner.uppers, [1, 2]))
    parents = list(range(1, len(laws)))
    if hubs and all(add(leaf.law, leaf.densities, leaf.lowers, leaf.uppers, parents)
                    for leaf in integral.leaves):
        return laws, densities, bounds
    return None
