"""Exact expected utility of selection mechanisms: the probability that each query is selected,
and from it the expected false negative rate and score error rate.

Lyu, Su & Li, "Understanding the Sparse Vector Technique for Differential Privacy", PVLDB 10(6),
2017 (arXiv:1603.01699), §4–6, compare Sparse Vector variants and the exponential mechanism by
the false negative rate (the fraction of the true top ``c`` missed) and the score error rate.
Both are linear in the selection indicators, so their expectations are

    E[FNR] = 1 − Σ_{i ∈ top c} P_i / c,        E[SER] = 1 − Σ_i P_i q_i / Σ_{i ∈ top c} q_i,

with ``P_i = Pr[query i is selected]`` and the top ``c`` the ``c`` largest answers (ties: the
lower index first).  Each ``P_i`` is one integral over one noise of a product of independent
pass probabilities, summed by a truncated generating polynomial (docs/mathematics.md, "Selection
probabilities"):

* Sparse Vector with ⊤/⊥ outputs and a cutoff ``c`` (threshold noise ``z`` drawn once):
  ``P_i = ∫ p_ρ(z) S_i(z) Pr[fewer than c of the queries before i pass | z] dz``, with
  ``S_j(z) = Pr[q_j + ν_j ≥ T + z]``; in a uniformly random order the last factor becomes
  ``Σ_m Pr[m of the others pass | z]·min(1, c/(m + 1))``; with the threshold redrawn after
  each ⊤ (Lyu Alg. 2, given order) the integrals are the probabilities of the next ⊤ from each
  position, chained;
* Sparse Vector with retraversal (``svt_retraversal``, given order): a sum over traversals, the
  dropped ones bounded;
* the exponential mechanism run ``c`` times without replacement (``em_top``): the top ``c`` of
  ``q_i + Gumbel(β)`` (McSherry & Talwar 2007; Durfee & Rogers, NeurIPS 2019, "Practical
  differentially private top-k selection with pay-what-you-get composition", §3), so
  ``P_i = ∫ g_β(x − q_i) Pr[fewer than c others exceed x] dx``.

The integrals are certified (``exact/vector_quadrature.py``): each ``P_i`` is an Arb ball.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, arb_poly, ctx

from .errors import InputError, PrecisionError
from .mechanisms.base import OutputKind
from .mechanisms.description import ThresholdMechanism
from .mechanisms.selection import ExponentialTopMechanism, RetraversalMechanism
from .noise import Kind
from .precision import check_dps, to_arb
from .sequences import as_queries
from .exact.gauss_legendre import error_bound, legendre_rule
from .exact.vector_quadrature import integrate_vector

ORDERS = ("given", "random")
#: Most traversals of Sparse Vector with retraversal modelled exactly.
MAX_TRAVERSALS = 2_000


@dataclass(frozen=True)
class Utility:
    """Selection probabilities and expected utility of one mechanism on one query vector.

    Attributes
    ----------
    selection : list of arb
        ``P_i``, certified enclosures.
    fnr, ser : arb or None
        ``E[FNR]`` and ``E[SER]`` (``ser`` is ``None`` when ``Σ_{top c} q_i ≤ 0``).
    top : tuple of int
        The indices of the true top ``c``.
    """

    selection: list
    fnr: arb
    ser: arb | None
    top: tuple


def _cutoff_of(mech) -> int:
    if isinstance(mech, (ExponentialTopMechanism, RetraversalMechanism)):
        return mech.c
    if not isinstance(mech, ThresholdMechanism) or mech.cutoff is None:
        raise InputError(f"utility needs a selection mechanism with a cutoff c (a ⊤/⊥ Sparse "
                         f"Vector variant, em_top or svt_retraversal), got {mech.name}")
    if mech.output_kind is not OutputKind.FLAGS:
        raise InputError(f"utility needs ⊤/⊥ outputs, but {mech.name} releases numbers")
    if mech.query_noise.is_point_mass:
        raise InputError(f"utility needs query noise, but {mech.name} has none")
    return mech.cutoff


def _checked(mech, queries, order):
    if order not in ORDERS:
        raise InputError(f"order must be given or random, got {order!r}")
    values = as_queries(queries).expand()
    c = _cutoff_of(mech)
    if c > len(values):
        raise InputError(f"the cutoff c={c} exceeds the number of queries ({len(values)})")
    if order == "random" and isinstance(mech, ExponentialTopMechanism):
        order = "given"  # the exponential mechanism does not depend on the order
    if order == "random" and isinstance(mech, RetraversalMechanism):
        raise InputError("Sparse Vector with retraversal is modelled in the given order only")
    if order == "random" and getattr(mech, "redraw_threshold", False):
        raise InputError(f"{mech.name} redraws its threshold after each ⊤: it is modelled in the "
                         f"given order only")
    return values, c, order


def selection_probabilities(mech, queries, order: str = "given", dps: int = 15,
                            progress=None) -> list:
    """``P_i = Pr[query i is selected]`` for each query, as Arb balls with absolute radius about
    ``10^{−dps}`` (module docstring).

    Parameters
    ----------
    mech : ThresholdMechanism, ExponentialTopMechanism or RetraversalMechanism
        A ⊤/⊥ Sparse Vector variant with a cutoff, ``em_top`` or ``svt_retraversal``.
    queries : str or sequence of numbers
        The query answers ``q_i``.
    order : {"given", "random"}
        Queries examined in the given order, or in a uniformly random one (the probability
        averaged over every order; ``em_top`` does not depend on it, ``svt2`` and
        ``svt_retraversal`` are modelled in the given order only).
    dps : int
        Decimal digits of absolute accuracy aimed at.
    progress : callable, optional
        Called with the number of finished quadrature pieces.

    Raises
    ------
    InputError
        For a mechanism without a cutoff, with released numbers or without query noise, a
        cutoff above the number of queries, or an unknown order.
    PrecisionError
        When ``svt_retraversal`` would need more than :data:`MAX_TRAVERSALS` traversals.

    Examples
    --------
    >>> from exactdp import mechanism
    >>> p = selection_probabilities(mechanism("svt1", eps=1, c=1), [3, 0], dps=10)
    >>> p[0] > p[1] > 0
    True
    """
    dps = check_dps(dps)
    values, c, order = _checked(mech, queries, order)
    bits = int((dps + 8) * math.log2(10)) + 2 * len(values).bit_length() + 20
    with ctx.workprec(bits):
        tolerance = arb(10) ** (-(dps + 1))
        if isinstance(mech, ExponentialTopMechanism):
            return _exponential_top(mech, values, c, tolerance, progress)
        if isinstance(mech, RetraversalMechanism):
            return _retraversal(mech, values, c, tolerance, progress)
        if mech.redraw_threshold:
            return _redrawn_threshold(mech, values, c, tolerance, progress)
        return _sparse_vector(mech, values, c, order, tolerance, progress)


def expected_utility(mech, queries, order: str = "given", dps: int = 15,
                     progress=None) -> Utility:
    """The selection probabilities and ``E[FNR]``, ``E[SER]`` (module docstring).

    Examples
    --------
    >>> from exactdp import mechanism
    >>> u = expected_utility(mechanism("em_top", eps=1, c=1), [2, 0, 0], dps=10)
    >>> bool(0 < u.fnr < 1), u.top
    (True, (0,))
    """
    values, c, _ = _checked(mech, queries, order)
    selection = selection_probabilities(mech, queries, order, dps, progress)
    bits = int((dps + 8) * math.log2(10)) + 20
    with ctx.workprec(bits):
        top = tuple(sorted(sorted(range(len(values)), key=lambda i: (-values[i], i))[:c]))
        fnr = 1 - sum((selection[i] for i in top), arb(0)) / c
        best = sum((values[i] for i in top), Fraction(0))
        ser = None
        if best > 0:
            gained = sum((p * to_arb(q) for p, q in zip(selection, values)), arb(0))
            ser = 1 - gained / to_arb(best)
    return Utility(selection, fnr, ser, top)


# --- Sparse Vector: one threshold noise z ------------------------------------------------------

class _PassProbabilities:
    """Given the threshold noise ``z`` of a Sparse Vector: its density, and for each query
    ``S_j(z) = Pr[q_j + ν_j ≥ T + z]`` and ``F_j(z) = 1 − S_j(z)``, on the piece (between the
    kinks in ``cuts``) containing a given exact point, in balls; the laws are evaluated once per
    distinct answer."""

    def __init__(self, hub, noise, threshold: Fraction, values: list, tolerance: arb):
        self.hub, self.noise, self.threshold = hub, noise, threshold
        self.distinct = sorted(set(values))
        self.positions, self.counts = _positions(values, self.distinct)
        self.shifts = [to_arb(threshold - q) for q in self.distinct]
        # pass iff ν_j ≥ T + z − q_j: the kinks of ν's functions at z = q_j − T + kink
        kinks = {q - threshold + k for q in self.distinct for k in noise.kink_points()}
        kinks.update(hub.kink_points())
        low, high, self.tails = _hub_range(hub, tolerance)
        self.cuts = sorted({low, high} | {k for k in kinks if low < k < high})
        self.functions = functools.lru_cache(maxsize=4)(self._functions)
        self._constants = {}

    def _functions(self, middle: Fraction):
        density = self.hub.ball_log(Kind.PDF, self.hub.side(middle)).value
        sides = [self.noise.side(self.threshold + middle - q) for q in self.distinct]
        if self.noise.closed_form:  # S = a·e^{r(z + shift)}, or 1 − that: one exp per side
            pieces = {side: self.noise.piece(Kind.SF, side) for side in set(sides)}
            return density, [(side, self._constant(side, k), pieces[side].one_minus)
                             for k, side in enumerate(sides)], pieces
        functions = {side: (self.noise.ball_log(Kind.SF, side).value,
                            self.noise.ball_log(Kind.CDF, side).value) for side in (-1, 1)}
        return density, [functions[side] for side in sides], None

    def _constant(self, side: int, k: int) -> arb:
        """``a·e^{r·shift_k}`` of the survival function's piece on ``side`` (cached)."""
        key = (side, k, ctx.prec)
        if key not in self._constants:
            piece = self.noise.piece(Kind.SF, side)
            self._constants[key] = (to_arb(piece.coefficient)
                                    * (to_arb(piece.rate) * self.shifts[k]).exp())
        return self._constants[key]

    def distinct_values(self, z, middle: Fraction) -> tuple:
        """``(p_ρ(z), [S for each distinct answer], [F for each distinct answer])``."""
        density, per_query, pieces = self.functions(middle)
        if pieces is not None:
            powers = {side: (to_arb(piece.rate) * z).exp() for side, piece in pieces.items()}
            passes = [1 - a * powers[side] if one_minus else a * powers[side]
                      for side, a, one_minus in per_query]
            return density(z), passes, [1 - s for s in passes]
        points = [z + shift for shift in self.shifts]
        return (density(z), [sf(x) for (sf, _), x in zip(per_query, points)],
                [cdf(x) for (_, cdf), x in zip(per_query, points)])

    def __call__(self, z, middle: Fraction) -> tuple:
        """``(p_ρ(z), [S_j], [F_j])`` for every query ``j`` in order."""
        density, passes, fails = self.distinct_values(z, middle)
        return (density, [passes[k] for k in self.positions],
                [fails[k] for k in self.positions])

    def bound(self, z, middle: Fraction) -> arb:
        """``|p_ρ(z)|·max_j |S_j|·Π_j(|F_j| + |S_j|)``: bounds the modulus of every selection
        integrand on a complex ball (:func:`_product_bound`)."""
        density, passes, fails = self.distinct_values(z, middle)
        return abs(density) * _largest(passes) * _product_bound(passes, fails, self.counts)


def _sparse_vector(mech: ThresholdMechanism, values: list, c: int, order: str,
                   tolerance: arb, progress) -> list:
    laws = _PassProbabilities(mech.threshold_noise, mech.query_noise, mech.threshold, values,
                              tolerance)

    def evaluate(z, middle):
        density, passes, fails = laws(z, middle)
        factor = (_fewer_before(passes, fails, c) if order == "given"
                  else _fewer_random(passes, fails, c, tolerance))
        return [density * s * f for s, f in zip(passes, factor)]

    return integrate_vector(evaluate, laws.bound, laws.cuts, laws.tails, tolerance, progress)


def _redrawn_threshold(mech: ThresholdMechanism, values: list, c: int, tolerance: arb,
                       progress) -> list:
    """Lyu Alg. 2 (threshold redrawn after each ⊤), given order.  From a fresh threshold at
    position ``p`` the next ⊤ is at ``k ≥ p`` with probability
    ``K[p][k] = ∫ p_ρ(z) S_k(z) Π_{p≤j<k} F_j(z) dz`` (all ``p ≤ k`` integrated together); the
    ``r``-th ⊤ is at ``k`` with probability ``π_r(k) = Σ_{p≤k} π_{r−1}(p − 1)·K[p][k]``
    (``π_0(−1) = 1``), and ``P_k = Σ_{r≤c} π_r(k)``."""
    laws = _PassProbabilities(mech.threshold_noise, mech.query_noise, mech.threshold, values,
                              tolerance)
    n = len(values)

    def evaluate(z, middle):
        density, passes, fails = laws(z, middle)
        kernel = []
        for start in range(n):
            running = density
            for k in range(start, n):
                kernel.append(running * passes[k])
                running *= fails[k]
        return kernel

    flat = integrate_vector(evaluate, laws.bound, laws.cuts, laws.tails, tolerance, progress)
    kernel, position = [], 0
    for start in range(n):
        kernel.append([None] * start + flat[position:position + n - start])
        position += n - start
    selected = [arb(0)] * n
    previous = None  # π_{r−1}
    for _ in range(c):
        current = [sum(((previous[start - 1] if start else arb(0)) if previous is not None
                        else (arb(1) if start == 0 else arb(0))) * kernel[start][k]
                       for start in range(k + 1)) for k in range(n)]
        selected = [s + x for s, x in zip(selected, current)]
        previous = current
    return selected


def _positions(values: list, distinct: list) -> tuple:
    """The index in ``distinct`` of each value, and how often each distinct value occurs."""
    index = {q: k for k, q in enumerate(distinct)}
    positions = [index[q] for q in values]
    counts = [0] * len(distinct)
    for k in positions:
        counts[k] += 1
    return positions, counts


def _largest(balls: list) -> arb:
    """An upper bound on every ``|x|`` of the (complex) balls."""
    return max(arb(abs(x).upper()) for x in balls)


def _product_bound(passes: list, fails: list, counts: list) -> arb:
    """``Π_j (|F_j| + |S_j|)^{count_j}``: bounds every coefficient sum of the generating
    polynomial ``Π_j (F_j + S_j x)`` and of its factors (each ``|F_j| + |S_j| ≥ |F_j + S_j| = 1``,
    so a sub-product is bounded by the whole), on complex balls (module docstring)."""
    total = arb(1)
    for s, f, count in zip(passes, fails, counts):
        total *= (abs(s) + abs(f)) ** count
    return total


def _hub_range(law, tolerance: arb):
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


def _fewer_before(passes: list, fails: list, c: int) -> list:
    """``Pr[fewer than c of the queries before i pass]`` for each ``i``: the coefficients of
    degree ``< c`` of ``Π_{j<i}(F_j + S_j x)``, summed (prefix products truncated at degree
    ``c``)."""
    prefix = arb_poly([1])
    result = []
    for s, f in zip(passes, fails):
        result.append(prefix(1))
        prefix = (prefix * arb_poly([f, s])).truncate(c)
    return result


def _fewer_random(passes: list, fails: list, c: int, tolerance: arb) -> list:
    """``E[min(1, c/(M_i + 1))]`` for each ``i``, ``M_i`` the number of other queries that pass
    (the probability that ``i``, if it passes, is among the first ``c`` passing queries of a
    uniformly random order; docs/mathematics.md §12.2), as
    ``Σ_{m<c} (1 − c/(m + 1)) Pr[M_i = m] + c·∫_0^1 Π_{j≠i}(F_j + S_j t) dt``
    (``E[1/(M + 1)] = ∫_0^1 E[t^M] dt``): the first term by the truncated generating
    polynomial, the second by :func:`_mean_reciprocal` within ``tolerance/(8c)``."""
    corrections = [1 - arb(c) / (m + 1) for m in range(c)]
    head = _weighted_around(passes, fails, passes, fails, corrections)
    tail = _mean_reciprocal(passes, fails, tolerance / (8 * c))
    return [h + c * t for h, t in zip(head, tail)]


#: Bernstein ellipse parameters tried for the integral over ``t`` in :func:`_mean_reciprocal`.
T_RHOS = (Fraction(4), Fraction(2), Fraction(3, 2), Fraction(5, 4), Fraction(9, 8))


def _mean_reciprocal(passes: list, fails: list, target: arb) -> list:
    """``∫_0^1 Π_{j≠i}(F_j + S_j t) dt`` for each ``i`` (real balls ``F_j, S_j ≥ 0``,
    ``F_j + S_j = 1``), by the ``K``-point Gauss–Legendre rule on ``[0, 1]``, leave-one-out
    products from prefix and suffix products at each node (``O(K·n)``).  The integrand is a
    polynomial of degree ``n − 1``: ``K = ⌈n/2⌉`` nodes integrate it exactly; fewer suffice when
    the bound ``½·(64/15)·M·ρ^{2−2K}/(ρ² − 1)`` (``gauss_legendre.py``) is below ``target``, with
    ``M = Π_j (F_j + S_j R)`` bounding it on the ellipse ``E_ρ`` of ``[0, 1]``, whose points have
    ``|t| ≤ R = ½ + (ρ + ρ^{−1})/4`` (each factor ``≥ 1`` there, so the whole product bounds every
    leave-one-out product)."""
    n = len(passes)
    order, error = max(1, -(-n // 2)), arb(0)
    half = arb(1) / 2
    for rho in T_RHOS:
        rho_ball = to_arb(rho)
        reach = half + (rho_ball + 1 / rho_ball) / 4
        modulus = arb(1)
        for s, f in zip(passes, fails):
            modulus *= f + s * reach
        log_head = float((modulus * 64 / (15 * (rho_ball * rho_ball - 1)) / 2).log().upper())
        needed = max(2, math.ceil(1 + (log_head - float(target.log().mid()))
                                  / (2 * math.log(float(rho)))))
        if needed < order:
            bound = error_bound(modulus, rho_ball, needed, half)
            if bound <= target:
                order, error = needed, bound
    totals = [arb(0)] * n
    for node, weight in legendre_rule(order, ctx.prec):
        t = (1 + node) / 2
        factors = [f + s * t for s, f in zip(passes, fails)]
        prefix = [arb(1)]
        for factor in factors:
            prefix.append(prefix[-1] * factor)
        suffix = arb(1)
        for i in range(n - 1, -1, -1):
            totals[i] += weight * prefix[i] * suffix
            suffix *= factors[i]
    return [total / 2 + arb(0, error.upper()) for total in totals]


# --- the exponential mechanism, top c by Gumbel noise ------------------------------------------

def _exponential_top(mech: ExponentialTopMechanism, values: list, c: int, tolerance: arb,
                     progress) -> list:
    noise = mech.noise
    distinct = sorted(set(values))
    low_hub, high_hub, tails = _hub_range(noise, tolerance)
    low, high = distinct[0] + low_hub, distinct[-1] + high_hub
    steps = max(1, math.ceil((high - low) / noise.scale))
    cuts = [low + (high - low) * Fraction(k, steps) for k in range(steps + 1)]
    positions, counts = _positions(values, distinct)
    shifts = [to_arb(q) for q in distinct]
    density_of, below_of, above_of = (noise.ball_log(kind) for kind in (Kind.PDF, Kind.CDF,
                                                                          Kind.SF))

    def laws(x):
        """Each distinct query's noise density at ``x − q``, and ``Pr[q + η ≤ x]``,
        ``Pr[q + η > x]``."""
        return ([density_of.value(x - shift) for shift in shifts],
                [below_of.value(x - shift) for shift in shifts],
                [above_of.value(x - shift) for shift in shifts])

    def evaluate(x, _middle):
        densities, below, above = laws(x)
        fewer = _fewer_others([above[k] for k in positions], [below[k] for k in positions], c)
        return [densities[k] * f for k, f in zip(positions, fewer)]

    def bound(x, _middle):
        densities, below, above = laws(x)
        return _largest(densities) * _product_bound(above, below, counts)

    return integrate_vector(evaluate, bound, cuts, tails, tolerance, progress)


def _fewer_others(passes: list, fails: list, c: int) -> list:
    """``[y^{<c}] Π_{j≠i}(F_j + S_j y)`` for each ``i``."""
    return _fewer_around(passes, fails, passes, fails, c)


def _fewer_around(passes_before: list, fails_before: list, passes_after: list,
                  fails_after: list, c: int) -> list:
    """``[y^{<c}] Π_{j<i}(F_j + S_j y)·Π_{j>i}(F'_j + S'_j y)`` for each ``i``."""
    return _weighted_around(passes_before, fails_before, passes_after, fails_after,
                            [arb(1)] * c)


def _weighted_around(passes_before: list, fails_before: list, passes_after: list,
                     fails_after: list, weights: list) -> list:
    """``Σ_{m<c} w_m [y^m] Π_{j<i}(F_j + S_j y)·Π_{j>i}(F'_j + S'_j y)`` for each ``i``,
    ``c = len(weights)``, in ``O(n·c)``: with the prefix ``A_i = Π_{j<i}`` truncated at degree
    ``c`` and the functional ``u^{(i)}_k = Σ_l [y^l]Π_{j>i}(…)·w_{k+l}`` (``w_m = 0`` for
    ``m ≥ c``), it is ``Σ_{k<c} [y^k]A_i·u^{(i)}_k``, and
    ``u^{(i−1)}_k = F'_i u^{(i)}_k + S'_i u^{(i)}_{k+1}``."""
    n, c = len(passes_before), len(weights)
    functional = [None] * n
    current = arb_poly(weights)
    for i in range(n - 1, -1, -1):
        functional[i] = current.coeffs()
        current = current * fails_after[i] + current.right_shift(1) * passes_after[i]
    result, prefix = [], arb_poly([1])
    for i in range(n):
        result.append(sum((a * u for a, u in zip(prefix.coeffs(), functional[i])), arb(0)))
        prefix = (prefix * arb_poly([fails_before[i], passes_before[i]])).truncate(c)
    return result


# --- Sparse Vector with retraversal ------------------------------------------------------------

def _retraversal(mech: RetraversalMechanism, values: list, c: int, tolerance: arb,
                 progress) -> list:
    """Given the threshold noise ``z``, query ``i`` first passes in traversal ``R_i``
    (geometric: ``Pr[R_i = r] = S_i F_i^{r−1}``), independently; it is selected iff fewer than
    ``c`` others come before ``(R_i, i)`` in the order of traversals then positions:
    ``P[i | z] = Σ_r S_i F_i^{r−1} Q_{i,r}``, ``Q_{i,r} = Pr[fewer than c of {j < i: R_j ≤ r}
    ∪ {j > i: R_j ≤ r − 1}]``.  The first ``R`` traversals are integrated; the rest, at most
    ``F_i^R·Q_{i,R+1}`` (increasing in ``z``), are bounded cell by cell over ``z``
    (:func:`_traversals_needed`; docs/mathematics.md §12.4)."""
    hub = mech.threshold_noise
    laws = _PassProbabilities(hub, mech.query_noise, mech.threshold, values, tolerance)
    grid = _grid(laws.cuts, hub.scale)
    masses, fails_at_ends = [], []
    for a, b in zip(grid, grid[1:]):
        cdf = hub.ball_log(Kind.CDF, hub.side((a + b) / 2)).value
        masses.append(cdf(to_arb(b)) - cdf(to_arb(a)))
        fails_at_ends.append(laws(to_arb(b), (a + b) / 2)[2])
    traversals, remainder = _traversals_needed(fails_at_ends, masses, c, tolerance / 8)

    def evaluate(z, middle):
        density, _, fails = laws(z, middle)
        total = [arb(0)] * len(values)
        for weight, q in _traversal_terms(fails, c, traversals):
            total = [t + w * x for t, w, x in zip(total, weight, q)]
        return [density * t for t in total]

    def bound(z, middle):
        density, passes, fails = laws.distinct_values(z, middle)
        sizes = [arb(abs(f).upper()) for f in fails]
        passing = [arb(abs(s).upper()) for s in passes]
        # |S F^{r−1}| ≤ |S|·|F|^{r−1};  |F^r| + |1 − F^r| ≤ |F|^r + |S|·Σ_{k<r}|F|^k
        powers, geometric, total = [arb(1)] * len(sizes), [arb(0)] * len(sizes), arb(0)
        for _ in range(traversals):
            largest = max(s * p for s, p in zip(passing, powers))
            geometric = [g + p for g, p in zip(geometric, powers)]
            powers = [p * f for p, f in zip(powers, sizes)]
            factors = arb(1)
            for p, s, g, count in zip(powers, passing, geometric, laws.counts):
                factors *= (p + s * g) ** count
            total += largest * factors
        return abs(density) * total

    results = integrate_vector(evaluate, bound, laws.cuts, laws.tails, tolerance, progress)
    return [p + arb(0, remainder.upper()) for p in results]


def _traversal_terms(fails: list, c: int, traversals: int):
    """For ``r = 1..traversals``: the weights ``S_i F_i^{r−1}`` and ``Q_{i,r}``
    (:func:`_retraversal`)."""
    powers = [arb(1)] * len(fails)  # F^{r−1}
    for _ in range(traversals):
        previous = powers
        powers = [p * f for p, f in zip(powers, fails)]
        weight = [(1 - f) * p for f, p in zip(fails, previous)]
        q = _fewer_around([1 - p for p in powers], powers, [1 - p for p in previous], previous, c)
        yield weight, q


def _grid(cuts: list, scale: Fraction) -> list:
    """The cut points, with points added so that no cell is wider than ``scale``."""
    grid = [cuts[0]]
    for a, b in zip(cuts, cuts[1:]):
        steps = max(1, math.ceil((b - a) / scale))
        grid.extend(a + (b - a) * Fraction(k, steps) for k in range(1, steps + 1))
    return grid


def _traversals_needed(fails: list, masses: list, c: int, target: arb) -> tuple:
    """The fewest traversals ``R`` whose dropped terms are below ``target`` for every ``i``,
    and that bound: on each cell of the threshold noise's range they are at most
    ``F_i^R·Q_{i,R+1}`` at the cell's right end (both increase with ``z``), times the cell's
    probability (``fails[k]``: the ``F_i`` at the right end of cell ``k``, ``masses[k]`` an upper
    bound on its probability)."""
    powers = [[arb(1)] * len(row) for row in fails]
    for traversals in range(1, MAX_TRAVERSALS + 1):
        dropped = [arb(0)] * len(fails[0])
        for k, (row, mass) in enumerate(zip(fails, masses)):
            powers[k] = current = [p * f for p, f in zip(powers[k], row)]
            following = [p * f for p, f in zip(current, row)]
            q = _fewer_around([1 - p for p in following], following, [1 - p for p in current],
                              current, c)
            dropped = [d + mass * p * x for d, p, x in zip(dropped, current, q)]
        worst = max(arb(d.upper()) for d in dropped)
        if worst < target:
            return traversals, worst
    raise PrecisionError(f"Sparse Vector with retraversal needs more than {MAX_TRAVERSALS} "
                         f"traversals for this accuracy (the queries rarely pass; ask for fewer "
                         f"digits)")
