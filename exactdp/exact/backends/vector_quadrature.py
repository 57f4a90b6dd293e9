"""Certified integrals of many integrands at once: piecewise Gauss–Legendre in ball arithmetic
with the Bernstein-ellipse error bound, every integrand evaluated at the same nodes.

The selection probabilities of a mechanism (``exact/selection/``) are ``n`` integrals over
one noise ``z`` whose integrands share all their work (one polynomial recursion over the
queries per node), so they are integrated together; the certified back-end
(``backends/certified.py``) integrates a single integrand, a vector of one.

1. ``[z_L, z_R]`` is cut at the given points (the kinks of every factor: each piece's integrand
   is entire, the analytic continuation of the formulas on that side of each kink); outside it
   the caller bounds the integrals rigorously (``tails``).
2. On a piece ``[m − h, m + h]``, for an ellipse parameter ``ρ`` from :data:`RHOS`, the largest
   modulus ``M_ρ`` of every integrand on the Bernstein ellipse ``E_ρ`` of the piece is bounded
   by the caller's ``bound`` on complex balls covering its boundary
   (:func:`~exactdp.exact.backends.gauss_legendre.ellipse_cover`; maximum modulus principle), and
   the
   ``N``-point rule's error is at most

       h · (64/15) · M_ρ · ρ^{2−2N} / (ρ² − 1)

   (:func:`~exactdp.exact.backends.gauss_legendre.error_bound`; Trefethen, *Approximation Theory and
   Approximation Practice*, SIAM 2013, Thm 19.3).  A larger ``ρ`` gains ``2·log10 ρ`` digits
   per node but ``M_ρ`` grows on the larger ellipse; every ``(ρ, N)`` whose bound fits the
   piece's share of the tolerance is rigorous, and the search (``node_planner.climb``) keeps
   the fewest nodes among the ellipses it bounds, starting from the previous piece's ``ρ``.  A
   piece needing more than :data:`MAX_ORDER` nodes on every ellipse tried (or whose ``M`` is
   not finite) is halved.
3. The result is, for each integrand, the rule's sum (a ball: rounding is tracked) plus the ball
   ``[−E, E]``, ``E`` the sum of the pieces' bounds and the tails: a certified enclosure.

The rule is searched in fixed groups of :data:`GROUP_PIECES` pieces between the cuts (each
group's search starting afresh), then its nodes are evaluated in :data:`NODE_PARTS` fixed parts
and the parts' sums added in order; with ``jobs`` both run in forked worker processes
(``exactdp.workers.forked_map``), and since the grouping is fixed the result is the same for any
number of workers.

At a node the caller may give only the leading integrands (:class:`Leading`) and one ball
holding all the others, when they are known to be negligible there: the rule then sums the
others' ball, once per node, instead of their values.  On a piece it may also leave the
integrands from some index on out of the rule altogether (``beyond``: they need not be analytic
there) and give one ball for their integrals over the piece.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Sequence

from flint import arb, ctx

from ...errors import PrecisionError
from ...precision import to_arb
from ...workers import forked_map, will_fork
from .gauss_legendre import ellipse_cover, legendre_rule
from .node_planner import climb

#: Bernstein ellipse parameters tried on each piece, in increasing order (each node gains
#: ``2·log10 ρ`` digits, but the integrand grows on the larger ellipse); those above
#: :data:`LARGEST_RHO` only on request.
RHOS = (Fraction(2), Fraction(4), Fraction(16), Fraction(64), Fraction(256), Fraction(1024),
        Fraction(4096))
#: The largest ellipse tried by default: larger ones pay only for integrands that barely grow
#: off the real line, and their covers are costly where the caller's bound is.
LARGEST_RHO = Fraction(256)
#: The ellipse tried first on the first piece (then each piece starts from the one before).
FIRST_RHO = Fraction(4)
#: Arcs of the complex balls covering the upper half of a piece's ellipse.
ARCS = 12
#: Largest number of nodes on one piece before it is halved instead.
MAX_ORDER = 64
#: Largest number of pieces (a guard against an integrand no subdivision tames), per group.
MAX_PIECES = 1_000_000
#: The units of work of parallel evaluation (:func:`integrate_vector`'s ``jobs``): groups of
#: pieces between consecutive cuts whose rules are searched together, and the number of parts
#: the nodes are evaluated in.  Fixed, so that the results do not depend on the number of
#: workers.
GROUP_PIECES = 16
NODE_PARTS = 32


@dataclass(frozen=True)
class Leading:
    """The integrands at one point, given by the first ones: ``f_i = values[i]`` for
    ``i < len(values)``, and every later ``f_i`` (``i < size``) lies in the ball ``rest``."""

    values: list
    rest: arb
    size: int


def integrate_vector(evaluate: Callable, bound: Callable, cuts: Sequence[Fraction], tails: arb,
                     tolerance: arb, progress=None, evaluation_cost: float = 1,
                     leading: bool = False, beyond: Callable | None = None,
                     largest_rho: Fraction = LARGEST_RHO, jobs: int = 1):
    """``∫_{z_L}^{z_R} f_i(z) dz + [−tails, tails]`` for every ``i``, as Arb balls, with absolute
    error at most about ``tolerance`` (module docstring).

    Parameters
    ----------
    evaluate : callable
        ``evaluate(z, middle)`` → the list of ``f_i(z)`` for a real ball ``z`` (``arb``) in the
        piece containing the exact point ``middle``, or their :class:`Leading` values.
    bound : callable
        ``bound(z, middle)`` → an upper bound (``arb``) on every ``|f_i(z)|`` for a complex ball
        ``z`` (``acb``), each ``f_i`` continued analytically from the piece containing
        ``middle``: an entire function (the ellipses may reach any distance from the piece).
    cuts : sequence of Fraction
        ``z_L``, the kinks between, ``z_R`` (increasing).
    tails : arb
        A bound on ``|∫ f_i|`` outside ``[z_L, z_R]`` for every ``i``.
    tolerance : arb
        The absolute error to aim at (the pieces share what the tails leave).
    progress : callable, optional
        Called with the number of finished pieces, to report progress (after each part of the
        nodes when they run in worker processes); before, while the rule is searched, with
        ``0`` and ``note``, a keyword saying how many pieces it has.
    evaluation_cost : float
        What one call of ``evaluate`` costs, in calls of ``bound``: a larger ellipse is tried
        when the nodes it may save cost more than its cover (:func:`_rule`).  It only steers
        the choice of rule; every choice is rigorous.
    leading : bool
        Return the integrals as :class:`Leading` (those that were ever among a node's leading
        values, then one ball for all the later ones) instead of a list of ``size`` balls.
    beyond : callable, optional
        ``beyond(a, b)`` → ``None``, or ``(j, ball)``: on the piece ``[a, b]`` the integrands
        from ``j`` on are not integrated (they need not be analytic there; ``evaluate`` gives at
        most ``j`` leading values) and their integrals lie in ``ball``.
    largest_rho : Fraction
        The largest ellipse parameter of :data:`RHOS` tried.
    jobs : int
        Worker processes forked to search the rule's groups of :data:`GROUP_PIECES` pieces,
        then to evaluate its nodes in :data:`NODE_PARTS` parts
        (:func:`~exactdp.workers.forked_map`: the callables need not pickle); the result does
        not depend on it.

    Raises
    ------
    PrecisionError
        If more than :data:`MAX_PIECES` pieces would be needed.
    """
    pieces = _all_pieces(bound, cuts, tolerance, evaluation_cost, largest_rho, jobs, progress)
    nodes = _weighted_nodes(pieces)
    step = -(-len(nodes) // NODE_PARTS)
    parts = [(k, min(k + step, len(nodes))) for k in range(0, len(nodes), step)]
    each_piece = progress is not None and not will_fork(jobs)  # else after each part
    finished, parent = 0, os.getpid()

    def sum_part(part: tuple) -> tuple:
        """The weighted sums of the nodes ``nodes[start:stop]``, ``(totals, rests, size)``
        (``rests``: the balls of the integrands a node left out, by the index they start at),
        as they cross from a worker process (:func:`_crossed`), wired if in one."""
        nonlocal finished
        totals, rests, size = [], {}, 0
        for k in range(*part):
            index, middle, node, weight = nodes[k]
            values = evaluate(node, middle)
            if isinstance(values, Leading):
                size = values.size
                if not values.rest.is_zero():
                    start = len(values.values)
                    rests[start] = rests.get(start, arb(0)) + weight * values.rest
                values = values.values
            else:
                size = len(values)
            totals = _padded_sum(totals, values, weight)
            if each_piece and (k + 1 == len(nodes) or nodes[k + 1][0] != index):
                finished += 1
                progress(finished)
        if os.getpid() == parent:
            return False, _crossed((totals, rests, size), _received)
        return True, _crossed((totals, rests, size), _ball_to_integers)

    totals, rests, size = [], {}, 0
    for part, (wired, sums) in zip(parts, forked_map(sum_part, parts, jobs)):
        part_totals, part_rests, part_size = _crossed(sums, _integers_to_ball) if wired else sums
        totals = _padded_sum(totals, part_totals, arb(1))
        for start, ball in part_rests.items():
            rests[start] = rests.get(start, arb(0)) + ball
        size = max(size, part_size)
        if progress is not None and not each_piece:
            last = part[1] == len(nodes)  # the pieces whose last node is in the parts done
            finished = len(pieces) if last else nodes[part[1]][0]
            progress(finished)
    errors = arb(0)
    for a, b, _, error in pieces:
        errors += error
        skipped = None if beyond is None else beyond(a, b)
        if skipped is not None:
            start, ball = skipped
            rests[start] = rests.get(start, arb(0)) + ball
    radius = arb(0, (errors + tails).upper())
    results, others = [], arb(0)  # others: the balls of the nodes and pieces that left f_i out
    for i in range(len(totals)):
        if i in rests:
            others += rests[i]
        results.append(totals[i] + others + radius)
    others = sum((rest for i, rest in rests.items() if i >= len(totals)), others)
    if leading:
        return Leading(results, others + radius, size)
    return results + [others + radius] * (size - len(totals))


def _all_pieces(bound: Callable, cuts: Sequence[Fraction], tolerance: arb,
                evaluation_cost: float, largest_rho: Fraction, jobs: int, progress) -> list:
    """Every piece of the rule, ``(a, b, order, error)`` (:func:`_pieces`), searched in groups
    of :data:`GROUP_PIECES` pieces between the cuts, in ``jobs`` worker processes; each piece
    with ``tolerance/(4·(len(cuts) − 1))``, halved with the piece.  ``progress``, if any, is
    called with ``0`` and a note after each group."""
    share = tolerance / (4 * max(1, len(cuts) - 1))
    groups = [cuts[k:k + GROUP_PIECES + 1] for k in range(0, len(cuts) - 1, GROUP_PIECES)]

    def search(group: Sequence[Fraction]) -> list:
        return [(a, b, order, _ball_to_integers(error))
                for a, b, order, error in _pieces(bound, group, share, evaluation_cost,
                                                  largest_rho)]

    pieces = []
    for found in forked_map(search, groups, jobs):
        pieces.extend((a, b, order, _integers_to_ball(error)) for a, b, order, error in found)
        if progress is not None:
            progress(0, note=f"pieces planned: {len(pieces)}")
    return pieces


def _crossed(sums: tuple, convert: Callable) -> tuple:
    """A part's sums ``(totals, rests, size)`` with ``convert`` applied to every ball: to pickle
    them in a worker process (Arb balls do not pickle; :func:`_ball_to_integers`), back in this
    one (:func:`_integers_to_ball`), or, for the sums of this process, the same rounding
    (:func:`_received`), so that the results do not depend on the number of workers."""
    totals, rests, size = sums
    return [convert(x) for x in totals], {k: convert(x) for k, x in rests.items()}, size


def _ball_to_integers(x: arb):
    """``((mantissa, exponent), (mantissa, exponent))`` of the ball's midpoint and radius
    (exact); ``None`` for a ball that is not finite."""
    if not x.is_finite():
        return None
    (mantissa, exponent), (radius, scale) = x.mid().man_exp(), x.rad().man_exp()
    return (int(mantissa), int(exponent)), (int(radius), int(scale))


def _integers_to_ball(integers) -> arb:
    """The ball :func:`_ball_to_integers` describes, as :func:`_received` gives it."""
    if integers is None:
        return arb("nan")
    middle, radius = integers
    return arb(arb(middle), arb(radius))


def _received(x: arb) -> arb:
    """The ball as it crosses from a worker process: the same midpoint, the radius rounded up
    (by at most a unit in the last place of Arb's 30-bit radius); NaN for one not finite."""
    return arb(x.mid(), x.rad()) if x.is_finite() else arb("nan")


def quadrature_rule(bound: Callable, cuts: Sequence[Fraction], tails: arb, tolerance: arb,
                    evaluation_cost: float = 1, largest_rho: Fraction = LARGEST_RHO,
                    progress=None, jobs: int = 1) -> tuple:
    """The rule :func:`integrate_vector` applies, for callers that combine the integrands' values
    at each node themselves: ``(nodes, error)``, ``nodes`` a list of ``(z, w, middle)`` (the node
    ``z``, a real ball; its weight ``w``, the piece's half-width included; ``middle`` the exact
    centre of its piece, for ``bound`` and the caller's formulas), such that

        |∫_{z_L}^{z_R} f(z) dz − Σ w·f(z)| ≤ error

    for every ``f`` analytic on the pieces with ``|f| ≤ bound`` there (``tails`` included, as
    :func:`integrate_vector` takes it), and ``error`` at most about ``tolerance``.  The
    parameters are those of :func:`integrate_vector` (the rule is the same, searched in ``jobs``
    worker processes); ``progress`` is called with ``0`` and a note on the pieces found so
    far."""
    pieces = _all_pieces(bound, cuts, tolerance, evaluation_cost, largest_rho, jobs, progress)
    errors = sum((error for _, _, _, error in pieces), tails)
    nodes = [(node, weight, middle) for _, middle, node, weight in _weighted_nodes(pieces)]
    return nodes, arb(errors.upper())


def _weighted_nodes(pieces: list) -> list:
    """``(index of the piece, its exact middle, node, weight with the half-width)`` for every
    node of the pieces ``(a, b, order, error)``."""
    nodes = []
    for index, (a, b, order, _) in enumerate(pieces):
        middle = (a + b) / 2
        middle_ball, half_ball = to_arb(middle), to_arb((b - a) / 2)
        nodes.extend((index, middle, middle_ball + half_ball * node, half_ball * weight)
                     for node, weight in legendre_rule(order, ctx.prec))
    return nodes


def _pieces(bound: Callable, cuts: Sequence[Fraction], share: arb, evaluation_cost: float,
            largest_rho: Fraction):
    """``(a, b, order, error)`` for each piece of the rule (module docstring, steps 1–2): the
    pieces between the ``cuts``, each halved until a rule of at most :data:`MAX_ORDER` nodes
    meets the piece's ``share`` of the tolerance (halved with the piece; ``error`` its bound),
    in no particular order."""
    pending = [(cuts[k], cuts[k + 1], share) for k in range(len(cuts) - 1)]
    start, previous, last = RHOS.index(FIRST_RHO), None, RHOS.index(largest_rho)
    finished = 0
    while pending:
        a, b, share = pending.pop()
        middle, half = (a + b) / 2, (b - a) / 2
        rule = _rule(bound, middle, to_arb(middle), to_arb(half), share, start, evaluation_cost,
                     previous, last)
        if rule is None:
            if finished + len(pending) > MAX_PIECES:
                raise PrecisionError("the selection integrals need more than "
                                     f"{MAX_PIECES} Gauss–Legendre pieces")
            pending.extend(((a, middle, share / 2), (middle, b, share / 2)))
            continue
        order, error, start = rule
        previous = order
        finished += 1
        yield a, b, order, error


def _padded_sum(total: list, values: list, factor: arb) -> list:
    """``total + factor·values`` elementwise, the shorter list taken as padded with zeros."""
    if len(total) >= len(values):
        return [x + factor * y for x, y in zip(total, values)] + total[len(values):]
    return ([x + factor * y for x, y in zip(total, values)]
            + [factor * y for y in values[len(total):]])


def _rule(bound: Callable, middle: Fraction, middle_ball: arb, half_ball: arb, share: arb,
          start: int, evaluation_cost: float = 1, previous: int | None = None,
          last: int = RHOS.index(LARGEST_RHO)):
    """``(order, error bound, index in RHOS)`` of the piece's rule, at most :data:`MAX_ORDER`
    nodes on an ellipse of :data:`RHOS` up to ``RHOS[last]``, starting from ``RHOS[start]``
    (``node_planner.climb``, a bound of ``M`` costing :data:`ARCS` calls of ``bound``), or
    ``None`` (the piece must be halved)."""
    return climb(lambda k: _modulus(bound, middle, middle_ball, half_ball, to_arb(RHOS[k])),
                 half_ball, share, RHOS, start, last, MAX_ORDER, ARCS, evaluation_cost,
                 previous)


def _modulus(bound: Callable, middle: Fraction, middle_ball: arb, half_ball: arb,
             rho: arb) -> arb | None:
    """An upper bound on the integrands' moduli on the ellipse ``E_ρ`` of the piece (``None``
    if not finite)."""
    modulus = arb(0)
    for ball in ellipse_cover(middle_ball, half_ball, rho, ARCS):
        size = bound(ball, middle)
        if not size.is_finite():
            return None
        modulus = max(modulus, arb(size.upper()))
    return modulus
