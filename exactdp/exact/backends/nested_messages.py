"""Nested integrals of piecewise exponential laws in closed form: each message an exponential
polynomial on pieces, in Arb balls.

Between consecutive kinks the density of a Laplace or exponential law is ``c·e^{a·y}``
(``NoiseLaw.piece``, taken through ``exponential_sums.piece_in``).  Exponential polynomials
``f(y) = Σ c_{a,k} y^k e^{a y}`` — exact rational rates ``a``, integer powers ``k``, ball
coefficients — are closed under the three operations a message of a tree
(``form/nested_integral.py``) needs:

* products (``y^j e^{ay} · y^k e^{by} = y^{j+k} e^{(a+b)y}``);
* antiderivatives, ``∫ y^k e^{ay} dy = e^{ay} Σ_{j=0}^{k} (−1)^j k!/(k−j)! · y^{k−j}/a^{j+1}``
  for ``a ≠ 0`` and ``y^{k+1}/(k+1)`` for ``a = 0``;
* composition with a bound ``y = α + βz``:
  ``(α + βz)^k e^{a(α+βz)} = e^{aα} Σ_j C(k,j) α^{k−j} β^j z^j e^{aβ z}``.

So with ``h_v`` the integrand of a message, piecewise on the union of its factors' pieces, and
``G(y) = ∫_{−∞}^{y} h_v`` (continuous: on a piece starting at ``b``, ``G(b)`` plus the
antiderivative from ``b``), the message is ``m_v(z) = G(U(z)) − G(L(z))`` (``G(−∞) = 0``,
``G(+∞)`` the total), again an exponential polynomial on the pieces of ``z`` between the
points where two bounds cross and where a bound meets a break of ``G``; it is 0 where
``U(z) ≤ L(z)``.  Every break is an exact rational, so the bounds active on a piece and the
piece of ``G`` a bound falls in are decided exactly.  On an infinite piece only decaying terms
occur (the density decays there and every message is at most 1), so ``G`` needs no constant
at ``−∞``.

The balls carry the rounding and the cancellation of the sums; the caller's precision loop
(``certified.enclose``) raises the precision until the result is narrow.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import math
from fractions import Fraction

from flint import arb, ctx

from ...errors import MethodUnavailableError
from ...noise import Kind, NoiseLaw
from ...precision import to_arb
from ..form.integral_form import interior_point
from ..form.nested_integral import Branch, NestedIntegral, active_bounds, message_breaks
from .arithmetics import BALLS
from .exponential_sums import piece_in


class ExpPolynomial(dict):
    """``Σ c·y^k·e^{a·y}``: ``(a, k) → c``, ``a`` an exact rational, ``c`` a ball."""

    def plus(self, other: "ExpPolynomial", sign: int = 1) -> "ExpPolynomial":
        """``self + sign·other``."""
        total = ExpPolynomial(self)
        for key, value in other.items():
            total[key] = total[key] + sign * value if key in total else sign * value
        return total

    def times(self, other: "ExpPolynomial") -> "ExpPolynomial":
        """The product (in several variables too: a key lists ``(a, k)`` of each variable in
        turn, ``hub_pairs.py``)."""
        product = ExpPolynomial()
        for (key1, c), (key2, d) in itertools.product(self.items(), other.items()):
            key = tuple(x + y for x, y in zip(key1, key2))
            product[key] = product[key] + c * d if key in product else c * d
        return product

    def antiderivative(self) -> "ExpPolynomial":
        """An antiderivative (module docstring), with no constant term added."""
        result = ExpPolynomial()
        for (rate, power), c in self.items():
            if rate == 0:
                parts = [((rate, power + 1), Fraction(1, power + 1))]
            else:
                parts = [((rate, power - j),
                          Fraction((-1) ** j * math.perm(power, j)) / rate ** (j + 1))
                         for j in range(power + 1)]
            for key, factor in parts:
                term = c * to_arb(factor)
                result[key] = result[key] + term if key in result else term
        return result

    def composed(self, alpha: Fraction, beta: Fraction) -> "ExpPolynomial":
        """``z ↦ f(α + βz)`` (module docstring); a constant when ``β = 0``."""
        if beta == 0:
            return ExpPolynomial({(Fraction(0), 0): self.at(alpha)}) if self else ExpPolynomial()
        result = ExpPolynomial()
        for (rate, power), c in self.items():
            scaled = c * to_arb(rate * alpha).exp()
            for j in range(power + 1):
                key = (rate * beta, j)
                term = scaled * to_arb(math.comb(power, j) * alpha ** (power - j) * beta ** j)
                result[key] = result[key] + term if key in result else term
        return result

    def at(self, y: Fraction) -> arb:
        """``f(y)`` at an exact rational."""
        point = to_arb(y)
        return sum((c * point ** power * to_arb(rate * y).exp()
                    for (rate, power), c in self.items()), arb(0))


class Piecewise:
    """A function given by an :class:`ExpPolynomial` on each piece between ``breaks`` (exact
    rationals, increasing): ``pieces[i]`` on ``(breaks[i−1], breaks[i])``, the first and last
    pieces infinite."""

    def __init__(self, breaks, pieces):
        self.breaks, self.pieces = list(breaks), list(pieces)

    def index(self, y: Fraction) -> int:
        """The piece holding ``y`` (at a break: the piece to its right)."""
        return bisect.bisect_right(self.breaks, y)

    def on(self, breaks: list) -> list:
        """The pieces of ``self`` on the finer pieces between ``breaks`` (a superset)."""
        ends = [None] + breaks + [None]
        return [self.pieces[self.index(interior_point(lo, hi))] for lo, hi in zip(ends, ends[1:])]

    @staticmethod
    def product(functions: list["Piecewise"]) -> "Piecewise":
        """The product of piecewise functions, on the union of their breaks."""
        breaks = sorted(set().union(*(f.breaks for f in functions)))
        pieces = [ExpPolynomial({(Fraction(0), 0): arb(1)})] * (len(breaks) + 1)
        for f in functions:
            pieces = [p.times(q) for p, q in zip(pieces, f.on(breaks))]
        return Piecewise(breaks, pieces)

    def cumulative(self) -> tuple[list, arb]:
        """``(G, total)``: ``G[i]`` the :class:`ExpPolynomial` of ``∫_{−∞}^{y}`` on piece ``i``
        (module docstring) and ``total = ∫_{−∞}^{∞}``."""
        functions, value = [], arb(0)
        for index, piece in enumerate(self.pieces):
            primitive = piece.antiderivative()
            if index > 0:
                start = self.breaks[index - 1]
                primitive = primitive.plus(
                    ExpPolynomial({(Fraction(0), 0): value - primitive.at(start)}))
            if index < len(self.breaks):
                value = primitive.at(self.breaks[index])
            functions.append(primitive)
        last = functions[-1]
        if (any(rate >= 0 and (rate, power) != (0, 0) for rate, power in last)
                or any(rate <= 0 for rate, _ in functions[0])):
            raise MethodUnavailableError("a nested integral does not decay at ±∞")
        return functions, last.get((Fraction(0), 0), arb(0))


def density(law: NoiseLaw, shift: Fraction = Fraction(0)) -> Piecewise:
    """``p_law(y − shift)`` as a :class:`Piecewise` in balls (0 where it vanishes)."""
    kinks = [shift + k for k in law.kink_points()]
    pieces = []
    for lo, hi in zip([None] + kinks, kinks + [None]):
        piece = piece_in(law, Kind.PDF, interior_point(lo, hi) - shift, BALLS)
        if piece is None:
            pieces.append(ExpPolynomial())
            continue
        coefficient = (piece.log_coefficient_at(shift, BALLS)).exp()
        pieces.append(ExpPolynomial({(piece.rate, 0): coefficient}))
    return Piecewise(kinks, pieces)


def message(branch: Branch) -> Piecewise:
    """``m_v(z)`` of ``branch`` (``form/nested_integral.py``) at flint's current precision,
    memoised per branch and precision (paths share subtrees)."""
    return _message(branch, ctx.prec)


@functools.lru_cache(maxsize=4096)
def _message(branch: Branch, precision: int) -> Piecewise:
    return message_of(branch.law, branch.densities, [message(c) for c in branch.children],
                      branch.lowers, branch.uppers)


def integrand_of(law: NoiseLaw, densities: tuple, factors: list) -> Piecewise:
    """``p_law(y) · Π p_d(y − s) · Π factors(y)``: the integrand of a message."""
    if not law.closed_form:
        raise MethodUnavailableError(f"nested integrals mixing {law} noise with noise that has "
                                     f"kinks have no certified rule (Laplace and exponential "
                                     f"noise alone have one, Gaussian and Gumbel noise alone too)")
    return Piecewise.product([density(law)] + [density(d, shift) for d, shift in densities]
                             + list(factors))


def message_of(law: NoiseLaw, densities: tuple, factors: list, lowers, uppers) -> Piecewise:
    """``z ↦ ∫_{max lowers}^{min uppers}`` of :func:`integrand_of` (module docstring), bounds
    ``(α, β)`` for ``α + β·z``."""
    integrand = integrand_of(law, densities, factors)
    primitive, total = integrand.cumulative()
    breaks = message_breaks(lowers, uppers, integrand.breaks)
    ends = [None] + breaks + [None]
    pieces = []
    for lo, hi in zip(ends, ends[1:]):
        z = interior_point(lo, hi)
        active = active_bounds(lowers, uppers, z)
        if active is None:
            pieces.append(ExpPolynomial())
            continue
        lower, upper = active
        piece = (ExpPolynomial({(Fraction(0), 0): total}) if upper is None
                 else primitive[integrand.index(upper[0] + upper[1] * z)].composed(*upper))
        if lower is not None:
            piece = piece.plus(
                primitive[integrand.index(lower[0] + lower[1] * z)].composed(*lower), -1)
        pieces.append(piece)
    return Piecewise(breaks, pieces)


def constant_value(function: Piecewise) -> arb | None:
    """The value of a message with constant bounds (one piece), ``None`` for an exact zero."""
    (piece,) = function.pieces
    value = piece.get((Fraction(0), 0), arb(0))
    return None if value.is_zero() else value


def log_nested(integral: NestedIntegral) -> arb | None:
    """``log`` of the nested integral as a ball (``None`` for an exact zero: no piece of the
    root's domain is left), at flint's current precision plus bits for the cancellation of the
    sums."""
    with ctx.workprec(ctx.prec + 10 * len(integral.root.laws())):
        value = constant_value(message(integral.root))
        return None if value is None else value.log()
