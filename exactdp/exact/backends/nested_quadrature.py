"""Nested integrals of smooth laws (Gaussian, Gumbel) in balls: every message a sum of
differences of running integrals (``running_integrals.py``), its inner messages and leaves
bounded off the real line.

A message of a tree (``form/nested_integral.py``), or the inner hub's integral of a
:class:`~exactdp.exact.form.nested_integral.HubPair`, is on each piece of its argument ``z`` a
sum of **segments** ``∫_{e₁(z)}^{e₂(z)} h(z, y) dy`` with ends ``e = α + βz`` linear (the
active bounds, or the integrand's breaks), ``h`` the noise's density times the released
densities and

* of a tree, the inner messages on their pieces: ``h`` depends on ``y`` alone, and the segment
  is ``H(e₂(z)) − H(e₁(z))`` for the running integral ``H(y) = ∫^y h``;
* of a hub pair, the leaves' factors ``G_i(U_i) − G_i(L_i)`` (``G_i`` the leaf's CDF, each
  bound linear in one hub): each factor is ``a_i(z) + b_i(y)``, its parts in the outer hub and
  in the inner one, and the product ``Π_i (a_i + b_i)^{k_i}`` (``k_i`` equal leaves) expands by
  the binomial theorem into ``Σ_t c_t·Π_i a_i(z)^{j_ti}·Π_i b_i(y)^{k_i − j_ti}``, so the segment
  is ``Σ_t c_t·A_t(z)·(H_t(e₂(z)) − H_t(e₁(z)))``, ``H_t`` the running integral of the density
  times ``Π_i b_i^{k_i − j_ti}``, shared by every cell with the same ``b_i``;
* of a hub triple (Gaussian noise), the same on the cells of the outer two hubs' plane, each
  slab's integral over the inner hub a difference of running integrals ``K`` at its two sheets,
  each sheet linear in ``z₁`` (a factor of ``A_t``) or in ``z₂`` (a factor of the middle hub's
  integrand): :func:`_middle_message`.

The densities and CDFs of the Gaussian and the Gumbel law are entire, so every ``h`` (the
children continued from their pieces) is entire.  Three bounds make the result an enclosure:

* **cut-off.**  The integration variable is kept in ``[−T₋, T₊]`` (breaks like the
  others, the segments beyond them left out); ``h ≥ 0`` on the real line, and
  ``h ≤ K = Π sup p_d · Π sup m_c`` (each law's density peaks at 0; each message is at most
  its ``K``: ``∫ p_v ≤ 1``), so what is left out is at most ``K·(F_v(−T₋) + S_v(T₊))`` plus what
  the inner messages left out, weighted by the other factors' ``K``.  The result is the
  computed ``F̃`` plus ``[0, that tail]`` (``F̃ ≤ F``: only non-negative parts are dropped).
* **the running integrals.**  ``H`` at each point asked for is a ball holding the error of the
  Gauss–Legendre rules that reach it (``running_integrals.py``: Bernstein ellipses inside
  rectangles where ``|h|`` is bounded on complex boxes).  The root is the message at ``z = 0``:
  its running integrals are asked at its constant ends.
* **inner messages off the real line.**  Those bounds need ``|F̃_c(Y)|`` at complex balls ``Y``:
  ``Σ_t |c_t|·|A_t(Y)|·(|H_t(e₂(Y))| + |H_t(e₁(Y))|)``, each ``|H_t|`` at most ``K`` on its
  range of the real line plus the length of a path from there times ``|h|`` on a box the path
  crosses (``RunningIntegral.moduli_at``), recursively; the densities and CDFs on complex
  balls are the laws' ball functions (``NoiseLaw.ball_log(...).value``).

The value at a node is a ball (the rounding of every inner value included), so the errors
compose through the levels; the caller's precision loop (``certified.enclose``) raises the goal
until the result is narrow.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections import Counter
from fractions import Fraction

from flint import acb, arb

from ...errors import MethodUnavailableError, PrecisionError
from ...noise import Gaussian, Kind, NoiseLaw
from ...precision import to_arb
from ..form.integral_form import interior_point
from ..form.nested_integral import (Branch, HubPair, HubTriple, NestedIntegral, active_bounds,
                                    message_breaks, plane_cells, space_cells)
from .running_integrals import (Cell, RunningIntegral, RunningMessage, line_at,
                                power_product, side)

def _balls(line) -> tuple:
    """A line or bound ``(α, β, …)`` of exact rationals as balls."""
    return tuple(to_arb(c) for c in line)


class LeafMessage:
    """The message of a tree's leaf without densities, in closed form:
    ``F(z) = G(U(z)) − G(L(z))`` (``G`` the CDF; ``S(L)`` without an upper bound, 0 where
    ``U ≤ L``), entire on each piece between the crossings of its bounds."""

    tail = arb(0)
    sup = arb(1)

    def __init__(self, branch: Branch):
        self.lowers, self.uppers = branch.lowers, branch.uppers
        self.breaks = message_breaks(branch.lowers, branch.uppers, [])
        ends = [None] + self.breaks + [None]
        self.active = [_active_balls(active_bounds(self.lowers, self.uppers,
                                                   interior_point(lo, hi)))
                       for lo, hi in zip(ends, ends[1:])]
        self.cdf = branch.law.ball_log(Kind.CDF).value
        self.sf = branch.law.ball_log(Kind.SF).value

    def piece(self, y: Fraction) -> int:
        """The piece holding the exact point ``y``."""
        return bisect.bisect_right(self.breaks, y)

    def value(self, z, piece: int):
        """``F(z)`` at a real or complex ball on the piece ``piece``."""
        return _interval(self.cdf, self.sf, self.active[piece],
                         lambda function, line: function(line_at(line, z)))

    def modulus(self, z: acb, piece: int) -> arb:
        """An upper bound on ``|F(z)|`` at a complex ball (in the ball's arithmetic)."""
        return acb(self.value(z, piece)).abs_upper()


def _active_balls(active):
    """Active bounds ``(lower, upper)`` (or ``None``) with their coefficients as balls."""
    if active is None:
        return None
    return tuple(None if bound is None else _balls(bound) for bound in active)


def _interval_parts(cdf, sf, active) -> list:
    """``G(U) − G(L)`` for the active bounds ``(lower, upper)`` (not ``None``) as signed parts
    ``(sign, function, bound)`` (``function`` ``None``: the constant 1): the survival function
    ``S(L)`` without an upper bound."""
    lower, upper = active
    if upper is None:
        return [(1, None, None)] if lower is None else [(1, sf, lower)]
    return [(1, cdf, upper)] + ([] if lower is None else [(-1, cdf, lower)])


def _interval(cdf, sf, active, at):
    """``G(U) − G(L)`` for the active bounds ``(lower, upper)`` (``None``: the interval is
    empty, 0), ``at(function, bound)`` the CDF or survival function at a bound's value."""
    if active is None:
        return arb(0)
    total = arb(0)
    for sign, function, bound in _interval_parts(cdf, sf, active):
        total += sign * (arb(1) if function is None else at(function, bound))
    return total


class TreeIntegrand:
    """``h(y) = p_v(y) · Π p_d(y − s) · Π F̃_c(y)`` on one piece of ``y`` (the children's pieces
    ``pieces``)."""

    def __init__(self, densities, children, pieces):
        self.densities, self.children, self.pieces = densities, children, pieces

    def value(self, z, y):
        """``h(y)`` at a real ball (``z`` unused: a tree's integrand depends on ``y`` alone)."""
        total = arb(1)
        for density, shift in self.densities:
            total *= density(y - shift)
        for child, piece in zip(self.children, self.pieces):
            total *= child.value(y, piece)
        return total

    def modulus(self, z, y) -> arb:
        """An upper bound on ``|h(y)|`` at a complex ball ``y``."""
        total = arb(1)
        for density, shift in self.densities:
            total *= acb(density(y - shift)).abs_upper()
        for child, piece in zip(self.children, self.pieces):
            total *= child.modulus(y, piece)
        return total


# --- building the messages --------------------------------------------------------------------

def _density_functions(law: NoiseLaw, densities) -> list:
    """``(p, shift)`` of the noise's density (shift 0) and each released density."""
    return [(law.ball_log(Kind.PDF).value, arb(0))] + [
        (d.ball_log(Kind.PDF).value, to_arb(shift)) for d, shift in densities]


def _density_sup(densities) -> arb:
    """``Π sup p_d`` over the released densities (each law's density peaks at 0)."""
    total = arb(1)
    for d, _ in densities:
        total *= d.ball_log(Kind.PDF).value(arb(0))
    return arb(total.upper())


def _cut_off(law: NoiseLaw, target: arb) -> tuple[Fraction, Fraction, arb]:
    """``(−T₋, T₊, F(−T₋) + S(T₊))``: the first multiples ``T₋``, ``T₊`` of the scale whose tails
    ``F(−T₋)`` and ``S(T₊)`` are each at most ``target/2`` (a skewed law, Gumbel's, is cut
    closer on its thin side), and their mass as an exact upper bound."""
    cdf, sf = law.ball_log(Kind.CDF).value, law.ball_log(Kind.SF).value
    ends = []
    for tail, sign in ((cdf, -1), (sf, 1)):
        for k in range(1, 100_000):
            mass = arb(tail(to_arb(sign * k * law.scale)).upper())
            if mass <= target / 2:
                ends.append((sign * k * law.scale, mass))
                break
        else:
            raise PrecisionError(f"no cut-off of {law} noise reaches a tail of {target}")
    (low, low_mass), (high, high_mass) = ends
    return low, high, arb((low_mass + high_mass).upper())


def _others(density_sup: arb, sups: list, index: int) -> arb:
    """``Π sup p_d`` times the bounds of every inner message but the ``index``-th."""
    total = density_sup
    for other, value in enumerate(sups):
        if other != index:
            total *= value
    return arb(total.upper())


def _message(law: NoiseLaw, densities, lowers, uppers, builders: list, sups: list, reach,
             tolerance: arb, strip: Fraction) -> RunningMessage:
    """The message ``∫ p_law(y) Π p_d(y − s) Π F̃_c(y) dy`` between ``lowers`` and ``uppers``
    for ``z`` in ``reach`` (the parent's cut-off; ``(0, 0)`` at the root), aiming at an
    absolute error ``tolerance``; ``builders[c](reach, tolerance)`` makes the inner message
    ``c``, at most ``sups[c]`` on the real line (module
    docstring: cut-off, tail and sup): a :class:`~.running_integrals.RunningMessage`, each
    segment ``H(e₂(z)) − H(e₁(z))`` of a running integral ``H`` of its integrand (``strip``:
    the subtree's smallest scale)."""
    density_sup = _density_sup(densities)
    sup = _others(density_sup, sups, -1)
    low, high, mass = _cut_off(law, tolerance / (8 * sup))
    children = [build((low, high),
                      tolerance / (4 * len(builders) * _others(density_sup, sups, c)))
                for c, build in enumerate(builders)]
    tail = sup * mass
    for c, child in enumerate(children):
        tail += child.tail * _others(density_sup, sups, c)
    tail = arb(tail.upper())
    inner = sorted({b for child in children for b in child.breaks if low < b < high})
    breaks, pieces = _segments(lowers, uppers, [low] + inner + [high], children)
    functions = _density_functions(law, densities)
    share = tolerance / (4 * max([1] + [len(piece) for piece in pieces]))
    running = {}
    for at, (start, end) in _extents(breaks, pieces, reach).items():
        integrand = TreeIntegrand(functions, children, at)
        running[at] = RunningIntegral(lambda y, h=integrand: [h.value(None, y)],
                                      lambda y, h=integrand: [h.modulus(None, y)],
                                      start, end, strip, share)
    return RunningMessage(breaks, [[Cell(_balls(first), _balls(second), (), ((1, (), 0),),
                                         running[at]) for first, second, at in piece]
                                   for piece in pieces], sup, tail)


def _extents(breaks, pieces, reach) -> dict:
    """``key → (lowest, highest)``: the range of the lines ``first``, ``second`` (``(α, β)``)
    of the cells ``(first, second, key, …)`` of each piece, over its ``z`` within ``reach``:
    where the running integral of the cells of ``key`` is asked."""
    ends = [None] + list(breaks) + [None]
    found: dict = {}
    for lo, hi, piece in zip(ends, ends[1:], pieces):
        lo = reach[0] if lo is None else min(max(lo, reach[0]), reach[1])
        hi = reach[1] if hi is None else max(min(hi, reach[1]), reach[0])
        for first, second, key, *_ in piece:
            values = [line[0] + line[1] * z for line in (first, second) for z in (lo, hi)]
            lowest, highest = found.get(key, (min(values), max(values)))
            found[key] = (min(lowest, *values), max(highest, *values))
    return found


def branch_message(branch: Branch, reach, tolerance: arb):
    """The message of ``branch`` for its parent's value in ``reach`` (``(0, 0)`` at the
    root), aiming at an absolute error ``tolerance``: in closed form at a leaf without
    densities (:class:`LeafMessage`)."""
    if not branch.children and not branch.densities and reach != (0, 0):
        return LeafMessage(branch)
    return _message(branch.law, branch.densities, branch.lowers, branch.uppers,
                    [_builder(child) for child in branch.children],
                    [_sup(child) for child in branch.children], reach, tolerance,
                    min(law.scale for law in branch.laws()))


def _builder(branch: Branch):
    """``(reach, tolerance) → branch_message(branch, reach, tolerance)``."""
    return lambda reach, tolerance: branch_message(branch, reach, tolerance)


def _sup(branch: Branch) -> arb:
    """An upper bound on the message of ``branch`` on the real line: 1 for a leaf without
    densities, else ``Π sup p_d · Π`` its children's."""
    total = _density_sup(branch.densities)
    for child in branch.children:
        total *= _sup(child)
    return arb(total.upper())


def _segments(lowers, uppers, cuts: list, children: list):
    """``(breaks, pieces)`` of a tree's message: on each piece of ``z`` the segments
    ``(first, second, the children's pieces)`` between the active bounds and the breaks
    ``cuts`` (the cut-offs first and last) that lie inside the cut-off."""
    breaks = message_breaks(lowers, uppers, cuts)
    ends = [None] + breaks + [None]
    pieces = []
    for lo, hi in zip(ends, ends[1:]):
        z = interior_point(lo, hi)
        active = active_bounds(lowers, uppers, z)
        segments = []
        if active is not None:
            lower, upper = active
            low = None if lower is None else lower[0] + lower[1] * z
            high = None if upper is None else upper[0] + upper[1] * z
            points = [lower] + [(b, Fraction(0)) for b in cuts
                                if (low is None or b > low) and (high is None or b < high)]
            for first, second in zip(points, points[1:] + [upper]):
                if first is None or second is None:
                    continue   # beyond a cut-off
                y = interior_point(first[0] + first[1] * z, second[0] + second[1] * z)
                if cuts[0] < y < cuts[-1]:
                    segments.append((first, second, tuple(child.piece(y) for child in children)))
        pieces.append(segments)
    return breaks, pieces


def hub_pair_message(integral: HubPair, tolerance: arb) -> RunningMessage:
    """The outer hub's integral of a hub pair (the root), the inner hub's integral
    (:func:`_inner_message`) its inner message."""
    outer, inner = integral.outer, integral.inner
    for leaf in integral.leaves:
        if leaf.densities:
            raise MethodUnavailableError(f"a hub pair whose leaf releases {leaf.law} noise's "
                                         f"value has no quadrature rule")
    return _message(outer.law, outer.densities, outer.lowers, outer.uppers,
                    [lambda reach, share: _inner_message(integral, reach, share)],
                    [_density_sup(inner.densities)], (0, 0), tolerance,
                    min(law.scale for law in integral.laws()))


def _expansion(sides: list, powers: list) -> list:
    """``[(c_t, (j_ti), (k_i − j_ti)), …]``: ``Π_i (a_i + b_i)^{k_i}`` expanded by the binomial
    theorem, ``sides[i] = (a_i's parts, b_i's parts)`` (an empty side is 0: one exponent)."""
    choices = []
    for (a_parts, b_parts), power in zip(sides, powers):
        lowest = power if not b_parts else 0
        highest = 0 if not a_parts else power
        choices.append([(math.comb(power, j), j, power - j) for j in range(lowest, highest + 1)])
    return [(math.prod(c for c, _, _ in chosen), tuple(j for _, j, _ in chosen),
             tuple(k for _, _, k in chosen)) for chosen in itertools.product(*choices)]


class _ZSide:
    """The running integrals' integrand ``f_k(s) = p₂(s) Π p_d(s − shift) Π_i b_i(s)^{q_ki}``
    for the parts of the ``b_i`` (lines ``(α, β₂)``) and the exponent vectors ``q_k``."""

    def __init__(self, densities, b_sides, exponents):
        self.densities, self.exponents = densities, exponents
        self.b_sides = [tuple((sign, function, _balls(line)) for sign, function, line in parts)
                        for parts in b_sides]

    def values(self, s) -> list:
        """``[f_k(s), …]`` at a real ball (or, for :meth:`moduli`, a complex one)."""
        density = arb(1)
        for function, shift in self.densities:
            density *= function(s - shift)
        factors = [side(parts, s) for parts in self.b_sides]
        return [density * power_product(factors, q) for q in self.exponents]

    def moduli(self, s: acb) -> list:
        """Upper bounds on ``|f_k|`` at a complex ball."""
        return [acb(value).abs_upper() for value in self.values(s)]


def _inner_message(integral: HubPair, reach, tolerance: arb) -> RunningMessage:
    """``I(z₁) = ∫ p₂(z₂) Π p_d Π_i Pr[L_i < v_i < U_i] dz₂`` on the cells of the hubs' plane
    (``form.nested_integral.plane_cells``, the cut-offs ``z₂ = −T₋, T₊`` among its lines), each
    leaf's factor split into its parts in ``z₁`` and in ``z₂``, the product expanded
    (:func:`_expansion`): a cell's term ``c_t·Π_i a_i(z₁)^{j_ti}`` times the running integral of
    ``p₂ Π p_d Π_i b_i^{k_i − j_ti}`` between the cell's lines."""
    inner = integral.inner
    sup = _density_sup(inner.densities)
    low, high, mass = _cut_off(inner.law, tolerance / (8 * sup))
    densities = _density_functions(inner.law, inner.densities)
    leaves = list(Counter(integral.leaves).items())
    functions = [(leaf.law.ball_log(Kind.CDF).value, leaf.law.ball_log(Kind.SF).value)
                 for leaf, _ in leaves]
    breaks, plane = plane_cells(integral, [low, high], [[] for _ in integral.leaves])
    cells = []   # per piece: (low line, high line, sides) of each cell inside the cut-offs
    for piece in plane:
        found = []
        for lower, upper, point in piece:
            if lower is None or upper is None or not low < point[1] < high:
                continue   # beyond a cut-off
            sides = []
            for (leaf, _), (cdf, sf) in zip(leaves, functions):
                active = active_bounds(leaf.lowers, leaf.uppers, point)
                if active is None:
                    break
                parts = _interval_parts(cdf, sf, active)
                sides.append((tuple((sign, f, None if b is None else (b[0], b[1]))
                                    for sign, f, b in parts if b is None or b[2] == 0),
                              tuple((sign, f, (b[0], b[2])) for sign, f, b in parts
                                    if b is not None and b[2] != 0)))
            else:
                found.append((lower, upper, sides))
        cells.append(found)
    powers = [power for _, power in leaves]
    # |A_t| ≤ 1 on the real line: a piece's error is at most Σ_cells Σ_t c_t·2·(H's error)
    weight = max([1] + [sum(c for _, _, sides in piece for c, _, _ in _expansion(sides, powers))
                        for piece in cells])
    strip = min([inner.law.scale] + [d.scale for d, _ in inner.densities]
                + [leaf.law.scale / abs(b[2]) for leaf, _ in leaves
                   for b in leaf.lowers + leaf.uppers if b[2] != 0])
    specs = []   # per piece: (low line, high line, key, terms, sides) of each cell
    for piece in cells:
        found = []
        for lower, upper, sides in piece:
            terms = _expansion(sides, powers)
            key = (tuple(b_parts for _, b_parts in sides),
                   tuple(sorted({q for _, _, q in terms})))
            found.append((lower, upper, key, terms, sides))
        specs.append(found)
    running = {}
    for key, (start, end) in _extents(breaks, specs, reach).items():
        integrand = _ZSide(densities, *key)
        running[key] = RunningIntegral(integrand.values, integrand.moduli, start, end, strip,
                                       tolerance / (4 * weight))
    lines: dict = {}   # one ball per line, so that the cells share their values by identity
    pieces = [[Cell(_balls(lower), _balls(upper),
                    tuple(tuple((sign, f, line if f is None
                                 else lines.setdefault(line, _balls(line)))
                                for sign, f, line in a_parts) for a_parts, _ in sides),
                    tuple((c, j, key[1].index(q)) for c, j, q in terms), running[key])
               for lower, upper, key, terms, sides in piece] for piece in specs]
    return RunningMessage(breaks, pieces, sup, arb((sup * mass).upper()))


class _RunningValue:
    """``K(y)`` of a running integral ``K`` of one function (set as :attr:`running`) as a
    function for :func:`~.running_integrals.side`: a ball at a real ball; at a complex ball the
    square ``[−r, r] + i[−r, r]`` holding the disc ``|K| ≤ r`` of
    :meth:`~.running_integrals.RunningIntegral.moduli_at` (``|K| ≤ bound`` on its range of the
    real line)."""

    def __init__(self, bound: arb):
        self.running: RunningIntegral | None = None
        self.bound = bound

    def __call__(self, y):
        if isinstance(y, acb):
            (radius,) = self.running.moduli_at(y, self.bound)
            return acb(arb(0, radius.upper()), arb(0, radius.upper()))
        (value,) = self.running.at(y)
        return value


def _split(parts) -> tuple:
    """``(a, b, c)``: the parts ``(sign, function, bound)`` of a leaf's factor (bounds
    ``(α, β₁, β₂, β₃)``) in ``z₁`` (or constant), in ``z₂`` and in ``z₃``, each part's bound as
    the line ``(α, β)`` of its hub."""
    found: tuple = ([], [], [])
    for sign, function, bound in parts:
        slot = 0 if bound is None else next(
            (j for j, beta in enumerate(bound[1:]) if beta != 0), 0)
        found[slot].append((sign, function, None if bound is None
                            else (bound[0], bound[1 + slot])))
    return tuple(tuple(each) for each in found)


def hub_triple_message(integral: HubTriple, tolerance: arb) -> RunningMessage:
    """The outer hub's integral of a hub triple (the root), the middle hub's integral
    (:func:`_middle_message`) its inner message."""
    outer, middle, inner = integral.outer, integral.middle, integral.inner
    for law in integral.laws():
        if not isinstance(law, Gaussian):
            raise MethodUnavailableError(f"a group of noises compared with three hubs has a "
                                         f"certified rule for Laplace, exponential and Gaussian "
                                         f"noise, not for {law} noise")
    for leaf in integral.leaves:
        if leaf.densities:
            raise MethodUnavailableError(f"a hub triple whose leaf releases {leaf.law} noise's "
                                         f"value has no quadrature rule")
    sup = arb((_density_sup(middle.densities) * _density_sup(inner.densities)).upper())
    return _message(outer.law, outer.densities, outer.lowers, outer.uppers,
                    [lambda reach, share: _middle_message(integral, reach, share)], [sup],
                    (0, 0), tolerance, min(law.scale for law in integral.laws()))


def _middle_message(integral: HubTriple, reach, tolerance: arb) -> RunningMessage:
    """``I(z₁) = ∫ p₂ Π p_d ∫ p₃ Π p_d Π_i Pr[L_i < v_i < U_i] dz₃ dz₂`` on the slabs of the
    hubs' space (``form.nested_integral.space_cells``, the cut-offs of ``z₂`` and ``z₃`` among
    its lines and sheets): each leaf's factor split into its parts ``a_i``, ``b_i``, ``c_i`` in
    ``z₁``, ``z₂``, ``z₃`` (:func:`_split`), the product expanded (:func:`_expansion`: in
    ``a_i + b_i`` and ``c_i``, then in ``a_i`` and ``b_i``), each term's integral over the slab
    ``K(above) − K(below)``, ``K`` the running integral of ``p₃ Π p_d Π_i c_i^{q_i}``; an end
    ``K(α + βz₂)`` is a factor of the ``z₂``-integrand, an end ``K(α + βz₁)`` (or constant) a
    factor ``a`` of the cell's term ``c_t·A_t(z₁)·(M(high(z₁)) − M(low(z₁)))``, ``M`` the
    running integral of ``p₂ Π p_d · B_t`` (docs/mathematics.md §16)."""
    middle, inner = integral.middle, integral.inner
    sup2, sup3 = _density_sup(middle.densities), _density_sup(inner.densities)
    low2, high2, mass2 = _cut_off(middle.law, tolerance / (16 * sup2 * sup3))
    low3, high3, mass3 = _cut_off(inner.law, tolerance / (16 * sup2 * sup3))
    leaves = list(Counter(integral.leaves).items())
    powers = [power for _, power in leaves]
    functions = [(leaf.law.ball_log(Kind.CDF).value, leaf.law.ball_log(Kind.SF).value)
                 for leaf, _ in leaves]
    breaks, space = space_cells(integral, [low2, high2], [low3, high3],
                                [[] for _ in integral.leaves])
    kernels: dict = {}   # (c-sides, exponents) → K (its running integral set below)
    specs = []   # per piece: (low line, high line, (b-sides, exponents), c_t, a-sides, powers)
    for piece in space:
        found = []
        for lower, upper, point, slabs in piece:
            if lower is None or upper is None or not low2 < point[1] < high2:
                continue   # beyond a cut-off
            for below, above, where in slabs:
                actives = [active_bounds(leaf.lowers, leaf.uppers, where) for leaf, _ in leaves]
                if (below is None or above is None or not low3 < where[2] < high3
                        or any(active is None for active in actives)):
                    continue   # beyond a cut-off, or a factor 0
                sides = [_split(_interval_parts(cdf, sf, active))
                         for (cdf, sf), active in zip(functions, actives)]
                for coefficient, outer_powers, deep_powers in _expansion(
                        [(a + b, c) for a, b, c in sides], powers):
                    key = (tuple(c for _, _, c in sides), deep_powers)
                    kernel = kernels.setdefault(key, _RunningValue(sup3))
                    for end, sign in ((above, 1), (below, -1)):
                        slot = 2 if end[2] != 0 else 1
                        ends = ((sign, kernel, (end[0], end[slot])),)
                        for split, a_powers, b_powers in _expansion(
                                [(a, b) for a, b, _ in sides], outer_powers):
                            a_sides = tuple(a for a, _, _ in sides) + (
                                ends if slot == 1 else (),)
                            b_sides = tuple(b for _, b, _ in sides) + (
                                ends if slot == 2 else (),)
                            found.append((lower, upper, (b_sides, b_powers + (slot - 1,)),
                                          coefficient * split, a_sides, a_powers + (2 - slot,)))
        specs.append(found)
    # |A_t| ≤ 1 + sup3 and |M| ≤ sup2·(1 + sup3) on the real line: each K's error and each M's
    # count at most that many times over a piece's cells
    weight = (max([1] + [sum(term[3] for term in piece) for piece in specs])
              * sup2 * (1 + sup3) ** 2)
    strip = min([law.scale for law in integral.laws()]
                + [leaf.law.scale / abs(beta) for leaf, _ in leaves
                   for bound in leaf.lowers + leaf.uppers for beta in bound[1:] if beta != 0])
    densities = _density_functions(inner.law, inner.densities)
    for (c_sides, exponents), kernel in kernels.items():
        integrand = _ZSide(densities, c_sides, [exponents])
        kernel.running = RunningIntegral(integrand.values, integrand.moduli, low3, high3, strip,
                                         tolerance / (8 * weight))
    densities = _density_functions(middle.law, middle.densities)
    running = {}
    for b_sides, (start, end) in _extents(breaks, [[(lo, hi, key[0]) for lo, hi, key, *_ in piece]
                                                   for piece in specs], reach).items():
        exponents = sorted({key[1] for piece in specs for _, _, key, *_ in piece
                            if key[0] == b_sides})
        integrand = _ZSide(densities, b_sides, exponents)
        running[b_sides] = (RunningIntegral(integrand.values, integrand.moduli, start, end,
                                            strip, tolerance / (8 * weight)), exponents)
    lines: dict = {}   # one ball per line, so that the cells share their values by identity
    constants: dict = {}   # K at a constant sheet: a number, at this precision

    def a_part(sign, f, line):
        """A part of a cell's ``a`` side with its line as shared balls, ``K`` at a constant
        sheet as its value."""
        if line is None:
            return sign, f, line
        if isinstance(f, _RunningValue) and line[1] == 0:
            if (f, line) not in constants:
                constants[f, line] = f(to_arb(line[0]))
            return sign * constants[f, line], None, None
        return sign, f, lines.setdefault(line, _balls(line))
    pieces = [[Cell(_balls(lower), _balls(upper),
                    tuple(tuple(a_part(*each) for each in parts) for parts in a_sides),
                    ((coefficient, a_powers, running[key[0]][1].index(key[1])),),
                    running[key[0]][0])
               for lower, upper, key, coefficient, a_sides, a_powers in piece]
              for piece in specs]
    return RunningMessage(breaks, pieces, arb((sup2 * (1 + sup3)).upper()),
                          arb((sup2 * sup3 * (mass2 + mass3)).upper()))


def smooth(integral: NestedIntegral | HubPair) -> bool:
    """Whether every law of the integral is smooth (no kink, not integer-valued): the rule of
    this module applies."""
    return all(not law.kink_points() and not law.integer_valued for law in integral.laws())


def _log_value(build, sup: arb, goal: int) -> arb:
    """``log`` of a root message's value, ``F ∈ F̃ + [0, tail]``: first with an absolute
    tolerance ``2^{−goal}·sup``, then, for a value far below its bound ``sup``, again with the
    tolerance ``2^{−goal}`` of the value found."""
    tolerance = sup * arb(2) ** -goal
    for _ in range(2):
        root = build(tolerance)
        half_tail = root.tail / 2
        value = root.value(arb(0), 0) + half_tail + arb(0, half_tail.upper())
        sharper = arb(value.lower()) * arb(2) ** -goal
        if not (value > 0 and sharper < tolerance / 16):
            break
        tolerance = sharper
    return value.log()


def log_nested_smooth(integral: NestedIntegral | HubPair, goal: int) -> arb | None:
    """``log`` of a nested integral or hub pair of smooth laws (:func:`smooth`) as a ball,
    aiming at a relative accuracy ``2^{−goal}`` (``None`` for an exact zero: the root's own
    bounds leave it no room)."""
    if isinstance(integral, (HubPair, HubTriple)):
        if active_bounds(integral.outer.lowers, integral.outer.uppers, Fraction(0)) is None:
            return None
        sup = _density_sup(integral.outer.densities)
        for hub in (integral.middle, integral.inner) if isinstance(integral, HubTriple) else (
                integral.inner,):
            sup *= _density_sup(hub.densities)
        build = hub_pair_message if isinstance(integral, HubPair) else hub_triple_message
        return _log_value(lambda tolerance: build(integral, tolerance), sup, goal)
    root = integral.root
    if active_bounds(root.lowers, root.uppers, Fraction(0)) is None:
        return None
    return _log_value(lambda tolerance: branch_message(root, (0, 0), tolerance), _sup(root),
                      goal)
