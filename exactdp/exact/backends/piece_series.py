"""The log integrand of a piecewise exponential integral, piece by piece, in ball arithmetic, at a
cost per node independent of the number of factors.

For ``I = ∫ p_hub(z) Π_j g_j(z − s_j)^{m_j} dz`` with Laplace or exponential laws, each factor is,
on either side of its kink ``k_j``, ``e^{c + r(z − s)}`` or ``1 − e^{c + r(z − s)}``
(``NoiseLaw.piece``, ``c`` the log of its coefficient).  On a piece between adjacent kinks therefore

    g(z) = A + B·z + Σ_G Σ_{j∈G} m_j log(1 − e^{a_j} y_G),    y_G = e^{r_G z},  a_j = c − r_G s_j,

where ``A``, ``B`` sum the exponential sides (prefix and suffix sums over the factors sorted by
kink) and each group ``G`` collects the ``1 − e^{…}`` sides of one law and function.  With the
ratio ``ρ_j = e^{a_j} y ≤ ρ ≤ ½`` (a Laplace factor on its ``1 −`` side has ``ρ_j ≤ ½``),

    Σ_j m_j log(1 − e^{a_j} y) = −Σ_{k≥1} (y^k / k) Σ_j m_j e^{k a_j},

a power series in ``y`` whose coefficients are power sums: adding a factor as the sweep passes its
kink costs ``O(K)``, evaluating at a node costs ``O(K)`` (Horner), whatever the number of
factors.  Truncated after ``y^K`` the remainder is at most
``M ρ^{K+1} / ((K + 1)(1 − ρ))`` (``M = Σ m_j``, a geometric tail), added to the ball's radius;
``ρ`` is computed for each piece from its nearest factor.  Factors whose ratio exceeds ½ on the
piece (an exponential CDF next to its kink) are evaluated directly.

Everything is evaluated in python-flint's ``arb`` balls, so every value carries a rigorous
enclosure of its rounding; the location of the peak and of the cut-off points only needs double
precision (:meth:`PiecewiseExponential.value_float`, :meth:`slope_float`).
"""

from __future__ import annotations

import bisect
import contextlib
import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import flint
import numpy as np
from flint import arb, arb_poly, arb_series

from ...errors import PrecisionError
from ...noise import Kind
from ...precision import to_arb
from ..form.integral_form import Integral
from .arithmetics import BALLS
from .exponential_sums import piece_in

#: Largest ratio ``e^{a_j} y`` summed by the series (a Laplace factor never exceeds it).
SERIES_RATIO = Fraction(1, 2)
#: A series of ``K`` terms is used once it replaces at least ``K / DIRECT_FRACTION`` factors
#: (a direct evaluation costs about that many multiplications per factor).
DIRECT_FRACTION = 10


@contextlib.contextmanager
def flint_context(bits: int, series_length: int = 10):
    """Run with python-flint's global precision ``bits`` and series length ``series_length``,
    restoring the previous settings."""
    previous = flint.ctx.prec, flint.ctx.cap
    flint.ctx.prec, flint.ctx.cap = bits, series_length
    try:
        yield
    finally:
        flint.ctx.prec, flint.ctx.cap = previous


@dataclass
class _Side:
    """``[1 −] e^{c + r x}`` on one side of a factor's kink (``valid`` False where it vanishes)."""

    c: arb
    r: arb
    one_minus: bool
    valid: bool
    c_float: float
    r_float: float


def _side(law, kind: Kind, x: Fraction) -> _Side:
    """The law's exponential form on the side of its kink containing ``x``
    (``exponential_sums.piece_in``) in balls at flint's current precision."""
    piece = piece_in(law, kind, x, BALLS)
    if piece is None:  # the function vanishes there: the integral's bounds exclude this side
        return _Side(arb(0), arb(0), False, False, -math.inf, 0.0)
    c, r = piece.log_coefficient, to_arb(piece.rate)
    return _Side(c, r, piece.one_minus, True, float(c.mid()), float(r.mid()))


@dataclass
class _Factor:
    law: object
    kind: Kind
    shift: Fraction
    power: int
    kink: Fraction
    left: _Side
    right: _Side
    shift_arb: arb


class PiecewiseExponential:
    """The log integrand of a piecewise exponential :class:`Integral` (module docstring).

    Build it inside ``flint.ctx.prec`` set to the working precision.
    """

    def __init__(self, integral: Integral):
        entries = [(integral.hub, Kind.PDF, Fraction(0), 1)]
        entries += [(f.law, f.kind, f.shift, f.power) for f in integral.factors]
        factors = []
        for law, kind, shift, power in entries:
            (kink,) = law.kink_points()
            width = max(law.scale, Fraction(1))
            factors.append(_Factor(law, kind, shift, power, shift + kink,
                                   _side(law, kind, kink - width), _side(law, kind, kink + width),
                                   to_arb(shift)))
        factors.sort(key=lambda f: f.kink)
        self.factors = factors
        self.kinks = [f.kink for f in factors]
        self.lower = integral.lower
        self.upper = integral.upper
        self.total_power = sum(f.power for f in factors)
        self.smallest_scale = min(f.law.scale for f in factors)
        #: the zeros ``z = s − c/r`` of the ``1 − e^{c + r(z − s)}`` sides (where ``log g`` is
        #: singular), with the kinks beyond which those sides apply: right sides (left of their
        #: kink) as kinks ascending with the running largest zero, left sides as kinks
        #: ascending with the smallest zero from there on
        right = sorted((float(f.kink), float(f.shift) - f.right.c_float / f.right.r_float)
                       for f in factors if f.right.one_minus)
        left = sorted((float(f.kink), float(f.shift) - f.left.c_float / f.left.r_float)
                      for f in factors if f.left.one_minus)
        self.zeros_below = ([k for k, _ in right], list(itertools.accumulate(
            (z for _, z in right), max)))
        suffix = list(itertools.accumulate((z for _, z in reversed(left)), min))[::-1]
        self.zeros_above = ([k for k, _ in left], suffix)
        self.scale = max([Fraction(1)] + [f.law.scale for f in factors])
        # double-precision copies for the geometry (peak and cut-off points)
        self._kink_f = np.array([float(f.kink) for f in factors])
        self._shift_f = np.array([float(f.shift) for f in factors])
        self._power_f = np.array([float(f.power) for f in factors])
        for name in ("left", "right"):
            sides = [getattr(f, name) for f in factors]
            setattr(self, f"_{name}_f", (np.array([s.c_float for s in sides]),
                                         np.array([s.r_float for s in sides]),
                                         np.array([s.one_minus for s in sides]),
                                         np.array([s.valid for s in sides])))

    @staticmethod
    def applies(integral: Integral) -> bool:
        """Laplace or exponential laws only (one kink each, piecewise exponential)."""
        laws = [integral.hub] + [f.law for f in integral.factors]
        return all(law.closed_form and len(law.kink_points()) == 1 for law in laws)

    # ------------------------------------------------------------------ double-precision geometry
    def _terms_float(self, z: np.ndarray):
        """Per (point, factor) values of ``log g`` and ``(log g)'`` in double precision."""
        z = np.asarray(z, dtype=float)[..., None]
        right = (z > self._kink_f) | ((z == self._kink_f) & ~self._left_f[3])
        c = np.where(right, self._right_f[0], self._left_f[0])
        r = np.where(right, self._right_f[1], self._left_f[1])
        om = np.where(right, self._right_f[2], self._left_f[2])
        valid = np.where(right, self._right_f[3], self._left_f[3])
        with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
            t = c + r * (z - self._shift_f)
            value = np.where(om, np.log1p(-np.exp(t)), t)
            # (log(1 − e^t))' = −r e^t / (1 − e^t), and +0 in the denominator where t = 0
            slope = np.where(om, -r * np.exp(t) / np.maximum(-np.expm1(t), 0.0), r)
        # where a function vanishes (left of an exponential law's kink) log g = −∞ and g rises
        # into the domain: its slope counts as +∞ there (−∞ on the right)
        value = np.where(valid, value, -np.inf)
        slope = np.where(valid, slope, np.where(right, -np.inf, np.inf))
        return self._power_f * value, self._power_f * slope

    def zero_distance(self, a: float, b: float) -> float:
        """Distance from ``[a, b]`` (between kinks) to the nearest zero of a factor that is on
        its ``1 − e^{…}`` side there (the nearest singularity of ``g``'s continuation)."""
        kinks, zeros = self.zeros_below
        i = bisect.bisect_right(kinks, a)
        left = a - zeros[i - 1] if i > 0 else math.inf
        kinks, zeros = self.zeros_above
        j = bisect.bisect_left(kinks, b)
        right = zeros[j] - b if j < len(kinks) else math.inf
        return min(left, right)

    def value_float(self, z: float) -> float:
        """``g(z)`` in double precision (for locating points only)."""
        return float(np.sum(self._terms_float(z)[0]))

    def slope_float(self, z) -> np.ndarray:
        """``g'(z)`` in double precision at each of the points ``z``."""
        z = np.atleast_1d(np.asarray(z, dtype=float))
        chunk = max(1, 2_000_000 // len(self.factors))
        return np.concatenate([np.sum(self._terms_float(z[i:i + chunk])[1], axis=-1)
                               for i in range(0, len(z), chunk)])

    # ------------------------------------------------------------------ direct ball evaluation
    def value_and_slope(self, z: Fraction) -> tuple[arb, arb]:
        """``g(z)`` and ``g'(z)`` as balls, summing every factor (``O(n)``; for a few points);
        ``None`` where the integrand vanishes."""
        zb = to_arb(z)
        value, slope = arb(0), arb(0)
        for f in self.factors:
            side = f.right if z > f.kink or (z == f.kink and not f.left.valid) else f.left
            if not side.valid:
                return None
            t = side.c + side.r * (zb - f.shift_arb)
            if side.one_minus:
                value += f.power * (-t.expm1()).log()
                slope += f.power * (-side.r) / (-t).expm1()
            else:
                value += f.power * t
                slope += f.power * side.r
        return value, slope

    # ------------------------------------------------------------------ piece-by-piece evaluation
    def series_length(self, accuracy_bits: int) -> int:
        """Terms ``K`` of each series: ``ρ^{K+1}·M`` below ``2^{−accuracy_bits}`` for ``ρ = ½``
        (the bound actually added is computed for each piece)."""
        return accuracy_bits + self.total_power.bit_length() + 4

    def log_values(self, pieces, nodes, accuracy_bits: int, derivatives=(0,)):
        """``g`` (or its derivatives) at the nodes of each piece.

        Parameters
        ----------
        pieces : list of (Fraction, Fraction)
            Consecutive intervals, left to right.  Each stands for the smooth piece of ``g``
            around its middle: ``g`` is evaluated by that piece's formula (continued
            analytically where the interval reaches beyond a kink, as the ellipse bound of
            ``backends/piecewise_gauss.py`` needs), and no zero of a ``1 − e^{…}`` factor of the
            formula may lie in the interval.
        nodes : list of list of arb
            The points of each piece, inside its interval.
        accuracy_bits : int
            The absolute accuracy wanted of ``g`` (the series' length).
        derivatives : tuple of int
            Which of ``g``, ``g'``, ``g''`` (0, 1, 2) to evaluate.

        Returns
        -------
        list of list of arb, or a list of them
            ``g`` at each node, the series' truncation bound included in the radius; with
            several ``derivatives``, one such list per derivative, in their order.
        """
        length = self.series_length(accuracy_bits)
        totals = {d: [[arb(0) for _ in piece_nodes] for piece_nodes in nodes]
                  for d in derivatives}
        middles = [(a + b) / 2 for a, b in pieces]
        splits = [bisect.bisect_left(self.kinks, m) for m in middles]  # factors left of each piece
        self._linear(nodes, splits, totals)
        for name, order in (("right", 1), ("left", -1)):
            groups: dict = {}
            for index, f in enumerate(self.factors):
                side = getattr(f, name)
                if side.one_minus:
                    groups.setdefault((f.law, f.kind), []).append(index)
            with flint_context(flint.ctx.prec, length + 1):
                for members in groups.values():
                    self._group(name, order, members, pieces, nodes, splits, totals, length)
        if derivatives == (0,):
            return totals[0]
        return [totals[d] for d in derivatives]

    def _linear(self, nodes, splits, totals) -> None:
        """Add ``A + B z`` (and its derivative ``B``): prefix sums of the right sides, suffix
        sums of the left sides."""
        n = len(self.factors)

        def cumulative(name, indices):
            a, b, out = arb(0), arb(0), [(arb(0), arb(0))]
            for i in indices:
                f = self.factors[i]
                side = getattr(f, name)
                if side.valid and not side.one_minus:
                    a += f.power * (side.c - side.r * f.shift_arb)
                    b += f.power * side.r
                out.append((a, b))
            return out

        prefix = cumulative("right", range(n))
        suffix = cumulative("left", range(n - 1, -1, -1))
        for p, (piece_nodes, split) in enumerate(zip(nodes, splits)):
            a = prefix[split][0] + suffix[n - split][0]
            b = prefix[split][1] + suffix[n - split][1]
            for i, z in enumerate(piece_nodes):
                if 0 in totals:
                    totals[0][p][i] += a + b * z
                if 1 in totals:
                    totals[1][p][i] += b

    def _group(self, name, order, members, pieces, nodes, splits, totals, length) -> None:
        """Add one group's ``Σ m_j log(1 − e^{a_j} y)``, ``y = e^{rz}`` (or its derivatives):
        sweep the pieces in the direction in which the group's factors enter their ``1 −``
        side, adding each factor's series once (and removing it again only where an interval
        reaches back closer to its kink than the previous one).

        With ``P(y) = Σ_k c_k y^k`` the series, ``d^d/dz^d P(e^{rz}) = r^d Σ_k k^d c_k y^k``;
        ``|c_k y^k| ≤ (M/k)ρ^k`` (``M`` the summed powers, ``ρ`` the largest ratio), so the
        truncation after ``y^K`` costs at most ``|r|^d M Σ_{k>K} k^{d−1} ρ^k``."""
        first = self.factors[members[0]]
        side = getattr(first, name)
        r = side.r
        log_limit = math.log(SERIES_RATIO)
        # factor j is on its "1 −" side on a piece iff its kink is left (right side) / right
        # (left side) of the piece; sweep so that the series only ever gains factors
        ascending = [self.factors[i].kink for i in members]
        if order < 0:
            members = members[::-1]
        sequence = range(len(pieces)) if order > 0 else range(len(pieces) - 1, -1, -1)
        series = arb_series([0])
        polys: dict = {}
        added, power_sum, dirty = 0, 0, False
        for p in sequence:
            a_edge, b_edge = pieces[p]
            edge = a_edge if order > 0 else b_edge  # where the ratios are largest
            middle = (a_edge + b_edge) / 2
            if order > 0:
                active = bisect.bisect_left(ascending, middle)
            else:
                active = len(ascending) - bisect.bisect_right(ascending, middle)
            if active == 0:
                continue
            # far factors: ratio e^{c + r(edge − s)} ≤ ½ (decided in double precision; the tail
            # bound below uses the exact largest ratio, so a wrong guess costs only accuracy)
            edge_f = float(edge)
            far = active
            while far > 0:
                f = self.factors[members[far - 1]]
                if side.c_float + side.r_float * (edge_f - float(f.shift)) <= log_limit + 1e-12:
                    break
                far -= 1
            if not added and far < length // DIRECT_FRACTION:
                far = 0  # a few factors: direct evaluation is cheaper than a series
            while added > far:  # an interval reaching back beyond the last one's edge
                added -= 1
                f = self.factors[members[added]]
                series -= f.power * arb_series([1, -(side.c - r * f.shift_arb).exp()]).log()
                power_sum -= f.power
                dirty = True
            while added < far:
                f = self.factors[members[added]]
                a_j = side.c - r * f.shift_arb
                series += f.power * arb_series([1, -a_j.exp()]).log()
                power_sum += f.power
                added += 1
                dirty = True
            if dirty:
                coefficients = series.coeffs()
                polys = {d: arb_poly([k ** d * c for k, c in enumerate(coefficients)])
                         * r ** d for d in totals}
                dirty = False
            tails = {d: arb(0) for d in totals}
            if far:
                nearest = self.factors[members[far - 1]]
                ratio = (side.c + r * (to_arb(edge) - nearest.shift_arb)).exp()
                ratio = arb(ratio.upper())
                if not ratio < 1:
                    raise PrecisionError("a series of the log integrand does not converge at "
                                         "this precision")
                tails = {d: _series_tail(power_sum, ratio, length, d) * abs(r) ** d
                         for d in totals}
                tails = {d: arb(0, t.upper()) for d, t in tails.items()}
            near = [(f, side.c - r * f.shift_arb)
                    for f in (self.factors[members[i]] for i in range(far, active))]
            for d, values in totals.items():
                poly = polys.get(d)
                for i, z in enumerate(nodes[p]):
                    value = tails[d]
                    if far:
                        value += poly((r * z).exp())
                    for f, a_j in near:
                        value += f.power * _log_one_minus_exp(a_j + r * z, r, d)
                    values[p][i] += value


def _series_tail(power_sum: int, ratio: arb, length: int, derivative: int) -> arb:
    """``M Σ_{k>K} k^{d−1} ρ^k`` for ``d = 0, 1, 2`` (:meth:`PiecewiseExponential._group`):
    ``Mρ^{K+1}/((K + 1)(1 − ρ))``, ``Mρ^{K+1}/(1 − ρ)`` and
    ``Mρ^{K+1}((K + 1)(1 − ρ) + ρ)/(1 − ρ)²``."""
    head = power_sum * ratio ** (length + 1)
    if derivative == 0:
        return head / ((length + 1) * (1 - ratio))
    if derivative == 1:
        return head / (1 - ratio)
    return head * ((length + 1) * (1 - ratio) + ratio) / (1 - ratio) ** 2


def _log_one_minus_exp(t: arb, r: arb, derivative: int) -> arb:
    """``log(1 − e^t)`` for ``t = a + rz`` and its first two derivatives in ``z``:
    ``r e^t/expm1(t)`` and ``−r² e^t/expm1(t)²``."""
    if derivative == 0:
        return (-t.expm1()).log()
    ratio = t.exp() / t.expm1()
    if derivative == 1:
        return r * ratio
    return -r * r * ratio / t.expm1()
