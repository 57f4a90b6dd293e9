"""Gauss–Legendre rules in ball arithmetic, and a rigorous bound on their error.

For ``f`` analytic on ``[−1, 1]`` and continuable to the open Bernstein ellipse

    E_ρ = {(u + u^{−1})/2 : |u| < ρ},   ρ > 1  (semi-axes (ρ + ρ^{−1})/2 and (ρ − ρ^{−1})/2),

where ``|f| ≤ M``, the ``n``-point Gauss–Legendre rule ``I_n`` (``n ≥ 2``) satisfies

    |∫_{−1}^{1} f − I_n| ≤ (64/15) · M · ρ^{2−2n} / (ρ² − 1).

Proof (the argument of Trefethen, *Approximation Theory and Approximation Practice*, SIAM 2013,
Thm 19.3): the Chebyshev coefficients of ``f`` satisfy ``|a_k| ≤ 2Mρ^{−k}`` (ATAP Thm 8.1); the
rule integrates ``T_k`` exactly for ``k < 2n`` and, by symmetry, for every odd ``k``; for even
``k ≥ 2n ≥ 4``, ``|∫T_k − I_n(T_k)| ≤ 2/(k² − 1) + Σ_i w_i ≤ 2/15 + 2 = 32/15``; summing
``2Mρ^{−k}·32/15`` over even ``k ≥ 2n`` gives ``(64/15)·M·ρ^{−2n}/(1 − ρ^{−2})``, the bound.  The
factor is ``ρ^{2−2n}``, not ``ρ^{−2n}``: with the latter the bound fails, e.g. for ``e^{3z/4}`` on
``[0, 3]`` with ``n = 2``, ``ρ = 4`` (the test of this module draws such cases).

On a piece ``[m − h, m + h]`` the bound is multiplied by ``h``.  For an entire ``f`` the largest
``|f|`` on the closed ellipse is reached on its boundary (maximum modulus principle), so ``M`` is
the largest ``|f|`` on complex balls that cover the boundary (:func:`ellipse_cover`); a function
real on the real line has ``|f(z̄)| = |f(z)|``, so the upper half of the boundary suffices.

Nodes and weights are flint's rigorous Legendre roots (``arb.legendre_p_root``), so the rule
itself is evaluated in balls and only the truncation error above needs a bound.
"""

from __future__ import annotations

import functools

import numpy as np
from flint import acb, arb, ctx


@functools.lru_cache(maxsize=64)
def legendre_rule(order: int, bits: int) -> tuple:
    """Nodes and weights ``((x_k, w_k), …)`` of the ``order``-point Gauss–Legendre rule on
    ``[−1, 1]``, as balls at ``bits`` bits of precision."""
    with ctx.workprec(bits):
        return tuple(arb.legendre_p_root(order, k, weight=True) for k in range(order))


def error_bound(modulus: arb, rho: arb, order: int, half_width: arb) -> arb:
    """``h · (64/15) · M · ρ^{2−2n} / (ρ² − 1)``: a bound on the error of the ``n = order``-point
    rule (``n ≥ 2``) on a piece of half-width ``h``, for ``|f| ≤ M = modulus`` on the ellipse
    ``E_ρ`` of the piece (module docstring), as an exact number (the upper end of the ball)."""
    if order < 2:
        raise ValueError(f"the error bound needs at least 2 nodes, got order={order}")
    if not rho > 1:
        raise ValueError(f"the Bernstein ellipse needs rho > 1, got {rho}")
    bound = half_width * 64 * modulus / (15 * (rho * rho - 1) * rho ** (2 * order - 2))
    return arb(bound.upper())


def log_error_bound(half_width, rho, order, log_modulus):
    """The log of :func:`error_bound` in double precision, ``log M = log_modulus`` (floats or
    numpy arrays broadcast together; ``order = 1`` gives the factor before ``ρ^{−2(n − 1)}``):
    for planning, or for a bound whose caller raises it by its rounding."""
    return (np.log(half_width * 64 / 15 / (rho * rho - 1)) + log_modulus
            - (2 * order - 2) * np.log(rho))


def ellipse_cover(middle: arb, half_width: arb, rho: arb, arcs: int) -> list:
    """Complex balls covering the upper half of the boundary of the Bernstein ellipse ``E_ρ`` of
    the piece ``[middle − h, middle + h]``: ``middle + h·(a cos θ + i b sin θ)``,
    ``a = (ρ + ρ^{−1})/2``, ``b = (ρ − ρ^{−1})/2``, for ``θ`` in each of ``arcs`` equal arcs of
    ``[0, π]`` (each arc a ball of ``θ``; Arb's ``cos``/``sin`` of a ball enclose their range)."""
    a = (rho + 1 / rho) / 2
    b = (rho - 1 / rho) / 2
    pi = arb.pi()
    cover = []
    for k in range(arcs):
        # the ball of θ covering [kπ/arcs, (k + 1)π/arcs]
        theta = (2 * k + 1) * pi / (2 * arcs) + arb(0, 1) * pi / (2 * arcs)
        cover.append(acb(middle + half_width * a * theta.cos(), half_width * b * theta.sin()))
    return cover
