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
Every line and break is an exact rational, so each cell's pieces are decided exactly.  The
leaves' factors and the integral over the last hub between two ends are written for any number
of hubs (:class:`LeafFunction`, :func:`last_integral`): ``hub_triples.py`` uses them for three.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from flint import arb, ctx

from ...errors import MethodUnavailableError
from ..form.nested_integral import HubPair, Leaf, active_bounds, plane_cells
from .nested_messages import ExpPolynomial, Piecewise, constant_value, integrand_of, message_of

ZERO = (Fraction(0), 0)


def lifted(polynomial: ExpPolynomial, variable: int, count: int) -> ExpPolynomial:
    """A polynomial of one hub's value (``variable`` 0 for ``z₁``, 1 for ``z₂``, …) as one of
    ``count``."""
    return ExpPolynomial({ZERO * variable + key + ZERO * (count - variable - 1): c
                          for key, c in polynomial.items()})


def _variable(bound) -> int:
    """The hub a bound or line ``(α, β₁, …, β_h)`` is linear in (the first when none is)."""
    return next((j for j, beta in enumerate(bound[1:]) if beta != 0), 0)


class LeafFunction:
    """``G`` of a leaf (module docstring) and its values at bounds ``α + β₁z₁ + … + β_hz_h``
    (one ``β`` not 0, or none)."""

    def __init__(self, leaf: Leaf):
        self.leaf = leaf
        self.count = len((leaf.lowers + leaf.uppers)[0]) - 1
        self.integrand = integrand_of(leaf.law, leaf.densities, [])
        self.primitive, self.total = self.integrand.cumulative()

    def at(self, bound, point) -> ExpPolynomial:
        """``G(bound)`` on the cell holding ``point = (t₁, …, t_h)`` (``None``: ``G(+∞)``)."""
        if bound is None:
            return ExpPolynomial({ZERO * self.count: self.total})
        piece = self.primitive[self.integrand.index(_value(bound, point))]
        variable = _variable(bound)
        return lifted(piece.composed(bound[0], bound[1 + variable]), variable, self.count)

    def factor(self, point) -> ExpPolynomial | None:
        """``Pr[L < v < U]`` on the cell holding ``point``; ``None`` where ``U ≤ L``."""
        active = active_bounds(self.leaf.lowers, self.leaf.uppers, point)
        if active is None:
            return None
        lower, upper = active
        value = self.at(upper, point)
        return value if lower is None else value.plus(self.at(lower, point), -1)


def times_factors(polynomial: ExpPolynomial, leaves: list, point) -> ExpPolynomial | None:
    """``polynomial`` times the factor of each :class:`LeafFunction` to its power (``leaves``
    lists ``(function, power)``) on the cell holding ``point``; ``None`` where one is 0."""
    for leaf, power in leaves:
        factor = leaf.factor(point)
        if factor is None:
            return None
        for _ in range(power):
            polynomial = polynomial.times(factor)
    return polynomial


def _value(bound, point) -> Fraction:
    """``α + β₁t₁ + … + β_ht_h``."""
    return bound[0] + sum(beta * t for beta, t in zip(bound[1:], point))


def last_integral(polynomial: ExpPolynomial, lower, upper) -> ExpPolynomial:
    """``∫_{lower}^{upper} dz_h`` of a polynomial of ``h`` hubs' values, the ends
    ``z_h = α + β₁z₁ + … + β_{h−1}z_{h−1}`` given as ``(α, β₁, …)`` with one ``β`` not 0, or
    none (``None``: infinite), as a polynomial of the first ``h − 1`` (module docstring)."""
    by_outer: dict = {}
    for key, c in polynomial.items():
        by_outer.setdefault(key[:-2], ExpPolynomial())[key[-2:]] = c
    result = ExpPolynomial()
    for outer, inner in by_outer.items():
        primitive = inner.antiderivative()
        for end, sign in ((upper, 1), (lower, -1)):
            if end is None:
                if any(rate * sign >= 0 for rate, _ in inner):
                    raise MethodUnavailableError("an inner hub's integral does not decay")
                continue
            variable = _variable(end)
            part = lifted(primitive.composed(end[0], end[1 + variable]), variable,
                          len(outer) // 2).times(ExpPolynomial({outer: arb(1)}))
            result = result.plus(part, sign)
    return result


def inner_message(integral: HubPair) -> Piecewise:
    """``I(z₁) = ∫ p₂(z₂) Π_i Pr[L_i < v_i < U_i] dz₂`` over the inner hub's bounds."""
    inner = integral.inner
    density = integrand_of(inner.law, inner.densities, [])
    # identical leaves (equal queries) once, as a power
    leaves = [(LeafFunction(leaf), power) for leaf, power in Counter(integral.leaves).items()]
    functions = {leaf.leaf: leaf for leaf, _ in leaves}
    breaks, cells = plane_cells(integral, density.breaks,
                                [functions[leaf].integrand.breaks for leaf in integral.leaves])
    pieces = []
    for piece in cells:
        total = ExpPolynomial()
        for low, high, point in piece:
            cell = times_factors(lifted(density.pieces[density.index(point[1])], 1, 2),
                                 leaves, point)
            if cell is not None:
                total = total.plus(last_integral(cell, low, high))
        pieces.append(total)
    return Piecewise(breaks, pieces)


def log_outer_hub(integral, inner) -> arb | None:
    """``log ∫ p₁(z₁) I(z₁) dz₁`` between the outer hub's bounds as a ball (``None`` for an exact
    zero), ``I = inner(integral)`` (:func:`inner_message` for two hubs), at flint's current
    precision plus 10 bits per law for the cancellation of the sums."""
    with ctx.workprec(ctx.prec + 10 * len(integral.laws())):
        outer = integral.outer
        value = constant_value(message_of(outer.law, outer.densities, [inner(integral)],
                                          outer.lowers, outer.uppers))
        return None if value is None else value.log()
