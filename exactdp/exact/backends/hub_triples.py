"""A group of noises compared with three hubs, in closed form: the inner hub integrated on the
slabs of the space of the three hubs' values, then the middle hub on the cells of the plane of
the other two, then the outer hub as a message.

For a :class:`~exactdp.exact.form.nested_integral.HubTriple` (outer hub ``z₁``, middle hub
``z₂``, inner hub ``z₃``, leaves ``v_i``) each leaf contributes ``G_i(U_i) − G_i(L_i)`` as with
two hubs (``hub_pairs.py``), its bounds each linear in one hub.  The space is cut by the planes
where two bounds of one leaf are equal or a bound meets a break of ``G_i``: a *sheet*
``z₃ = α + βz_j`` when the difference involves ``z₃``, else a *wall* over a line of the plane of
``(z₁, z₂)``; by the inner hub's bounds and the kinks of its density (sheets), the middle hub's
bounds and kinks (walls).  Over a cell of the plane cut by the walls and by the lines over which
two sheets cross (``form.nested_integral.space_cells``), the sheets are ordered, and between
two consecutive ones (a *slab*) the active bounds and every piece are fixed: the integrand is an
exponential polynomial in three variables.  Its integral over ``z₃`` between the two sheets is
an antiderivative in ``z₃`` composed with them (``hub_pairs.last_integral``; each sheet is
linear in one of ``z₁``, ``z₂``, since each bound is): an exponential polynomial in
``(z₁, z₂)`` on the cell, the inner hub's message ``J(z₁, z₂)``.  Times the middle density and
the factors of the leaves compared with ``z₁`` and ``z₂`` only, integrated over ``z₂`` between
the cell's lines and summed over the cells, it is the middle message ``I(z₁)``; the
probability is ``∫ p₁(z₁) I(z₁) dz₁`` between the outer hub's bounds
(``nested_messages.message_of``).  Every sheet, line and break is an exact rational, so each
slab's pieces are decided exactly.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import replace

from flint import arb

from ..form.nested_integral import HubPair, HubTriple, Leaf, space_cells
from .hub_pairs import (LeafFunction, inner_message, last_integral, lifted, log_outer_hub,
                        times_factors)
from .nested_messages import ExpPolynomial, Piecewise, integrand_of


def _involves_inner(leaf: Leaf) -> bool:
    """Whether a leaf is compared with the inner hub."""
    return any(bound[3] != 0 for bound in leaf.lowers + leaf.uppers)


def _without_inner(leaf: Leaf) -> Leaf:
    """A leaf not compared with the inner hub as one of the outer two."""
    return replace(leaf, lowers=tuple(bound[:3] for bound in leaf.lowers),
                   uppers=tuple(bound[:3] for bound in leaf.uppers))


def middle_message(integral: HubTriple) -> Piecewise:
    """``I(z₁) = ∫ p₂(z₂) Π_{i not at z₃} Pr[…] ∫ p₃(z₃) Π_{i at z₃} Pr[L_i < v_i < U_i] dz₃
    dz₂`` over the middle and inner hubs' bounds (module docstring)."""
    middle, inner = integral.middle, integral.inner
    middle_density = integrand_of(middle.law, middle.densities, [])
    inner_density = integrand_of(inner.law, inner.densities, [])
    # identical leaves (equal queries) once, as a power
    counted = Counter(integral.leaves)
    functions = {leaf: LeafFunction(leaf if _involves_inner(leaf) else _without_inner(leaf))
                 for leaf in counted}
    deep = [(functions[leaf], power) for leaf, power in counted.items() if _involves_inner(leaf)]
    shallow = [(functions[leaf], power) for leaf, power in counted.items()
               if not _involves_inner(leaf)]
    breaks, cells = space_cells(integral, middle_density.breaks, inner_density.breaks,
                                [functions[leaf].integrand.breaks for leaf in integral.leaves])
    pieces = []
    for piece in cells:
        total = ExpPolynomial()
        for low, high, point, slabs in piece:
            message = ExpPolynomial()
            for below, above, where in slabs:
                slab = times_factors(
                    lifted(inner_density.pieces[inner_density.index(where[2])], 2, 3),
                    deep, where)
                if slab is not None:
                    message = message.plus(last_integral(slab, below, above))
            cell = times_factors(
                message.times(lifted(middle_density.pieces[middle_density.index(point[1])],
                                     1, 2)), shallow, point)
            if cell:
                total = total.plus(last_integral(cell, low, high))
        pieces.append(total)
    return Piecewise(breaks, pieces)


def log_hubs(integral: HubPair | HubTriple) -> arb | None:
    """``log`` of the probability of a group with two or three hubs as a ball (``None`` for an
    exact zero): the outer hub's message with the factor :func:`~.hub_pairs.inner_message` or
    :func:`middle_message`."""
    return log_outer_hub(integral, middle_message if isinstance(integral, HubTriple)
                         else inner_message)
