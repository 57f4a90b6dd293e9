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
the cells of the plane of a :class:`HubPair`'s two hubs and the slabs of the space of a
:class:`HubTriple`'s three (``backends/hub_triples.py``), with the test of strict linear
inequalities that leaves out the planes missing the hubs' region.
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
    """A noise ``v ~ law`` compared with the hubs of a :class:`HubPair` or :class:`HubTriple`
    (and constants): ``v > α + β₁z₁ + … + β_hz_h`` for each ``(α, β₁, …, β_h)`` of ``lowers``
    (``h`` hubs), ``<`` for ``uppers`` (at most one ``β`` is not 0: a comparison involves two
    noises); ``densities`` as in :class:`Branch`."""

    law: NoiseLaw
    lowers: tuple[tuple[Fraction, ...], ...] = ()
    uppers: tuple[tuple[Fraction, ...], ...] = ()
    densities: tuple[tuple[NoiseLaw, Fraction], ...] = ()

    def laws(self) -> list[NoiseLaw]:
        """The noise's law and those of its densities."""
        return [self.law] + [law for law, _ in self.densities]

    def reach(self) -> Fraction:
        """The largest ``|α|`` and ``|shift|``, as :meth:`Branch.reach`."""
        points = [abs(bound[0]) for bound in self.lowers + self.uppers]
        points += [abs(shift) for _, shift in self.densities]
        return max(points, default=Fraction(0))


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
        return self.outer.laws() + self.inner.laws() + [
            law for leaf in self.leaves for law in leaf.laws()]

    @property
    def magnitude(self) -> Fraction:
        """As :attr:`NestedIntegral.magnitude`."""
        return magnitude_of(self.laws(), max([self.outer.reach(), self.inner.reach()]
                                             + [leaf.reach() for leaf in self.leaves]))


@dataclass(frozen=True)
class HubTriple:
    """A group whose other noises are compared with three hubs only: the outer hub ``z₁`` and
    the middle hub ``z₂``, each a :class:`Branch` without children (the outer's bounds
    constants, the middle's linear in ``z₁``), the inner hub ``z₃``, a :class:`Leaf` of the
    two (its bounds linear in ``z₁`` or ``z₂``: the hubs' own comparisons bound the region),
    and the :class:`Leaf` noises, their bounds ``(α, β₁, β₂, β₃)``.  Its probability is

        ∫ p₁(z₁) ∫_{L₂(z₁)}^{U₂(z₁)} p₂(z₂) ∫_{L₃(z₁, z₂)}^{U₃(z₁, z₂)} p₃(z₃)
            Π_i Pr[L_i(z₁, z₂, z₃) < v_i < U_i(z₁, z₂, z₃)] dz₃ dz₂ dz₁,

    a product of one-dimensional factors under an integral over the three hubs.  It stands in
    a term where an :class:`~.integral_form.Integral` does."""

    outer: Branch
    middle: Branch
    inner: Leaf
    leaves: tuple[Leaf, ...]

    is_empty = False

    def laws(self) -> list[NoiseLaw]:
        """Every law of the integral."""
        return self.outer.laws() + self.middle.laws() + self.inner.laws() + [
            law for leaf in self.leaves for law in leaf.laws()]

    @property
    def magnitude(self) -> Fraction:
        """As :attr:`NestedIntegral.magnitude`."""
        return magnitude_of(self.laws(), max(
            [self.outer.reach(), self.middle.reach(), self.inner.reach()]
            + [leaf.reach() for leaf in self.leaves]))


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
    bound is ``(α, β)``, ``α + βz``, or for a :class:`Leaf` ``(α, β₁, …, β_h)`` at the point
    ``z = (t₁, …, t_h)``, ``α + β₁t₁ + … + β_ht_h``."""
    def value(bound):
        if len(bound) > 2:
            return bound[0] + sum(beta * t for beta, t in zip(bound[1:], z))
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


def leaf_cuts(leaf: Leaf, breaks) -> list:
    """The differences ``(α, β₁, …, β_h)`` that vanish where the leaf's factor changes form:
    two of its bounds equal, or a bound at a break ``b`` of its ``G`` (``breaks``)."""
    bounds = leaf.lowers + leaf.uppers
    cuts = [tuple(x - y for x, y in zip(first, second))
            for first, second in itertools.combinations(bounds, 2)]
    return cuts + [(bound[0] - b, *bound[1:]) for bound in bounds for b in breaks]


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
        for difference in leaf_cuts(leaf, breaks):
            _cut(difference, lines, verticals)
    return _cells(lines, verticals, inner)


def _cells(lines: set, verticals: set, bounded: Branch) -> tuple[list, list]:
    """The cells of :func:`plane_cells` cut by ``lines`` ``(α, β)`` and ``verticals`` (and
    every crossing of two lines) inside the bounds ``α + βz₁`` of ``bounded``."""
    verticals = verticals | bound_crossings(list(lines))
    breaks = sorted(verticals)
    pieces = []
    for lo, hi in zip([None] + breaks, breaks + [None]):
        t1 = interior_point(lo, hi)
        ordered = sorted(lines, key=lambda line: line[0] + line[1] * t1)
        cells = []
        for low, high in zip([None] + ordered, ordered + [None]):
            t2 = interior_point(None if low is None else low[0] + low[1] * t1,
                                None if high is None else high[0] + high[1] * t1)
            if not (any(a + b * t1 >= t2 for a, b in bounded.lowers)
                    or any(a + b * t1 <= t2 for a, b in bounded.uppers)):
                cells.append((low, high, (t1, t2)))
        pieces.append(cells)
    return breaks, pieces


def space_cells(integral: HubTriple, middle_breaks, inner_breaks,
                leaf_breaks) -> tuple[list, list]:
    """The cells of the space of a :class:`HubTriple`'s hubs ``(z₁, z₂, z₃)`` on which every
    active bound and every piece is fixed: ``(breaks, pieces)`` as :func:`plane_cells` for the
    plane of ``(z₁, z₂)`` (inside the middle hub's bounds), each cell
    ``(low, high, (t₁, t₂), slabs)`` with the list of its slabs ``(below, above, (t₁, t₂, t₃))``
    between the sheets ``z₃ = α + β₁z₁ + β₂z₂`` ``below`` and ``above`` (``(α, β₁, β₂)``,
    ``None``: infinite) inside the inner hub's bounds, ``(t₁, t₂, t₃)`` a point inside.

    A difference of two bounds of a leaf, or of a bound and a break of its leaf
    (``leaf_breaks[i]`` those of ``integral.leaves[i]``), vanishes on a sheet where it involves
    ``z₃``, else on a wall over a line of the plane; the inner hub's bounds and the planes
    ``z₃ = b`` for ``b`` in ``inner_breaks`` are sheets.  Two sheets cross over a line.  The
    plane is cut by those lines, the middle hub's bounds and the lines ``z₂ = b`` for ``b`` in
    ``middle_breaks``; over a cell the sheets are ordered.  A sheet that misses the open region
    ``Q`` of the hubs' own bounds (the middle's and the inner's; :func:`feasible`), or a line
    that misses the open region ``P`` of the middle's, cuts no cell inside it and is left out
    (the inner hub's bounds are kept: they bound ``Q``)."""
    middle, inner = integral.middle, integral.inner
    region = ([(-a, -b, Fraction(1)) for a, b in middle.lowers]
              + [(a, b, Fraction(-1)) for a, b in middle.uppers])
    walls, sheets = [], {(b, Fraction(0), Fraction(0)) for b in inner_breaks}
    for leaf, breaks in zip(integral.leaves, leaf_breaks):
        for alpha, beta1, beta2, beta3 in leaf_cuts(leaf, breaks):
            if beta3 == 0:
                walls.append((alpha, beta1, beta2))
            else:
                sheets.add((-alpha / beta3, -beta1 / beta3, -beta2 / beta3))
    bounding = set(inner.lowers + inner.uppers)
    kept = bounding | {sheet for sheet in sheets - bounding
                       if feasible(region + _between(sheet, inner))}
    walls += [tuple(x - y for x, y in zip(first, second))
              for first, second in itertools.combinations(sorted(kept), 2)]
    lines = {(b, Fraction(0)) for b in middle_breaks}
    lines.update(middle.lowers + middle.uppers)
    verticals: set = set()
    for wall in walls:
        if feasible(region + [wall]) and feasible(region + [tuple(-x for x in wall)]):
            _cut(wall, lines, verticals)
    breaks, pieces = _cells(lines, verticals, middle)
    return breaks, [[(low, high, point, _slabs(kept, inner, point))
                     for low, high, point in piece] for piece in pieces]


def _between(sheet, inner: Leaf) -> list:
    """The constraints ``c₀ + c₁z₁ + c₂z₂ > 0`` that the sheet ``z₃ = α + β₁z₁ + β₂z₂`` lies
    strictly inside the inner hub's bounds."""
    return ([tuple(s - b for s, b in zip(sheet, bound)) for bound in inner.lowers]
            + [tuple(b - s for s, b in zip(sheet, bound)) for bound in inner.uppers])


def _slabs(sheets: set, inner: Leaf, point) -> list:
    """The slabs of :func:`space_cells` over the point ``(t₁, t₂)``: between consecutive
    ``sheets`` in their order there, inside the inner hub's bounds."""
    def height(sheet):
        return sheet[0] + sheet[1] * point[0] + sheet[2] * point[1]
    ordered = sorted(sheets, key=height)
    slabs = []
    for below, above in zip([None] + ordered, ordered + [None]):
        t3 = interior_point(None if below is None else height(below),
                            None if above is None else height(above))
        if not (any(height(bound) >= t3 for bound in inner.lowers)
                or any(height(bound) <= t3 for bound in inner.uppers)):
            slabs.append((below, above, (*point, t3)))
    return slabs


def feasible(constraints: list) -> bool:
    """Whether the strict inequalities ``c₀ + c₁z₁ + … + c_nz_n > 0`` (each ``(c₀, …, c_n)``)
    have a common solution, by Fourier–Motzkin elimination of the last variable: a lower bound
    ``z_n > −(p₀ + …)/p_n`` (``p_n > 0``) and an upper bound ``z_n < (q₀ + …)/(−q_n)``
    (``q_n < 0``) leave room for ``z_n`` exactly where ``−q_n·(p₀ + …) + p_n·(q₀ + …) > 0``."""
    if not constraints:
        return True
    if len(constraints[0]) == 1:
        return all(c[0] > 0 for c in constraints)
    rising = [c for c in constraints if c[-1] > 0]
    falling = [c for c in constraints if c[-1] < 0]
    reduced = {c[:-1] for c in constraints if c[-1] == 0}
    reduced.update(tuple(-q[-1] * x + p[-1] * y for x, y in zip(p[:-1], q[:-1]))
                   for p in rising for q in falling)
    return feasible(list(reduced))
