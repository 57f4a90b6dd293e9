"""A group of noises compared with two hubs, in closed form: the inner hub integrated on the
cells of the plane of the two hubs' values, then the outer hub as a message.

For a :class:`~exactdp.exact.form.nested_integral.HubPair` (outer hub ``z₁``, inner hub
``z₂``, leaves ``v_i``) each leaf contributes ``G_i(U_i) − G_i(L_i)``, ``G_i`` the integral of its
density (and released densities) from ``−∞`` (``nested_messages.Piecewise.cumulative``),
``U_i = min`` of its upper bounds and ``L_i = max`` of its lower bounds, each linear in ``z₁``
or in ``z₂``.  The plane is cut by the lines where two bounds of one leaf are equal or a bound
meets a break of ``G_i``, by the inner hub's bounds (linear in ``z₁``) and the kinks of its
density: between two consecutive lines, over an interval of ``z₁`` where no two lines cross
(every crossing and every vertical line is a break of ``z₁``), the active bounds, the pieces of
every ``G_i`` and of the inner density are fixed, so the integrand is an exponential polynomial
in two variables, ``Σ c·z₁^j e^{a z₁}·z₂^k e^{b z₂}``.  Its integral over ``z₂`` between the
two lines ``α + βz₁`` is an antiderivative in ``z₂`` composed with the lines
(``nested_messages.ExpPolynomial.composed``): an exponential polynomial in ``z₁`` on that
interval.  Summed over the cells, it is the inner message ``I(z₁)``, and the probability is
``∫ p₁(z₁) I(z₁) dz₁`` between the outer hub's bounds (``nested_messages.message_of``).
Every line and break is an exact rational, so each cell's pieces are decided exactly.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from flint import arb, ctx

from ...errors import MethodUnavailableError
from ..form.nested_integral import HubPair, Leaf, active_bounds, plane_cells
from .nested_messages import ExpPolynomial, Piecewise, constant_value, integrand_of, message_of

ZERO = (Fraction(0), 0)


def _lifted(polynomial: ExpPolynomial, variable: int) -> ExpPolynomial:
    """A polynomial of ``z₁`` (``variable`` 0) or ``z₂`` (1) as one of both."""
    return ExpPolynomial({(key + ZERO if variable == 0 else ZERO + key): c
                          for key, c in polynomial.items()})


class _LeafFunction:
    """``G`` of a leaf (module docstring) and its values at bounds ``α + β₁z₁ + β₂z₂``."""

    def __init__(self, leaf: Leaf):
        self.leaf = leaf
        self.integrand = integrand_of(leaf.law, leaf.densities, [])
        self.primitive, self.total = self.integrand.cumulative()

    def at(self, bound, point) -> ExpPolynomial:
        """``G(bound)`` on the cell holding ``point = (t₁, t₂)`` (``None``: ``G(+∞)``)."""
        if bound is None:
            return ExpPolynomial({ZERO + ZERO: self.total})
        alpha, beta1, beta2 = bound
        piece = self.primitive[self.integrand.index(_value(bound, point))]
        if beta2 == 0:
            return _lifted(piece.composed(alpha, beta1), 0)
        return _lifted(piece.composed(alpha, beta2), 1)

    def factor(self, point) -> ExpPolynomial | None:
        """``Pr[L < v < U]`` on the cell holding ``point``; ``None`` where ``U ≤ L``."""
        active = active_bounds(self.leaf.lowers, self.leaf.uppers, point)
        if active is None:
            return None
        lower, upper = active
        value = self.at(upper, point)
        return value if lower is None else value.plus(self.at(lower, point), -1)


def _value(bound, point) -> Fraction:
    """``α + β₁t₁ + β₂t₂``."""
    return bound[0] + bound[1] * point[0] + bound[2] * point[1]


def _z2_integral(polynomial: ExpPolynomial, lower, upper) -> ExpPolynomial:
    """``∫_{lower(z₁)}^{upper(z₁)} dz₂`` of a polynomial of both, the ends lines ``(α, β)``
    (``None``: infinite), as a polynomial of ``z₁`` (module docstring)."""
    by_outer: dict = {}
    for (a1, k1, a2, k2), c in polynomial.items():
        by_outer.setdefault((a1, k1), ExpPolynomial())[(a2, k2)] = c
    result = ExpPolynomial()
    for outer, inner in by_outer.items():
        primitive = inner.antiderivative()
        for end, sign in ((upper, 1), (lower, -1)):
            if end is None:
                if any(rate * sign >= 0 for rate, _ in inner):
                    raise MethodUnavailableError("an inner hub's integral does not decay")
                continue
            part = primitive.composed(*end).times(ExpPolynomial({outer: arb(1)}))
            result = result.plus(part, sign)
    return result


def inner_message(integral: HubPair) -> Piecewise:
    """``I(z₁) = ∫ p₂(z₂) Π_i Pr[L_i < v_i < U_i] dz₂`` over the inner hub's bounds."""
    inner = integral.inner
    density = integrand_of(inner.law, inner.densities, [])
    # identical leaves (equal queries) once, as a power
    leaves = [(_LeafFunction(leaf), power) for leaf, power in Counter(integral.leaves).items()]
    functions = {leaf.leaf: leaf for leaf, _ in leaves}
    breaks, cells = plane_cells(integral, density.breaks,
                                [functions[leaf].integrand.breaks for leaf in integral.leaves])
    pieces = []
    for piece in cells:
        total = ExpPolynomial()
        for low, high, point in piece:
            cell = _lifted(density.pieces[density.index(point[1])], 1)
            for leaf, power in leaves:
                factor = leaf.factor(point)
                if factor is None:
                    break
                for _ in range(power):
                    cell = cell.times(factor)
            else:
                total = total.plus(_z2_integral(cell, low, high))
        pieces.append(total)
    return Piecewise(breaks, pieces)


def log_hub_pair(integral: HubPair) -> arb | None:
    """``log`` of the group's probability as a ball (``None`` for an exact zero), at flint's
    current precision plus bits for the cancellation of the sums."""
    with ctx.workprec(ctx.prec + 10 * len(integral.laws())):
        outer = integral.outer
        value = constant_value(message_of(outer.law, outer.densities, [inner_message(integral)],
                                          outer.lowers, outer.uppers))
        return None if value is None else value.log()
