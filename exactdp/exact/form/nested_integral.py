"""The nested integral: a group of noises whose comparisons form a tree.

When the noises of a group are compared along the edges of a tree (each comparison a relation
on two noises, no cycle), the group's probability is a nested integral.  Root the tree at a
noise ``r``; every other noise ``v`` with parent ``u`` contributes its *message*

    m_v(z) = ∫_{L_v(z)}^{U_v(z)} p_v(y) · Π_k p_{d_k}(y − s_k) · Π_{c child of v} m_c(y) dy,

the probability, given ``u = z``, that ``v`` lies between its bounds and its subtree satisfies
its own: ``L_v(z) = max_i (α_i + β_i z)`` over its lower bounds, ``U_v(z) = min_i (α_i + β_i z)``
over its upper bounds (a bound with ``β = 0`` is a comparison of ``v`` with a constant),
``p_{d_k}(y − s_k)`` the densities of the values released as ``v`` plus a constant.  The root is
the same expression with constant bounds, and the group's probability is its value.  A tree
whose noises are each compared with the root only is a star: the one-dimensional integral of
``integral_form.py`` (which the programs keep for it).

:class:`Branch` holds one noise of the tree with its subtree; :class:`NestedIntegral` the root.
The certified back-ends evaluate it (``backends/nested_messages.py`` in closed form for
piecewise exponential laws, ``backends/nested_quadrature.py`` by nested quadrature for smooth
ones); the other methods do not.  The functions below are the geometry both share: where a
message's bounds cross or meet a break of its integrand, which bounds are active on a piece,
and the cells of the plane of a :class:`HubPair`'s two hubs.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction

from ...noise import NoiseLaw
from .integral_form import interior_point


@dataclass(frozen=True)
class Branch:
    """A noise ``v ~ law`` of the tree and its subtree: ``m_v(z)`` of the module docstring.

    ``lowers`` and ``uppers`` list ``(α, β)``: ``v > α + β·z`` and ``v < α + β·z`` for the
    parent's value ``z`` (``β = 0`` for a constant bound, and at the root); ``densities`` lists
    ``(law, shift)``: a factor ``p_law(y − shift)`` of ``v``'s value ``y``."""

    law: NoiseLaw
    lowers: tuple[tuple[Fraction, Fraction], ...] = ()
    uppers: tuple[tuple[Fraction, Fraction], ...] = ()
    densities: tuple[tuple[NoiseLaw, Fraction], ...] = ()
    children: tuple["Branch", ...] = ()

    def laws(self) -> list[NoiseLaw]:
        """Every law of the subtree (the noises and the densities)."""
        laws = [self.law] + [law for law, _ in self.densities]
        for child in self.children:
            laws += child.laws()
        return laws

    def reach(self) -> Fraction:
        """The largest ``|α|`` and ``|shift|`` of the subtree: how far from 0 it is evaluated."""
        points = [abs(alpha) for alpha, _ in self.lowers + self.uppers]
        points += [abs(shift) for _, shift in self.densities]
        points += [child.reach() for child in self.children]
        return max(points, default=Fraction(0))


@dataclass(frozen=True)
class NestedIntegral:
    """The probability of a tree of compared noises: the message of the root :class:`Branch`,
    whose bounds are constants.  It stands in a term where an
    :class:`~.integral_form.Integral` does."""

    root: Branch

    #: the domain is decided when the messages are computed (an exact zero then)
    is_empty = False

    @property
    def magnitude(self) -> Fraction:
        """How large the logs get, for the working precision: the number of laws times their
        largest ``NoiseLaw.log_size`` at the largest bound or shift (as
        :attr:`~.integral_form.Integral.magnitude`)."""
        return magnitude_of(self.root.laws(), self.root.reach())

    def laws(self) -> list[NoiseLaw]:
        """Every law of the integral."""
        return self.root.laws()


def magnitude_of(laws: list[NoiseLaw], reach: Fraction) -> Fraction:
    """The number of laws times their largest ``NoiseLaw.log_size`` at ``reach``."""
    return len(laws) * max(law.log_size(reach) for law in laws)


@dataclass(frozen=True)
class Leaf:
    """A noise ``v ~ law`` compared with the hubs of a :class:`HubPair` (and constants):
    ``v > α + β₁z₁ + β₂z₂`` for each ``(α, β₁, β₂)`` of ``lowers``, ``<`` for ``uppers``
    (one of ``β₁``, ``β₂`` is 0: a comparison involves two noises); ``densities`` as in
    :class:`Branch`."""

    law: NoiseLaw
    lowers: tuple[tuple[Fraction, Fraction, Fraction], ...] = ()
    uppers: tuple[tuple[Fraction, Fraction, Fraction], ...] = ()
    densities: tuple[tuple[NoiseLaw, Fraction], ...] = ()


@dataclass(frozen=True)
class HubPair:
    """A group whose other noises are compared with two hubs only: the outer hub ``z₁`` and
    the inner hub ``z₂``, each a :class:`Branch` without children (the outer's bounds
    constants, the inner's linear in ``z₁``: the hubs' own comparisons bound the region),
    and the :class:`Leaf` noises.  Its probability is

        ∫ p₁(z₁) ∫_{L₂(z₁)}^{U₂(z₁)} p₂(z₂) Π_i Pr[L_i(z₁, z₂) < v_i < U_i(z₁, z₂)] dz₂ dz₁,

    a product of one-dimensional factors under an integral over the two hubs.  It stands in a
    term where an :class:`~.integral_form.Integral` does."""

    outer: Branch
    inner: Branch
    leaves: tuple[Leaf, ...]

    is_empty = False

    def laws(self) -> list[NoiseLaw]:
        """Every law of the integral."""
        laws = self.outer.laws() + self.inner.laws()
        for leaf in self.leaves:
            laws += [leaf.law] + [law for law, _ in leaf.densities]
        return laws

    @property
    def magnitude(self) -> Fraction:
        """As :attr:`NestedIntegral.magnitude`."""
        points = [self.outer.reach(), self.inner.reach()]
        for leaf in self.leaves:
            points += [abs(bound[0]) for bound in leaf.lowers + leaf.uppers]
            points += [abs(shift) for _, shift in leaf.densities]
        return magnitude_of(self.laws(), max(points))


def bound_crossings(bounds: list) -> set:
    """The points ``z`` where two bounds ``α + βz`` of different slopes meet."""
    return {(a2 - a1) / (b1 - b2) for (a1, b1), (a2, b2) in itertools.combinations(bounds, 2)
            if b1 != b2}


def message_breaks(lowers, uppers, integrand_breaks) -> list:
    """The breaks of a message ``m_v(z)`` (increasing): where two of its bounds ``(α, β)``
    cross and where a bound meets a break ``b`` of its integrand, ``z = (b − α)/β``."""
    bounds = list(lowers) + list(uppers)
    points = bound_crossings(bounds)
    points.update((b - alpha) / beta for alpha, beta in bounds if beta != 0
                  for b in integrand_breaks)
    return sorted(points)


def active_bounds(lowers, uppers, z):
    """``(lower, upper)``: the bounds active at ``z`` (the largest lower, the smallest upper;
    ``None`` where there is none), or ``None`` where ``U(z) ≤ L(z)`` (the message is 0).  A
    bound is ``(α, β)``, ``α + βz``, or for a :class:`Leaf` ``(α, β₁, β₂)`` at the point
    ``z = (t₁, t₂)``, ``α + β₁t₁ + β₂t₂``."""
    def value(bound):
        if len(bound) == 3:
            return bound[0] + bound[1] * z[0] + bound[2] * z[1]
        return bound[0] + bound[1] * z
    lower = max(lowers, key=value, default=None)
    upper = min(uppers, key=value, default=None)
    if lower is not None and upper is not None and value(upper) <= value(lower):
        return None
    return lower, upper


def _cut(difference, lines: set, verticals: set) -> None:
    """Where ``α + β₁z₁ + β₂z₂ = 0``: the line ``z₂ = −(α + β₁z₁)/β₂``, the vertical line
    ``z₁ = −α/β₁``, or nothing."""
    alpha, beta1, beta2 = difference
    if beta2 != 0:
        lines.add((-alpha / beta2, -beta1 / beta2))
    elif beta1 != 0:
        verticals.add(-alpha / beta1)


def plane_cells(integral: HubPair, inner_breaks, leaf_breaks) -> tuple[list, list]:
    """The cells of the plane of a :class:`HubPair`'s hubs ``(z₁, z₂)`` on which every active
    bound and every piece is fixed: ``(breaks, pieces)``, ``pieces[i]`` on the ``z₁``-piece
    ``(breaks[i−1], breaks[i])`` the list of its cells ``(low, high, (t₁, t₂))`` between the
    lines ``z₂ = α + βz₁`` ``low`` and ``high`` (``(α, β)``, ``None``: infinite), ``(t₁, t₂)``
    a point inside; the cells outside the inner hub's bounds are left out.

    The plane is cut by the lines where two bounds of one leaf are equal or a bound meets a
    break of its leaf (``leaf_breaks[i]`` those of ``integral.leaves[i]``), by the inner hub's
    bounds and the horizontal lines ``z₂ = b`` for ``b`` in ``inner_breaks``; every crossing
    of two lines and every vertical line is a break of ``z₁``."""
    inner = integral.inner
    lines = {(b, Fraction(0)) for b in inner_breaks}
    lines.update(inner.lowers + inner.uppers)
    verticals: set = set()
    for leaf, breaks in zip(integral.leaves, leaf_breaks):
        bounds = leaf.lowers + leaf.uppers
        for first, second in itertools.combinations(bounds, 2):
            _cut(tuple(x - y for x, y in zip(first, second)), lines, verticals)
        for bound in bounds:
            for b in breaks:
                _cut((bound[0] - b, bound[1], bound[2]), lines, verticals)
    verticals.update(bound_crossings(list(lines)))
    breaks = sorted(verticals)
    pieces = []
    for lo, hi in zip([None] + breaks, breaks + [None]):
        t1 = interior_point(lo, hi)
        ordered = sorted(lines, key=lambda line: line[0] + line[1] * t1)
        cells = []
        for low, high in zip([None] + ordered, ordered + [None]):
            t2 = interior_point(None if low is None else low[0] + low[1] * t1,
                                None if high is None else high[0] + high[1] * t1)
            if not (any(a + b * t1 >= t2 for a, b in inner.lowers)
                    or any(a + b * t1 <= t2 for a, b in inner.uppers)):
                cells.append((low, high, (t1, t2)))
        pieces.append(cells)
    return breaks, pieces
