"""The pass probabilities of Sparse Vector's queries given its threshold noise, and the bounds
its certified quadrature needs on complex balls.

Given the threshold noise ``z``, query ``j`` (answer ``q_j``, query noise ``ν_j``, threshold
``T``) passes with ``S_j(z) = Pr[q_j + ν_j ≥ T + z]`` and fails with ``F_j(z) = 1 − S_j(z)``
(Lyu, Su & Li, "Understanding the Sparse Vector Technique for Differential Privacy", PVLDB
10(6), 2017, Eq. 5).  :class:`PassProbabilities` evaluates them once per distinct answer, on
the pieces between the kinks of the laws, and bounds every selection integrand on the complex
balls of the quadrature (``exact/backends/vector_quadrature.py``).
"""

from __future__ import annotations

import bisect
import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import acb, arb, arb_poly, ctx

from ...noise import Kind
from ...precision import to_arb
from ..backends.rounding_bounds import (LIFT_FLOOR, UNDERFLOW, factor_bound,
                                        relative_doubles)
from .generating import MAX_SERIES_TERMS, largest_modulus, log_generating_series, product_bound

#: The widest ball of ``r·z`` (radius, in each part) on which :meth:`PassProbabilities.bound`
#: uses its closed form: on wider ones it overestimates far more than the product per answer.
NARROW = 1 / 64
#: The range of the constants, powers and densities lifted into doubles by
#: :meth:`PassProbabilities.distinct_doubles`: a product of two stays normal.
DOUBLE_RANGE = (2.0 ** -500, 2.0 ** 500)


class PassProbabilities:
    """Given the threshold noise ``z`` of a Sparse Vector: its density, and for each query
    ``S_j(z) = Pr[q_j + ν_j ≥ T + z]`` and ``F_j(z) = 1 − S_j(z)``, on the piece (between the
    kinks in ``cuts``) containing a given exact point, in balls; the laws are evaluated once per
    distinct answer."""

    def __init__(self, hub, noise, threshold: Fraction, values: list, tolerance: arb):
        self.hub, self.noise, self.threshold = hub, noise, threshold
        self.distinct = sorted(set(values))
        self.positions, self.counts = answer_positions(values, self.distinct)
        self.shifts = [to_arb(threshold - q) for q in self.distinct]
        # pass iff ν_j ≥ T + z − q_j: the kinks of ν's functions at z = q_j − T + kink
        kinks = {q - threshold + k for q in self.distinct for k in noise.kink_points()}
        kinks.update(hub.kink_points())
        low, high, self.tails = hub_range(hub, tolerance)
        self.cuts = sorted({low, high} | {k for k in kinks if low < k < high})
        self.functions = functools.lru_cache(maxsize=4)(self._functions)
        self._constants, self._sums = {}, {}

    def _functions(self, middle: Fraction):
        density = self.hub.ball_log(Kind.PDF, self.hub.side(middle)).value
        # the side is −1 from the first answer whose point lies left of the kink on (the
        # points T + middle − q decrease along the sorted answers)
        left = bisect.bisect_left(range(len(self.distinct)), True, key=lambda k: self.noise.side(
            self.threshold + middle - self.distinct[k]) < 0)
        sides = [1] * left + [-1] * (len(self.distinct) - left)
        if self.noise.closed_form:  # S = a·e^{r(z + shift)}, or 1 − that: one exp per side
            pieces = {side: self.noise.piece(Kind.SF, side) for side in set(sides)}
            return density, [(side, self._constant(side, k), pieces[side].one_minus)
                             for k, side in enumerate(sides)], pieces, left
        functions = {side: (self.noise.ball_log(Kind.SF, side).value,
                            self.noise.ball_log(Kind.CDF, side).value) for side in (-1, 1)}
        return density, [functions[side] for side in sides], None, left

    def _constant(self, side: int, k: int) -> arb:
        """``a·e^{r·shift_k}`` of the survival function's piece on ``side`` (cached)."""
        key = (side, k, ctx.prec)
        if key not in self._constants:
            piece = self.noise.piece(Kind.SF, side)
            self._constants[key] = (to_arb(piece.coefficient)
                                    * (to_arb(piece.rate) * self.shifts[k]).exp())
        return self._constants[key]

    def _power_sum(self, side: int, m: int, left: int) -> arb:
        """``Σ_k n_k a_k^m`` over the answers on ``side`` of the kink (``n_k`` queries have the
        answer ``k``, ``a_k`` its constant there, :meth:`_constant`): the answers before ``left``
        for side 1, from ``left`` on for side −1, each a running sum from the far end (no sum
        taken off another); cached per precision."""
        tables = self._sums.setdefault((side, ctx.prec), [])  # tables[m][left]
        while len(tables) <= m:
            power, running, table = len(tables), arb(0), [arb(0)]
            answers = range(len(self.counts))
            for k in answers if side == 1 else reversed(answers):
                running += self.counts[k] * self._constant(side, k) ** power
                table.append(running)
            tables.append(table if side == 1 else table[::-1])
        return tables[m][left]

    def distinct_values(self, z, middle: Fraction) -> tuple:
        """``(p_ρ(z), [S for each distinct answer], [F for each distinct answer])``."""
        density, per_query, pieces, _ = self.functions(middle)
        if pieces is not None:
            powers = {side: (to_arb(piece.rate) * z).exp() for side, piece in pieces.items()}
            terms = [(a * powers[side], one_minus) for side, a, one_minus in per_query]
            # each of S and F is a·e^{rz} or 1 minus that: the former keeps its relative
            # accuracy however small it is
            return (density(z), [1 - t if one_minus else t for t, one_minus in terms],
                    [t if one_minus else 1 - t for t, one_minus in terms])
        points = [z + shift for shift in self.shifts]
        return (density(z), [sf(x) for (sf, _), x in zip(per_query, points)],
                [cdf(x) for (_, cdf), x in zip(per_query, points)])

    def distinct_doubles(self, nodes: list) -> tuple | None:
        """``w_ν p_ρ(z_ν) S`` and ``F`` of every distinct answer at every node ``(z, w, middle)``
        of ``nodes``, as doubles with one relative error, from the closed forms
        (:meth:`pass_fail_doubles`, ``w p_ρ S`` one product more); ``None`` where those are.

        Returns
        -------
        tuple or None
            ``(passing, failing, ε, dropped, largest)`` as
            :func:`~exactdp.exact.backends.rounding_bounds.relative_doubles` gives them: rows
            per answer, columns per node; ``passing`` below ``2^{−500}`` taken as 0.
        """
        lifted = self.pass_fail_doubles(nodes)
        if lifted is None:
            return None
        scale, passes, fails, scale_error, pass_error = lifted
        passing = scale * passes
        error = (1 + factor_bound(1, 1, scale_error)) * (1 + pass_error) - 1
        small = passing < LIFT_FLOOR
        dropped = (arb(float(passing[small].max())) + UNDERFLOW) * (1 + error) if small.any() \
            else arb(0)
        largest = arb(float(passing.max())) * (1 + error)
        return np.where(small, 0.0, passing), fails, arb(error.upper()), dropped, largest

    def pass_fail_doubles(self, nodes: list) -> tuple | None:
        """``w_ν p_ρ(z_ν)`` of every node ``(z, w, middle)`` of ``nodes``, and ``S`` and ``F`` of
        every distinct answer there, as doubles, from the closed forms; ``None`` without closed
        forms, or where a double would leave the range the bound covers.

        On each side of the kink ``S`` is ``t = a_k w`` or ``1 − t``, ``w = e^{rz}``: ``a_k``,
        ``w`` and ``w_ν p_ρ(z_ν)`` are Arb balls lifted into doubles within ``ε_0``
        (:func:`~exactdp.exact.backends.rounding_bounds.relative_doubles`; the ``a_k`` once per
        precision), each between ``2^{−500}`` and ``2^{500}`` so that no product of two
        underflows; ``t`` is one product, within ``ε_t = (1 + ε_0)²(1 + u') − 1`` and at most
        1/2 (else ``None``); ``1 − t`` is one subtraction, within ``(1 + ε_t)(1 + u') − 1``
        (the error ``ε_t t`` of ``t`` is at most ``ε_t(1 − t)``; docs/mathematics.md §12.5).

        Returns
        -------
        tuple or None
            ``(scales, passes, fails, ε_scale, ε)``: the ``w p_ρ`` (a row over the nodes) within
            the relative error ``ε_scale``, ``S`` and ``F`` (rows per answer, columns per node)
            within ``ε``.
        """
        if not self.noise.closed_form:
            return None
        sides = (1, -1)
        pieces = {side: self.noise.piece(Kind.SF, side) for side in sides}
        constants, constant_error = self._lifted_constants()
        scales, powers, lefts = [], {side: [] for side in sides}, []
        for z, weight, middle in nodes:
            density, _, _, left = self.functions(middle)
            scales.append(weight * density(z))
            for side in sides:
                powers[side].append((to_arb(pieces[side].rate) * z).exp())
            lefts.append(left)
        scale, scale_error, _, _ = relative_doubles([scales])
        exponentials, power_error, _, _ = relative_doubles([powers[side] for side in sides])
        lifted = np.concatenate((constants.ravel(), scale.ravel(), exponentials.ravel()))
        if not (lifted >= DOUBLE_RANGE[0]).all() or not (lifted <= DOUBLE_RANGE[1]).all():
            return None
        # side 1 for the answers before each node's `left`, side −1 from it
        on_right = np.arange(len(self.distinct))[:, None] < np.array(lefts)[None, :]
        products = np.where(on_right, np.outer(constants[0], exponentials[0]),
                            np.outer(constants[1], exponentials[1]))
        one_minus = np.where(on_right, pieces[1].one_minus, pieces[-1].one_minus)
        lift_error = max(constant_error, power_error)
        product_error = factor_bound(1, 2, lift_error)
        if not (products * (1 + float(product_error.upper())) <= 0.5).all():
            return None
        complement = 1.0 - products
        passes = np.where(one_minus, complement, products)
        fails = np.where(one_minus, products, complement)
        return scale, passes, fails, scale_error, factor_bound(1, 1, product_error)

    def _lifted_constants(self) -> tuple:
        """The constants ``a_k`` of both sides (:meth:`_constant`) as doubles, and their relative
        error (:func:`~exactdp.exact.backends.rounding_bounds.relative_doubles`), once per
        precision."""
        key = ("lifted", ctx.prec)
        if key not in self._constants:
            lifted = relative_doubles([[self._constant(side, k) for k in range(len(self.distinct))]
                                       for side in (1, -1)])
            self._constants[key] = lifted[:2]
        return self._constants[key]

    def __call__(self, z, middle: Fraction) -> tuple:
        """``(p_ρ(z), [S_j], [F_j])`` for every query ``j`` in order."""
        density, passes, fails = self.distinct_values(z, middle)
        return (density, [passes[k] for k in self.positions],
                [fails[k] for k in self.positions])

    def log_generating(self, z, middle: Fraction, passes: list, reach: arb, budget: arb):
        """:func:`log_generating_series` at a real ``z`` (``passes`` the distinct answers' ``S``
        there), from closed forms in ``O(M)`` operations instead of ``O(M·d)``: ``(L, E)``, ``L`` a
        function with ``|log G(1 − s) − L(s)| ≤ E`` for every real ``|s| ≤ reach``,
        ``G(t) = Π_j (F_j + S_j t)``; ``None`` where the series below would need more than
        :data:`MAX_SERIES_TERMS` terms, or converge too slowly.  Without closed forms it is
        :func:`log_generating_series` itself.

        With ``w = e^{rz}`` on each side of the kink and ``A_m = Σ_k n_k a_k^m`` over the answers
        there (:meth:`_power_sum`), where ``S_k = a_k w``

            Σ_k n_k log(1 − S_k s) = −Σ_m A_m (ws)^m/m,

        and where ``S_k = 1 − a_k w``, with ``v = ws/(1 − s)``,

            Σ_k n_k log(1 − S_k s) = A_0 log(1 − s) + Σ_m (−1)^{m+1} A_m v^m/m;

        since ``A_{m+j} ≤ a^j A_m`` (``a = max a_k``) the terms after ``M`` are at most
        ``A_M x^M·q/((M + 1)(1 − q))``, ``x`` the largest ``|ws|`` or ``|v|`` and ``q = a·x``,
        which must be at most 1/2.  Each side's series stops there within ``budget/2``."""
        _, _, pieces, left = self.functions(middle)
        if pieces is None:
            return log_generating_series(passes, self.counts, reach, budget)
        parts, rest = [], arb(0)
        for side, _, top in self._occupied_sides(left):
            piece = pieces[side]
            w = (to_arb(piece.rate) * z).exp()
            largest = w * reach / (1 - reach) if piece.one_minus else w * reach
            ratio = largest * top
            if not ratio <= arb(1) / 2:
                return None
            coefficients = [arb(0)]
            for m in range(1, MAX_SERIES_TERMS + 1):
                total = self._power_sum(side, m, left)
                coefficients.append((1 if piece.one_minus and m % 2 else -1) * total / m)
                remainder = total * largest ** m * ratio / ((m + 1) * (1 - ratio))
                if remainder <= budget / 2:
                    break
            else:
                return None
            parts.append((piece.one_minus, w, arb_poly(coefficients),
                          self._power_sum(side, 0, left)))
            rest += arb(remainder.upper())

        def logarithm(s):
            """``L(s)``."""
            total = arb(0)
            for one_minus, w, series, count in parts:
                total += (count * (1 - s).log() + series(w * s / (1 - s)) if one_minus
                          else series(w * s))
            return total

        return logarithm, rest

    def hub_mass(self, a: Fraction, b: Fraction) -> arb:
        """``Pr[a ≤ ρ ≤ b]`` of the threshold noise, in balls, for ``a < b`` on one side of
        its kink."""
        cdf = self.hub.ball_log(Kind.CDF, self.hub.side((a + b) / 2)).value
        return cdf(to_arb(b)) - cdf(to_arb(a))

    def bound(self, z, middle: Fraction, cutoff: int | None = None,
              without_pass: bool = False) -> arb:
        """An upper bound on the modulus of every selection integrand on a complex ball:
        ``|p_ρ(z)|·max_j |S_j|·Π_j(|F_j| + |S_j|)`` (:func:`product_bound`), or given the
        ``cutoff`` ``c``, on every integrand of the given order,
        ``|p_ρ(z) S_i(z) Σ_{m<c} [x^m] Π_{j<i}(F_j + S_j x)|``, which may be far smaller.
        With ``without_pass`` the factor ``max_j |S_j|`` becomes ``max(1, max_j |S_j|)``: the
        bound then holds for ``p_ρ(z)·Π_{j∈J} F_j(z)`` too, for every set ``J`` of queries.

        With closed forms it costs ``O(1)``: on each side of the kink every answer's ``S`` or
        ``F`` is ``a_k w``, ``w = e^{r z}``, the other ``1 − a_k w``, and for ``1 − a·Re w > 0``

            |1 − a w| + |a w| ≤ 1 + a(|w| − Re w) + a²(Im w)²/(2(1 − a·Re w))

        (``√(u² + v²) ≤ u + v²/(2u)``), so with ``log(1 + x) ≤ x`` the product is at most
        ``exp(Σ_sides (|w| − Re w)·Σ n_k a_k + (Im w)²·Σ n_k a_k²/(2(1 − max a_k·|w|)))``, the
        sums running sums over the sorted answers (:meth:`_power_sum`); ``max_j |S_j|`` is at
        most ``max a_k·|w|``, or for ``S = 1 − a_k w`` the same bound at the least ``a_k``
        (``|arg w| < π/2``), ``a_k`` monotone along the answers (extreme at the ends).

        Given ``c``: by Cauchy's estimate on ``|x| = r < 1``, ``|[x^m]G_i| ≤ r^{−m} Π_{j<i} β_j``,
        ``β_j = |F_j| + r|S_j|``, so the sum is at most ``K·Π_{j<i} β_j``, ``K = r^{1−c}/(1 − r)``,
        and also at most ``Π_{j<i} α_j``, ``α_j = |F_j| + |S_j| ≥ 1``.  If every answer has
        ``−log β_j ≥ κ·e_j`` with ``e_j ≥ log α_j`` and ``κ > 0``, then with ``σ = Σ_{j<i} e_j``
        the sum is at most ``exp(min(σ, log K − κσ)) ≤ exp(log K/(1 + κ))`` for every ``i``.
        With ``e(a) = a(|w| − Re w) + a²s``, ``s = (Im w)²/(2(1 − a·Re w))``, as above,
        ``−log β ≥ a(Re w − r|w|) − a²s`` where ``S = a w`` and
        ``−log β ≥ −log(r + a(|w| − r·Re w) + r a² s)`` where ``S = 1 − a w``; both ratios fall
        as ``a`` grows, so ``κ`` is their least at each side's largest ``a``.  The least exponent
        over the radii :data:`CAUCHY_RADII` is kept when below the product's: about
        ``1.1·c·(1 − cos arg w)`` instead of ``μ·(1 − cos arg w)``, ``μ`` the expected number of
        passing queries.

        Tight at a point, the closed form is evaluated on the ball as a whole; where the ball
        spans more than :data:`NARROW` of ``rz`` the product answer by answer is taken too and
        the smaller kept; where ``a·|w| ≥ 1`` or ``|arg w| > 3/2`` the product alone."""
        floor = arb(1) if without_pass else arb(0)  # the least factor taken for max_j |S_j|
        closed = self._closed_form_bound(acb(z), middle, cutoff, floor)
        if closed is not None and closed[1]:
            return closed[0]
        density, passes, fails = self.distinct_values(z, middle)
        generic = (abs(density) * max(largest_modulus(passes), floor)
                   * product_bound(passes, fails, self.counts))
        if closed is None or (generic.is_finite() and generic.upper() <= closed[0].upper()):
            return generic
        return closed[0]

    def _closed_form_bound(self, z: acb, middle: Fraction, cutoff: int | None, floor: arb):
        """``(bound, narrow)``: :meth:`bound` from closed forms (``max_j |S_j|`` taken at least
        ``floor``), and whether the ball is narrow enough for it to be tight (:data:`NARROW`);
        ``None`` without closed forms or where they do not apply (:meth:`_sides_on_ball`)."""
        sides = self._sides_on_ball(z, middle)
        if sides is None:
            return None
        density, _, _, left = self.functions(middle)
        excess, narrow = arb(0), all(side.narrow for side in sides)
        ratios = [math.inf] * len(CAUCHY_RADII)
        for side in sides:
            top, modulus, cosine, spread = side.top, side.modulus, side.cosine, side.spread
            wobble = 2 * modulus * (side.angle / 2).sin() ** 2  # |w| − Re w
            excess += (wobble * self._power_sum(side.side, 1, left)
                       + spread * self._power_sum(side.side, 2, left))
            if cutoff is not None:
                cost = top * (wobble + top * spread)
                for k, radius in enumerate(CAUCHY_RADII):
                    if side.one_minus:
                        gain = -(radius + top * modulus * (1 - radius * cosine)
                                 + radius * top ** 2 * spread).log()
                    else:
                        gain = top * (modulus * (cosine - radius) - top * spread)
                    ratios[k] = min(ratios[k], _least_ratio(gain, cost))
        if cutoff is not None:
            excess = min([excess] + [_few_before_exponent(cutoff, radius, ratio)
                                     for radius, ratio in zip(CAUCHY_RADII, ratios)
                                     if ratio > 0])
        return abs(density(z)) * max(_largest_passing(sides), floor) * excess.exp(), narrow

    def reciprocal_bound(self, z, middle: Fraction) -> arb:
        """An upper bound on ``|p_ρ(z) S_k(z) ∫_0^1 Π_{j≠k}(F_j + S_j t) dt|`` for every answer
        ``k`` on a complex ball (the random order's integrand where the first sum is left out,
        :func:`~exactdp.exact.selection.random_order.random_order_probabilities`, divided by
        ``c``).

        With ``u = 1 − t`` every factor is ``1 − S_j u``: where ``S = 1 − aw`` it is
        ``(1 − u) + a u w``, of modulus at most ``1 − u(1 − a|w|)``; where ``S = aw``,
        ``|1 − a u w| ≤ 1 − a u Re w + u² a² (Im w)²/(2(1 − a|w|))``
        (:meth:`bound`).  With ``log(1 + x) ≤ x`` the product is at most ``e^{−uL + u²Q}``,
        ``L = Re w·Σ_A n a + Σ_B n(1 − a|w|)``, ``Q = (Im w)² Σ_A n a²/(2(1 − max a·|w|))``,
        and leaving one factor out adds at most ``u`` to the exponent (each ``L`` term is at most
        1), so the integral is at most ``∫_0^1 e^{−ux} du``, ``x = L − 1 − Q``: ``min(1, 1/x)``
        for ``x > 0``, else ``e^{−x}``.  Where many queries pass that is about ``1/μ``, while
        the product of :meth:`bound` grows as ``e^{μ(1 − cos θ)}`` off the real line.  Without
        closed forms (or where they do not apply) it is :meth:`bound`."""
        z = acb(z)
        sides = self._sides_on_ball(z, middle)
        if sides is None:
            return self.bound(z, middle)
        density, _, _, left = self.functions(middle)
        decay, growth = arb(-1), arb(0)  # x = L − 1 − Q
        for side in sides:
            if side.one_minus:
                decay += (self._power_sum(side.side, 0, left)
                          - side.modulus * self._power_sum(side.side, 1, left))
            else:
                decay += side.modulus * side.cosine * self._power_sum(side.side, 1, left)
                growth += side.spread * self._power_sum(side.side, 2, left)
        decay -= growth
        integral = arb(1) / decay if decay > 1 else (-decay).exp() if not decay > 0 else arb(1)
        return abs(density(z)) * _largest_passing(sides) * integral

    def _sides_on_ball(self, z: acb, middle: Fraction):
        """For each side of the kink holding answers, on the complex ball ``z``: the pieces of
        the closed-form bounds (:class:`_SideOnBall`); ``None`` without closed forms, or where
        ``a·|w| ≥ 1`` or ``|arg w| > 3/2`` for some answer."""
        _, _, pieces, left = self.functions(middle)
        if pieces is None:
            return None
        sides = []
        for side, least, top in self._occupied_sides(left):
            # w = e^{rz} = |w|e^{iθ}, in real balls (|w| − Re w = 2|w| sin²(θ/2) keeps its
            # smallness on a wide ball, where |w| and Re w apart would not)
            exponent = to_arb(pieces[side].rate) * z
            modulus, angle = exponent.real.exp(), exponent.imag
            room = 1 - top * modulus
            if not (room > 0 and abs(angle) <= arb(3) / 2):
                return None
            sides.append(_SideOnBall(
                side, pieces[side].one_minus, top, least, modulus, angle, angle.cos(),
                (modulus * angle.sin()) ** 2 / (2 * room),
                max(exponent.real.rad(), angle.rad()) <= NARROW))
        return sides

    def _occupied_sides(self, left: int) -> list:
        """``(side, least a_k, largest a_k)`` for each side of the kink holding answers (side 1
        the answers before ``left``, side −1 the others; :meth:`_constant`), the constants
        monotone along the sorted answers, so extreme at the side's ends."""
        occupied = []
        for side, start, stop in ((1, 0, left), (-1, left, len(self.counts))):
            if start < stop:
                ends = [self._constant(side, k) for k in (start, stop - 1)]
                occupied.append((side, min(arb(a.lower()) for a in ends),
                                 max(arb(a.upper()) for a in ends)))
        return occupied


@dataclass(frozen=True)
class _SideOnBall:
    """One side of the query noise's kink on a complex ball of ``z``, for the closed-form
    bounds: its answers' constants ``a_k`` lie in ``[least, top]``, ``w = e^{rz}`` has modulus
    ``modulus`` and argument ``angle`` (balls), and ``spread = (Im w)²/(2(1 − top·|w|))``."""

    side: int
    one_minus: bool
    top: arb
    least: arb
    modulus: arb
    angle: arb
    cosine: arb
    spread: arb
    narrow: bool


def _largest_passing(sides: list) -> arb:
    """An upper bound on every ``|S_j|`` from the sides on a ball: ``a·|w|`` where ``S = aw``;
    where ``S = 1 − aw``, ``|1 − aw| ≤ 1 − a·Re w + a²(Im w)²/(2(1 − a·Re w))`` at the least
    ``a`` (:meth:`PassProbabilities.bound`)."""
    largest = arb(0)
    for side in sides:
        if side.one_minus:
            passing = 1 - side.least * side.modulus * side.cosine + side.top ** 2 * side.spread
        else:
            passing = side.top * side.modulus
        largest = max(largest, arb(passing.upper()))
    return largest


#: Radii ``r < 1`` of the circles ``|x| = r`` tried in :meth:`PassProbabilities.bound`'s
#: bound on the given order's integrands (Cauchy's estimate of the first ``c`` coefficients).
CAUCHY_RADII = (arb(1) / 2, arb(3) / 4, arb(7) / 8)


def _least_ratio(gain: arb, cost: arb) -> float:
    """A lower bound on ``gain/cost`` for ``cost ≥ 0`` (``inf`` where ``cost`` is 0 and ``gain``
    positive; ``−1`` where ``gain`` may be ``≤ 0``)."""
    if not gain > 0:
        return -1.0
    if not cost.upper() > 0:
        return math.inf
    # the nearest float, one step down: no larger than the bound
    return math.nextafter(float((arb(gain.lower()) / arb(cost.upper())).lower()), -math.inf)


def _few_before_exponent(c: int, radius: arb, ratio: float) -> arb:
    """``log K/(1 + κ)``, ``K = r^{1−c}/(1 − r)``: the exponent of the given order's bound
    (:meth:`PassProbabilities.bound`) for the circle of radius ``r`` and the least ratio ``κ``."""
    logarithm = (c - 1) * (1 / radius).log() - (1 - radius).log()
    return logarithm / (1 + arb(ratio)) if math.isfinite(ratio) else arb(0)


def answer_positions(values: list, distinct: list) -> tuple:
    """The index in ``distinct`` of each value, and how often each distinct value occurs."""
    index = {q: k for k, q in enumerate(distinct)}
    positions = [index[q] for q in values]
    counts = [0] * len(distinct)
    for k in positions:
        counts[k] += 1
    return positions, counts


def hub_range(law, tolerance: arb):
    """``(z_L, z_R, tail)``: exact points outside which the law has mass at most ``tail``
    (below a quarter of ``tolerance``); every integrand is at most the law's density."""
    target = tolerance / 8
    ends = []
    for kind, direction in ((Kind.CDF, -1), (Kind.SF, 1)):
        width = Fraction(law.scale)
        while True:
            point = law.median * law.scale + direction * width
            mass = law.ball_log(kind, law.side(point)).value(to_arb(point))
            if mass < target:
                ends.append((point, arb(mass.upper())))
                break
            width *= 2
    return ends[0][0], ends[1][0], ends[0][1] + ends[1][1]
