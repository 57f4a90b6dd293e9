"""Running integrals ``H(y) = ∫_{start}^{y} f(s) ds`` of an entire vector function, certified at
any points asked for, each new point from the nearer known one by a Gauss–Legendre rule on the
gap between them; and the messages made of their differences.

``f = (f_1, …, f_K)`` is entire and real on the real line.  Its modulus is bounded once on
rectangles ``R_d = [start − 2d, end + 2d] × [0, d]``, for a few heights ``d`` (:data:`HEIGHTS`
times the caller's ``strip``), box by box: ``M_{d,j} ≥ max_k |f_k|`` on the box
``[x_j, x_j + d] × [0, d]`` (Arb's functions on complex balls; ``|f(s̄)| = |f(s)|``, so the
upper half suffices).  A gap ``[a, b]`` of half-width ``h`` has its Bernstein ellipse ``E_ρ``
inside ``[min − d, max + d] × [−d, d]`` when its semi-minor axis ``h(ρ − ρ^{−1})/2`` and its
overshoot ``h((ρ + ρ^{−1})/2 − 1)`` past the ends are at most ``d``: for
``ρ ≤ u + √(u² + 1)``, ``u = d/h`` (then the semi-minor axis is ``h·u = d``, and the overshoot
``h(√(u² + 1) − 1) ≤ h·u``).  By the maximum modulus principle ``|f_k| ≤ M`` on ``E_ρ``, ``M``
the largest ``M_{d,j}`` of the boxes that meet it, and the ``n``-point rule errs by at most
``h·(64/15)·M·ρ^{2−2n}/(ρ² − 1)`` (``gauss_legendre.error_bound``; Trefethen, *Approximation
Theory and Approximation Practice*, SIAM 2013, Thm 19.3).  Each gap takes the height and the
fewest nodes whose bound is at most its share ``τ·|b − a|/(end − start + 2d₀)`` of the
tolerance ``τ`` (``d₀`` the largest height); a gap longer than ``4d₀`` is cut into equal parts,
each with its own rule.  The value at a new point is the value at its nearer neighbour plus
the gap's sum and ``[−error, error]``: a ball holding ``H`` whatever the order of the points (the
shares keep the total error about ``τ`` when the gaps leading to a point are disjoint, as when
the points come in order); a small gap, between neighbouring points, has a large ``ρ`` and
takes few nodes.

The points kept are exact (the midpoints of the balls asked for); at a ball ``y`` of radius
``r`` the value is ``H(mid y) + [−r·M, r·M]`` (``|∫_{mid y}^{y} f_k| ≤ r·M`` on the real
line).  Off the real line, ``|H_k(x + iv)| ≤ |H_k(c)| + (|x − c| + |v|)·sup |f_k|`` along the path
from the nearest point ``c`` of ``[start, end]`` to ``x`` and up to ``x + iv``
(:meth:`RunningIntegral.moduli_at`).

A :class:`RunningMessage` is, on each piece of its argument ``z``, a sum over cells of
``Σ_t c_t·A_t(z)·(H_k(high(z)) − H_k(low(z)))``: the integral over ``y`` between two lines
``α + βz`` of an integrand ``Σ_t c_t·A_t(z)·f_k(y)`` (docs/mathematics.md §16).
"""

from __future__ import annotations

import bisect
import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np
from flint import acb, arb, ctx

from ...errors import PrecisionError
from ...precision import to_arb
from .gauss_legendre import legendre_rule
from .node_planner import checked_nodes, fewest_nodes

#: The heights of the rectangles tried, in units of the caller's ``strip``.
HEIGHTS = (Fraction(1, 2), Fraction(1), Fraction(2), Fraction(4), Fraction(6))
#: Bits of the boxes that bound ``|f|`` (a bound needs few digits).
BOUND_BITS = 32


class RunningIntegral:
    """``H(y) = ∫_{start}^{y} f(s) ds`` for ``y`` in ``[start, end]`` (module docstring), each
    value a ball holding it, aiming at an error of about ``tolerance``.

    Parameters
    ----------
    values : callable
        ``values(s)`` → ``[f_1(s), …, f_K(s)]`` at a real ball ``s``.
    moduli : callable
        ``moduli(S)`` → upper bounds on ``|f_k|`` on a complex ball ``S``, one per ``k``.
    start, end : Fraction
        The range of the points asked for.
    strip : Fraction
        About how far off the real line ``f`` grows slowly (the laws' smallest scale).
    tolerance : arb
        The error aimed at: the gaps' shares of it sum to at most ``tolerance`` over ``[start,
        end]``.
    """

    def __init__(self, values, moduli, start: Fraction, end: Fraction, strip: Fraction,
                 tolerance: arb):
        self.values, self.moduli = values, moduli
        self.start, self.end = start, end
        self.heights = [strip * factor for factor in HEIGHTS]
        self.span = end - start + 2 * self.heights[-1]
        self.size = 0
        self.boxes = [self._box_bounds(height) for height in self.heights]
        #: per height: the ends of ``R_d`` as balls, its left end and ``d`` as doubles
        self.frames = [(to_arb(start - 2 * height),
                        to_arb(start - 2 * height + len(boxes) * height),
                        float(start - 2 * height), float(height))
                       for height, boxes in zip(self.heights, self.boxes)]
        self.tops = [to_arb(height) for height in self.heights]
        self.tolerance = tolerance
        self.points = [to_arb(start)]
        self.ends = (self.points[0], to_arb(end))
        self.integrals = [[arb(0)] * self.size]
        self.reach = (to_arb(start - self.heights[-1]), to_arb(end + self.heights[-1]))

    def _box_bounds(self, height: Fraction) -> list:
        """Upper bounds on every ``|f_k|`` on the boxes ``[x_j, x_j + d] × [0, d]``,
        ``x_j = start − 2d + jd``, that cover ``R_d`` (``inf`` where not finite)."""
        low = self.start - 2 * height
        count = math.ceil((self.end + 2 * height - low) / height)
        found = []
        with ctx.workprec(BOUND_BITS):
            left, half = to_arb(low), to_arb(height / 2)
            spread = arb(0, 1) * half   # the balls cover the boxes (their centres are balls)
            imaginary = half + spread
            for j in range(count):
                bounds = self.moduli(acb(left + (2 * j + 1) * half + spread, imaginary))
                self.size = len(bounds)
                largest = arb(0)
                for bound in bounds:
                    if not bound.is_finite():
                        largest = arb("inf")
                        break
                    largest = max(largest, arb(bound.upper()), key=lambda x: x.upper())
                found.append(largest)
        return found

    def local_bound(self, index: int, left: arb, right: arb) -> arb | None:
        """``M``: an upper bound on every ``|f_k|`` on ``[left, right] × [−d, d]`` for the
        ``index``-th height ``d``, the largest over the boxes that meet it (one more each side,
        for the rounding to doubles); ``None`` if ``R_d`` does not hold it."""
        low, high, low_double, height = self.frames[index]
        if not (left >= low and right <= high):
            return None
        first = math.floor((float(left.lower()) - low_double) / height) - 1
        last = math.floor((float(right.upper()) - low_double) / height) + 1
        return max(self.boxes[index][max(0, first):last + 1], key=lambda x: x.upper())

    def moduli_at(self, y: acb, on_range: arb) -> list:
        """Upper bounds on ``|H_k(y)|`` at a complex ball ``y``, one per ``k``, given
        ``|H_k| ≤ on_range`` on ``[start, end]``: along the path from the nearest point ``c(x)``
        of ``[start, end]`` to ``x = Re y`` and up to ``y``,
        ``|H_k(y)| ≤ on_range + (|x − c(x)| + |Im y|)·sup |f_k|`` on the box that the paths of
        every point of the ball cross (by the boxes of the smallest rectangle holding it, else
        on the box itself)."""
        if not y.real.is_finite() or not y.imag.is_finite():
            return [arb("inf")] * self.size
        start, end = self.ends
        left, right = arb(y.real.lower()), arb(y.real.upper())
        left, right = min(left, max(min(left, end), start)), max(right, min(max(right, start), end))
        height = arb(abs(y.imag).upper())
        length = height + max(arb(0), start - arb(y.real.lower()), arb(y.real.upper()) - end)
        for index, top in enumerate(self.tops):
            if height <= top:
                bound = self.local_bound(index, left, right)
                if bound is not None:
                    return [on_range + length * bound] * self.size
        box = acb((left + right) / 2 + arb(0, 1) * (right - left) / 2,
                  height / 2 + arb(0, 1) * height / 2)
        return [on_range + length * bound for bound in self.moduli(box)]

    def at(self, y: arb) -> list:
        """``[H_1(y), …, H_K(y)]`` at a real ball ``y`` of ``[start, end]`` (``ValueError``
        outside it, beyond the rectangles' margin)."""
        point = arb(y.mid())
        if not self.reach[0] < point < self.reach[1]:
            raise ValueError(f"a running integral on [{self.start}, {self.end}] asked at {y}")
        index = bisect.bisect_right(self.points, point)
        if index and self.points[index - 1] == point:
            integrals = self.integrals[index - 1]
        else:
            # from the nearer neighbour (the points may come in any order)
            near = index - 1 if index == len(self.points) or (
                index and point - self.points[index - 1] < self.points[index] - point) else index
            integrals = [base + part for base, part in zip(self.integrals[near],
                                                            self._gap(self.points[near], point))]
            self.points.insert(index, point)
            self.integrals.insert(index, integrals)
        if y.rad() == 0:
            return integrals
        bounds = (self.local_bound(index, arb(y.lower()), arb(y.upper()))
                  for index in range(len(self.heights)))
        bound = next((bound for bound in bounds if bound is not None), arb("inf"))
        spread = arb(0, (y.rad() * bound).upper())
        return [value + spread for value in integrals]

    def _gap(self, a: arb, b: arb) -> list:
        """``∫_a^b f`` (each component a ball holding the rules' errors) for exact ``a ≠ b``:
        one rule, or one on each of the equal parts of a gap longer than four times the largest
        height."""
        parts = math.ceil(float(abs(b - a).upper()) / float(4 * self.heights[-1]))
        total = None
        for k in range(parts):
            low = a + (b - a) * k / parts if k else a
            high = a + (b - a) * (k + 1) / parts if k + 1 < parts else b
            integrals = self._rule(low, high)
            total = integrals if total is None else [s + t for s, t in zip(total, integrals)]
        return total

    def _rule(self, a: arb, b: arb) -> list:
        """``∫_a^b f`` by the fewest Gauss–Legendre nodes over the heights (module
        docstring)."""
        half = (b - a) / 2
        middle = (a + b) / 2
        width = float(abs(half).upper())
        share = self.tolerance * arb(abs(b - a).upper()) / to_arb(self.span)
        log_share = float(share.log().lower())
        rhos, log_moduli, bounds = [], [], []
        for index, height in enumerate(self.heights):
            bound = self.local_bound(index, min(a, b) - self.tops[index],
                                     max(a, b) + self.tops[index])
            if bound is None or not bound.is_finite():
                continue
            ratio = float(height) / width
            # ρ ≤ u + √(u² + 1), rounded down (a smaller ellipse is inside the larger)
            rhos.append((ratio + math.sqrt(ratio * ratio + 1)) * (1 - 2 ** -20))
            log_moduli.append(float(bound.log().upper()) if bound > 0 else -math.inf)
            bounds.append(bound)
        if not bounds:
            raise PrecisionError("a running integral's integrand is not bounded off the real "
                                 "line in the precision used")
        orders = fewest_nodes(width, np.array(rhos), np.array(log_moduli), log_share)
        best = int(np.argmin(orders))
        order, error = checked_nodes(bounds[best], arb(rhos[best]), arb(abs(half).upper()), share)
        if not error.is_finite():
            raise PrecisionError("a running integral's integrand is not bounded off the real "
                                 "line in the precision used")
        total = None
        for node, weight in legendre_rule(order, ctx.prec):
            terms = self.values(middle + half * node)
            terms = [weight * term for term in terms]
            total = terms if total is None else [s + t for s, t in zip(total, terms)]
        spread = arb(0, error.upper())
        return [half * value + spread for value in total]


# --- a message made of running integrals ------------------------------------------------------

def line_at(line, z):
    """``α + βz`` of a line ``(α, β)`` (balls) at a real or complex ball."""
    return line[0] + line[1] * z if line[1] != 0 else line[0]


class Cell(NamedTuple):
    """One integral over ``y`` between the lines ``low`` and ``high`` (``(α, β)`` balls) on a
    piece of ``z``, its integrand ``Σ_t c_t·A_t(z)·f_t(y)`` with ``A_t = Π_i a_i(z)^{j_ti}``:
    ``sides`` the parts ``(sign, function, (α, β))`` of each ``a_i`` (:func:`side`), ``terms``
    ``(c_t, (j_ti), k)`` with ``f_t`` the ``k``-th function of ``running``."""

    low: tuple
    high: tuple
    sides: tuple
    terms: tuple
    running: RunningIntegral


class RunningMessage:
    """A message ``F(z) = Σ_cells Σ_t c_t·A_t(z)·(H_k(high(z)) − H_k(low(z)))`` on each piece
    of ``z`` (``pieces[i]`` its cells, on the piece between ``breaks[i−1]`` and ``breaks[i]``):
    the integral of a tree's noise between its bounds (one term, ``A = 1``), or of the inner
    hub of two (docs/mathematics.md §16).  ``sup`` bounds ``|H_k|`` on the real line (and
    ``|A_t| ≤ 1`` there), ``tail`` what the cut-off leaves out."""

    def __init__(self, breaks, pieces, sup: arb, tail: arb):
        self.breaks, self.pieces, self.sup, self.tail = breaks, pieces, sup, tail

    def piece(self, y: Fraction) -> int:
        """The piece holding the exact point ``y``."""
        return bisect.bisect_right(self.breaks, y)

    def value(self, z: arb, piece: int) -> arb:
        """``F(z)`` at a real ball ``z`` of the piece ``piece``."""
        total = arb(0)
        sides: dict = {}
        for cell in self.pieces[piece]:
            high = cell.running.at(line_at(cell.high, z))
            low = cell.running.at(line_at(cell.low, z))
            factors = [side(parts, z, sides) for parts in cell.sides]
            for coefficient, powers, index in cell.terms:
                total += coefficient * power_product(factors, powers) * (high[index] - low[index])
        return total

    def modulus(self, z: acb, piece: int) -> arb:
        """An upper bound on ``|F(z)|`` at a complex ball: ``Σ_cells Σ_t |c_t|·|A_t(z)|·
        (|H_k(high(z))| + |H_k(low(z))|)``, each ``|H_k|`` by
        :meth:`RunningIntegral.moduli_at` from ``|H_k| ≤ sup`` on its range."""
        total = arb(0)
        sides: dict = {}
        with ctx.workprec(BOUND_BITS):
            for cell in self.pieces[piece]:
                ends = [cell.running.moduli_at(line_at(line, z), self.sup)
                        for line in (cell.low, cell.high)]
                factors = [acb(side(parts, z, sides)).abs_upper() for parts in cell.sides]
                for coefficient, powers, index in cell.terms:
                    total += (abs(coefficient) * power_product(factors, powers)
                              * (ends[0][index] + ends[1][index]))
            return arb(total.upper())


def side(parts, z, known: dict | None = None):
    """``a(z) = Σ sign·G(α + βz)`` of the parts ``(sign, function, (α, β))`` (``function``
    ``None``: 1), each value kept in ``known`` (by the parts' identities) for the next cell."""
    total = arb(0)
    for sign, function, line in parts:
        if function is None:
            total += sign
            continue
        if known is None:
            total += sign * function(line_at(line, z))
            continue
        key = (id(function), id(line))
        if key not in known:
            known[key] = function(line_at(line, z))
        total += sign * known[key]
    return total


def power_product(factors, powers):
    """``Π_i factors_i^{powers_i}`` (repeated products: Arb's power of a ball holding 0 is
    nan)."""
    total = arb(1)
    for factor, power in zip(factors, powers):
        for _ in range(power):
            total *= factor
    return total
