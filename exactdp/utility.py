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
  position, chained; with an integer-valued threshold noise (``svt_discrete``) the integral is a
  sum over the integers;
* Sparse Vector with retraversal (``svt_retraversal``, given order): a sum over traversals, the
  dropped ones bounded;
* the exponential mechanism run ``c`` times without replacement (``em_top``): the top ``c`` of
  ``q_i + Gumbel(β)`` (McSherry & Talwar 2007; Durfee & Rogers, NeurIPS 2019, "Practical
  differentially private top-k selection with pay-what-you-get composition", §3), so
  ``P_i = ∫ g_β(x − q_i) Pr[fewer than c others exceed x] dx``.

The integrals are certified (``exact/vector_quadrature.py``): each ``P_i`` is an Arb ball.
"""

from __future__ import annotations

import bisect
import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import acb, arb, arb_poly, ctx

from .checks import check_jobs
from .errors import InputError, MethodUnavailableError, PrecisionError
from .mechanisms.base import OutputKind
from .mechanisms.description import ThresholdMechanism
from .mechanisms.selection import ExponentialTopMechanism, RetraversalMechanism
from .noise import Kind
from .precision import check_dps, to_arb
from .sequences import as_queries
from .workers import local_jobs
from .exact.gauss_legendre import fewest_nodes, legendre_rule
from .exact.interval_arrays import ArbArrays, FloatIntervals
from .exact.threshold_chain import chain_by_recurrence, chain_in_blocks
from .exact.vector_quadrature import RHOS, Leading, integrate_vector, quadrature_rule

ORDERS = ("given", "random")
#: Most traversals of Sparse Vector with retraversal modelled exactly.
MAX_TRAVERSALS = 200_000
#: Digits up to which the recurrences of Sparse Vector with retraversal (its traversals) and with
#: a redrawn threshold (its chain of thresholds) run in double-precision intervals
#: (``exact/interval_arrays.py``: a relative width of about 10^{−12} after the few thousand
#: roundings of a query's chain of traversals, 10^{−10} after the million of a chain of 300
#: thresholds over 10,000 queries at 5000 nodes, inside the tolerance); beyond, in Arb balls at
#: Python speed.
FLOAT_DIGITS = 8
#: What one evaluation of a vector of selection integrands costs, in evaluations of their common
#: bound: it steers the quadrature's choice of ellipse (``integrate_vector``).  On the Zipf
#: workload at n = 1000 an evaluation costs about 5 bounds in a random order (the integral over
#: ``t`` per answer); 4 halves its nodes.
EVALUATION_COST = 4
#: The same for the given-order sweep (:func:`_fewer_before`), which costs dozens of bounds: on
#: the Zipf workload at n = 10,000, 12 takes 22% fewer nodes than 4 (more gains none).
SWEEP_EVALUATION_COST = 12
#: The same for the random order where only the integral over ``t`` is left
#: (:func:`_sparse_vector_random`), against its ``O(1)`` bound
#: (:meth:`_PassProbabilities.reciprocal_bound`), with every ellipse of ``RHOS`` tried (that
#: integrand barely grows off the real line): on the Zipf workload at n = 10,000 an evaluation
#: costs about 12 bounds, and with both these pieces need half the nodes.
TAIL_EVALUATION_COST = 12


#: The share of the tolerance below which the rest of a sweep over the queries is enclosed by
#: one ball instead of being computed (the given-order sweep, :func:`_fewer_before`).
NEGLIGIBLE = 1 / 16
#: Steps of the chain of a redrawn threshold (one query, one level, one node:
#: :func:`_redrawn_threshold`) taken to cost about one call of the quadrature's bound
#: (0.2–0.6 ms); it steers the choice of rule (``integrate_vector``'s ``evaluation_cost``).  Set
#: when a step cost about 0.2 µs in Arb object arrays; in Arb matrix products it costs about
#: 50 ns (577 s for 10,000 queries, 300 levels, 4046 nodes), in double intervals a few ns, so it
#: now overstates a node's cost: the search spends more bounds than needed to save nodes.
CHAIN_STEPS_PER_BOUND = 1000


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


def selection_cutoff(mech, user: str) -> int:
    """The number ``c`` of queries a selection mechanism selects (at most, for Sparse Vector):
    ``c`` of ``em_top`` and ``svt_retraversal``, the cutoff of a Sparse Vector variant; any other
    mechanism is refused in one line naming ``user``, the caller."""
    if isinstance(mech, (ExponentialTopMechanism, RetraversalMechanism)):
        return mech.c
    if isinstance(mech, ThresholdMechanism) and mech.cutoff is not None:
        return mech.cutoff
    raise InputError(f"{user} needs a selection mechanism with a cutoff c (a Sparse Vector "
                     f"variant, em_top or svt_retraversal), got {mech.name}")


def check_cutoff(c, n: int) -> None:
    """Refuse a cutoff that is not an integer in ``1..n`` (``n`` queries)."""
    if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or c < 1:
        raise InputError(f"the cutoff c must be a positive integer, got {c!r}")
    if c > n:
        raise InputError(f"the cutoff c={c} exceeds the number of queries ({n})")


def _cutoff_of(mech) -> int:
    """:func:`selection_cutoff`, of a mechanism whose utility is modelled: ⊤/⊥ outputs and
    query noise for Sparse Vector."""
    c = selection_cutoff(mech, "utility")
    if isinstance(mech, (ExponentialTopMechanism, RetraversalMechanism)):
        return c
    if mech.output_kind is not OutputKind.FLAGS:
        raise InputError(f"utility needs ⊤/⊥ outputs, but {mech.name} releases numbers")
    if mech.query_noise.is_point_mass:
        raise InputError(f"utility needs query noise, but {mech.name} has none")
    return c


def _checked(mech, queries, order):
    if order not in ORDERS:
        raise InputError(f"order must be given or random, got {order!r}")
    queries = as_queries(queries)
    values = queries.expand()
    c = _cutoff_of(mech)
    if isinstance(mech, ThresholdMechanism):
        mech.check_queries(queries)  # integer answers for integer-valued noise, as probability
    check_cutoff(c, len(values))
    if order == "random" and isinstance(mech, ExponentialTopMechanism):
        order = "given"  # the exponential mechanism does not depend on the order
    if order == "random" and isinstance(mech, RetraversalMechanism):
        raise InputError("Sparse Vector with retraversal is modelled in the given order only")
    if order == "random" and getattr(mech, "redraw_threshold", False):
        raise InputError(f"{mech.name} redraws its threshold after each ⊤: it is modelled in the "
                         f"given order only")
    return values, c, order


def selection_probabilities(mech, queries, order: str = "given", dps: int = 15,
                            progress=None, jobs: int | None = None) -> list:
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
        Called with the number of finished quadrature pieces (terms of the sum, for an
        integer-valued threshold noise); with ``0`` and ``note``, a keyword, for work before
        or after the quadrature: while its rule is searched, while ``svt_retraversal`` finds
        the traversals each part of the threshold noise's range needs, while ``svt2`` chains
        its thresholds.
    jobs : int, optional
        Worker processes forked to evaluate the quadrature's pieces
        (:func:`~exactdp.exact.vector_quadrature.integrate_vector`; default: the number set by
        :func:`exactdp.workers.use_local_jobs`, else 1); the result does not depend on it.  The
        chain of ``svt2`` (after its rule) and the sum of an integer-valued threshold noise run
        in this process.

    Raises
    ------
    InputError
        For a mechanism without a cutoff, with released numbers or without query noise, a
        cutoff above the number of queries, query answers that are not integers for
        integer-valued noise (``svt_discrete``, as :func:`exactdp.probability`), or an unknown
        order.
    PrecisionError
        When ``svt_retraversal`` would need more than :data:`MAX_TRAVERSALS` traversals.

    Examples
    --------
    >>> from exactdp import mechanism
    >>> p = selection_probabilities(mechanism("svt1", eps=1, c=1), [3, 0], dps=10)
    >>> p[0] > p[1] > 0
    True
    """
    dps, jobs = check_dps(dps), check_jobs(local_jobs() if jobs is None else jobs)
    values, c, order = _checked(mech, queries, order)
    bits = int((dps + 8) * math.log2(10)) + 2 * len(values).bit_length() + 20
    with ctx.workprec(bits):
        tolerance = arb(10) ** (-(dps + 1))
        if isinstance(mech, ExponentialTopMechanism):
            return _exponential_top(mech, values, c, tolerance, progress, jobs)
        if isinstance(mech, RetraversalMechanism) or mech.redraw_threshold:
            recurrence = functools.partial(
                _retraversal if isinstance(mech, RetraversalMechanism) else _redrawn_threshold,
                jobs=jobs)
            if dps <= FLOAT_DIGITS:
                fast = recurrence(mech, values, c, tolerance, progress, FloatIntervals())
                # doubles hold F_j = 1 − S_j only to about 10^{−16} absolutely, and over very
                # many steps that can exceed the digits asked for: Arb balls then
                if max(p.rad() for p in fast) <= 5 * tolerance:
                    return fast
            return recurrence(mech, values, c, tolerance, progress, ArbArrays())
        return _sparse_vector(mech, values, c, order, tolerance, progress, jobs)


def expected_utility(mech, queries, order: str = "given", dps: int = 15,
                     progress=None, jobs: int | None = None) -> Utility:
    """The selection probabilities and ``E[FNR]``, ``E[SER]`` (module docstring); the
    parameters are those of :func:`selection_probabilities`.

    Examples
    --------
    >>> from exactdp import mechanism
    >>> u = expected_utility(mechanism("em_top", eps=1, c=1), [2, 0, 0], dps=10)
    >>> bool(0 < u.fnr < 1), u.top
    (True, (0,))
    """
    values, c, _ = _checked(mech, queries, order)
    selection = selection_probabilities(mech, queries, order, dps, progress, jobs)
    bits = int((dps + 8) * math.log2(10)) + 20
    with ctx.workprec(bits):
        top = true_top(values, c)
        fnr, ser = selection_rates(selection, values, top, to_arb)
    return Utility(selection, fnr, ser, top)


def true_top(values: list, c: int) -> tuple:
    """The true top ``c``: the indices of the ``c`` largest answers (ties: the lower index
    first), ascending.

    Examples
    --------
    >>> true_top([1, 2, 1, 1], 2)
    (0, 1)
    """
    return tuple(sorted(sorted(range(len(values)), key=lambda i: (-values[i], i))[:c]))


def selection_rates(weights: list, values: list, top: tuple, number) -> tuple:
    """``(FNR, SER)`` of selection weights ``w_i``::

        FNR = 1 − Σ_{i ∈ top} w_i / c,        SER = 1 − Σ_i w_i q_i / Σ_{i ∈ top} q_i,

    ``c = len(top)``; SER is ``None`` when ``Σ_{i ∈ top} q_i ≤ 0``.  Both are linear in the
    weights (Lyu, Su & Li, PVLDB 2017, §6): with ``w_i = P_i`` they are ``E[FNR]`` and
    ``E[SER]``, with the selection indicators of runs the rates of those runs.

    Parameters
    ----------
    weights : list
        ``w_i`` for each query: Arb balls, or numpy arrays (one entry per run).
    values : list of Fraction
        The exact answers ``q_i``.
    top : tuple of int
        The true top ``c`` (:func:`true_top`).
    number : callable
        Converts an exact rational to the weights' arithmetic (``to_arb``, ``float``).
    """
    fnr = 1 - sum(weights[i] for i in top) / len(top)
    best = sum((values[i] for i in top), Fraction(0))
    if best <= 0:
        return fnr, None
    gained = sum(w * number(q) for w, q in zip(weights, values))
    return fnr, 1 - gained / number(best)


# --- Sparse Vector: one threshold noise z ------------------------------------------------------

#: The widest ball of ``r·z`` (radius, in each part) on which :meth:`_PassProbabilities.bound`
#: uses its closed form: on wider ones it overestimates far more than the product per answer.
NARROW = 1 / 64


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

    def __call__(self, z, middle: Fraction) -> tuple:
        """``(p_ρ(z), [S_j], [F_j])`` for every query ``j`` in order."""
        density, passes, fails = self.distinct_values(z, middle)
        return (density, [passes[k] for k in self.positions],
                [fails[k] for k in self.positions])

    def log_generating(self, z, middle: Fraction, passes: list, reach: arb, budget: arb):
        """:func:`_log_generating` at a real ``z`` (``passes`` the distinct answers' ``S`` there),
        from closed forms in ``O(M)`` operations instead of ``O(M·d)``: ``(L, E)``, ``L`` a
        function with ``|log G(1 − s) − L(s)| ≤ E`` for every real ``|s| ≤ reach``,
        ``G(t) = Π_j (F_j + S_j t)``; ``None`` where the series below would need more than
        :data:`MAX_SERIES_TERMS` terms, or converge too slowly.  Without closed forms it is
        :func:`_log_generating` itself.

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
            return _log_generating(passes, self.counts, reach, budget)
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
        ``|p_ρ(z)|·max_j |S_j|·Π_j(|F_j| + |S_j|)`` (:func:`_product_bound`), or given the
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
        generic = (abs(density) * max(_largest(passes), floor)
                   * _product_bound(passes, fails, self.counts))
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
        :func:`_sparse_vector_random`, divided by ``c``).

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
    ``a`` (:meth:`_PassProbabilities.bound`)."""
    largest = arb(0)
    for side in sides:
        if side.one_minus:
            passing = 1 - side.least * side.modulus * side.cosine + side.top ** 2 * side.spread
        else:
            passing = side.top * side.modulus
        largest = max(largest, arb(passing.upper()))
    return largest


#: Radii ``r < 1`` of the circles ``|x| = r`` tried in :meth:`_PassProbabilities.bound`'s
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
    (:meth:`_PassProbabilities.bound`) for the circle of radius ``r`` and the least ratio ``κ``."""
    logarithm = (c - 1) * (1 / radius).log() - (1 - radius).log()
    return logarithm / (1 + arb(ratio)) if math.isfinite(ratio) else arb(0)


def _sparse_vector(mech: ThresholdMechanism, values: list, c: int, order: str,
                   tolerance: arb, progress, jobs: int) -> list:
    if mech.threshold_noise.integer_valued:
        return _integer_threshold(mech, values, c, order, tolerance, progress)
    laws = _PassProbabilities(mech.threshold_noise, mech.query_noise, mech.threshold, values,
                              tolerance)
    if order == "given":
        negligible = tolerance * NEGLIGIBLE
        cuts, limits = _merged_cuts(laws, c, negligible)

        def piece_of(middle: Fraction) -> int:
            """The index of the piece containing ``middle`` (among ``cuts``)."""
            return bisect.bisect_right(cuts, middle) - 1

        @functools.lru_cache(maxsize=None)
        def few_pass(piece: int):
            """A bound on ``Pr[c or more of all the queries pass]`` on the piece if it is
            negligible, else ``None``: at the piece's left end, since it falls as ``z`` grows."""
            a = cuts[piece]
            _, passes, fails = laws.distinct_values(to_arb(a), a)
            bound = _at_least_bound(passes, fails, laws.counts, c)
            return bound if bound <= negligible else None

        def evaluate(z, middle):
            density, passes, fails = laws.distinct_values(z, middle)
            weighted = [density * s for s in passes]  # p_ρ S_i, once per distinct answer
            piece = piece_of(middle)
            first, most = limits[piece][0], few_pass(piece)
            if most is not None:  # then every sum lies in [1 − most, 1]: no sweep
                almost = arb(1) - arb(0, most.upper())
                return Leading([weighted[k] * almost for k in laws.positions[:first]],
                               arb(0), len(values))
            fewer, rest = _fewer_before(passes, fails, laws.positions, c, negligible, first)
            return Leading([weighted[k] * f for k, f in zip(laws.positions, fewer)],
                           density * rest, len(values))  # S_i ≤ 1 in the others

        def beyond(a: Fraction, b: Fraction):
            first, bound = limits[piece_of((a + b) / 2)]
            if first == len(values):
                return None
            return first, arb(0, (laws.hub_mass(a, b) * bound).upper())

        return integrate_vector(evaluate, functools.partial(laws.bound, cutoff=c), cuts,
                                laws.tails, tolerance, progress, SWEEP_EVALUATION_COST,
                                beyond=beyond, jobs=jobs)
    return _sparse_vector_random(laws, c, tolerance, progress, jobs)


def _integer_threshold(mech: ThresholdMechanism, values: list, c: int, order: str,
                       tolerance: arb, progress) -> list:
    """Sparse Vector whose threshold noise lives on the integers (``svt_discrete``): the
    integral over ``z`` is the sum ``P_i = Σ_k Pr[ρ = k]·S_i(k)·(…)`` over the integers ``k``,
    the factor in brackets as at a quadrature node (given order: :func:`_fewer_before`; random
    order: :func:`_fewer_random`), every term a ball.  The integers outside ``[k_L, k_R]``
    (:func:`_integer_range`), where ``ρ`` has mass at most ``tolerance/8``, are left out with
    that mass (each term is at most ``Pr[ρ = k]``).  ``progress`` is called after each term."""
    hub, noise = mech.threshold_noise, mech.query_noise
    if not noise.integer_valued:
        raise MethodUnavailableError(f"a sum over the integer-valued {hub} threshold noise "
                                     f"cannot carry {noise} query noise")
    distinct = sorted(set(values))
    positions, counts = _positions(values, distinct)
    first, last, tails = _integer_range(hub, tolerance / 8)
    totals = [arb(0)] * len(values)
    for done, k in enumerate(range(first, last + 1), start=1):
        mass = hub.log_ball_integer(Kind.PDF, k).exp()
        points = [mech.threshold + k - q for q in distinct]  # ν passes iff ν ≥ T + k − q
        passes = [noise.log_ball_at(Kind.SF, x).exp() for x in points]
        fails = [noise.log_ball_at(Kind.CDF, x).exp() for x in points]
        if order == "given":
            fewer, rest = _fewer_before(passes, fails, positions, c, tolerance * NEGLIGIBLE)
            fewer = fewer + [rest] * (len(values) - len(fewer))
            terms = [mass * passes[j] * f for j, f in zip(positions, fewer)]
        else:
            fewer = _fewer_random(passes, fails, counts, c, tolerance)
            terms = [mass * passes[j] * fewer[j] for j in positions]
        totals = [total + term for total, term in zip(totals, terms)]
        if progress is not None:
            progress(done)
    radius = arb(0, tails.upper())
    return [total + radius for total in totals]


def _integer_range(law, budget: arb) -> tuple:
    """``(k_L, k_R, tail)``: integers around the integer-valued law's centre with
    ``Pr[ρ < k_L] + Pr[ρ > k_R] ≤ tail ≤ budget``, each side's width the least whose tail is
    within ``budget/2`` (doubled until it is, then bisected)."""
    centre = math.floor(law.median * law.scale)
    ends, tail = [], arb(0)
    for kind, direction in ((Kind.CDF, -1), (Kind.SF, 1)):
        def beyond(width: int) -> arb:
            """``Pr[ρ < centre − width]`` or ``Pr[ρ > centre + width]``."""
            edge = centre + direction * width
            return law.log_ball_integer(kind, edge if direction < 0 else edge + 1).exp()

        wide = 1
        while not beyond(wide) <= budget / 2:
            wide *= 2
        narrow = wide // 2  # its tail exceeds the budget (or it is 0)
        while wide - narrow > 1:
            middle = (narrow + wide) // 2
            narrow, wide = (narrow, middle) if beyond(middle) <= budget / 2 else (middle, wide)
        ends.append(centre + direction * wide)
        tail += arb(beyond(wide).upper())
    return ends[0], ends[1], tail


def _sparse_vector_random(laws: _PassProbabilities, c: int, tolerance: arb, progress,
                          jobs: int) -> list:
    """Random order: ``P_i`` depends on ``q_i`` alone (the queries are exchangeable), so one
    integrand per distinct answer, ``p_ρ(z)·S_k(z)·E[min(1, c/(M_k + 1))]``, ``M_k`` the number of
    the other queries that pass (:func:`_fewer_random`).  Where even the sum of the first ``c``
    terms, ``Pr[M_k < c]``, is negligible — the left end of the threshold noise's range, where
    many queries pass — it is left out with its bound (:func:`_negligible_pieces`)."""
    counts = laws.counts
    share = tolerance / 2

    def at_right_end(a: Fraction, b: Fraction) -> tuple:
        _, passes, fails = laws.distinct_values(to_arb(b), (a + b) / 2)
        return passes, fails, (c - 1) * laws.hub_mass(a, b)

    split, dropped = _negligible_pieces(list(zip(laws.cuts, laws.cuts[1:])), at_right_end,
                                        _fewer_than_bound, counts, c, share / 8)

    def evaluate_full(z, middle):
        density, passes, fails = laws.distinct_values(z, middle)
        fewer = _fewer_random(passes, fails, counts, c, tolerance,
                              functools.partial(laws.log_generating, z, middle, passes))
        return [density * s * f for s, f in zip(passes, fewer)]

    def evaluate_tail(z, middle):
        density, passes, fails = laws.distinct_values(z, middle)
        tail = _mean_reciprocal(passes, fails, counts, tolerance / (8 * c),
                                functools.partial(laws.log_generating, z, middle, passes))
        return [c * density * s * t for s, t in zip(passes, tail)]

    def bound_tail(z, middle):
        return c * laws.reciprocal_bound(z, middle)

    results = [arb(0)] * len(counts)
    finished = 0

    def progress_from(offset):
        """The pieces of the second quadrature counted after the first's ``offset``."""
        def report(done, note=""):
            progress(0 if note else offset + done, note=note)
        return None if progress is None else report

    if split > 0:
        results = integrate_vector(evaluate_tail, bound_tail, laws.cuts[:split + 1], laws.tails,
                                   share, progress_from(0), TAIL_EVALUATION_COST,
                                   largest_rho=RHOS[-1], jobs=jobs)
        finished = split
    if split < len(laws.cuts) - 1:
        tails = arb(0) if split > 0 else laws.tails
        rest = integrate_vector(evaluate_full, laws.bound, laws.cuts[split:], tails, share,
                                progress_from(finished), EVALUATION_COST, jobs=jobs)
        results = [r + x for r, x in zip(results, rest)]
    radius = arb(0, dropped.upper())
    return [results[k] + radius for k in laws.positions]


def _negligible_pieces(pieces: list, at_end, probability_bound, counts: list, c: int,
                       budget: arb) -> tuple:
    """``(k, E)``: the first ``k`` of the ``pieces`` ``(a, b)`` (in the order given) on which an
    integrand ``|w(x)|·p(x)`` may be dropped, and ``E`` a bound on its integral over them,
    ``E ≤ budget``.  ``at_end(a, b)`` gives the pass and fail probabilities of the distinct
    answers at the end of the piece where ``p`` is largest, and a bound on ``∫_a^b |w|``;
    ``probability_bound(passes, fails, counts, c)`` bounds ``p`` there (:func:`_fewer_than_bound`
    for ``Pr[fewer than c of the others pass]``, :func:`_at_least_bound` for the opposite).  Each
    piece may drop at most ``budget/len(pieces)``."""
    limit = budget / max(1, len(pieces))
    total, k = arb(0), 0
    while k < len(pieces):
        passes, fails, weight = at_end(*pieces[k])
        dropped = arb((weight * probability_bound(passes, fails, counts, c)).upper())
        if not dropped <= limit:
            break
        total += dropped
        k += 1
    return k, total


def _fewer_than_bound(passes: list, fails: list, counts: list, c: int) -> arb:
    """An upper bound on ``Pr[fewer than c of the queries other than any one pass]``: for every
    ``x ∈ (0, 1]``, ``Pr[M′ ≤ c − 1] ≤ E[x^{M′}]·x^{1−c} = x^{1−c}·Π_{j≠i}(F_j + S_j x)
    ≤ x^{−c}·Π_j (F_j + S_j x)`` (Markov's inequality for ``x^{M′}``, and ``F_i + S_i x ≥ x``),
    taken at ``x = c/μ``, ``μ = Σ_j S_j`` (the Chernoff bound's choice), or ``1`` when ``μ ≤ c``.
    It bounds ``Pr[fewer than c of all of them pass]`` too, which is no larger."""
    mean = _mean_passes(passes, counts)
    return _chernoff(passes, fails, counts, c, mean) if mean > c else arb(1)


def _at_least_bound(passes: list, fails: list, counts: list, c: int) -> arb:
    """An upper bound on ``Pr[at least c of the queries other than any one pass]``: for every
    ``x ≥ 1``, ``Pr[M′ ≥ c] ≤ E[x^{M′}]·x^{−c} ≤ x^{−c}·Π_j (F_j + S_j x)`` (Markov's inequality
    for ``x^{M′}``, and ``F_i + S_i x ≥ 1``), taken at ``x = c/μ``, ``μ = Σ_j S_j`` (the
    Chernoff bound's choice), or ``1`` when ``μ ≥ c``.  It bounds ``Pr[at least c of all the
    queries pass]`` too (Markov's inequality for ``x^M`` itself)."""
    mean = _mean_passes(passes, counts)
    return _chernoff(passes, fails, counts, c, mean) if 0 < mean < c else arb(1)


def _chernoff(passes: list, fails: list, counts: list, c: int, mean: float) -> arb:
    """``x^{−c}·G(x)`` at ``x = c/μ`` (``mean = μ``): the bound of :func:`_fewer_than_bound`
    (``x < 1``) and of :func:`_at_least_bound` (``x > 1``)."""
    x = arb(c) / arb(mean)
    return x ** -c * _generating_value(passes, fails, counts, x)


def _mean_passes(passes: list, counts: list) -> float:
    """``μ = Σ_j n_j S_j``, the expected number of passing queries (a float: it only places a
    point)."""
    return sum(float(s.mid()) * count for s, count in zip(passes, counts))


def _generating_value(passes: list, fails: list, counts: list, x) -> arb:
    """``G(x) = Π_j (F_j + S_j x)^{n_j}``, the generating function of the number of passing
    queries (``n_j = counts[j]`` queries share the answer ``j``), at a ball ``x``."""
    total = arb(1)
    for s, f, count in zip(passes, fails, counts):
        total *= (f + s * x) ** count
    return total


def _redrawn_threshold(mech: ThresholdMechanism, values: list, c: int, tolerance: arb,
                       progress, arithmetic, jobs: int) -> list:
    """Lyu Alg. 2 (threshold redrawn after each ⊤), given order.  From a fresh threshold at
    position ``p`` the next ⊤ is at ``k ≥ p`` with probability
    ``K[p][k] = ∫ p_ρ(z) S_k(z) Π_{p≤j<k} F_j(z) dz``; the ``r``-th ⊤ is at ``k`` with
    probability ``π_r(k) = Σ_{p≤k} a_r(p)·K[p][k]``, ``a_r(p) = π_{r−1}(p − 1)`` the
    probability that the ``r``-th threshold is drawn at ``p`` (``a_1(0) = 1``), and
    ``P_k = Σ_{r≤c} π_r(k)``.

    One Gauss–Legendre rule (:func:`~exactdp.exact.vector_quadrature.quadrature_rule`: nodes
    ``z_ν``, weights ``w_ν``) integrates every ``K[p][k]`` within the same ``E``, its bound
    covering every ``p_ρ·S_k·Π_{j∈J} F_j`` (:meth:`_PassProbabilities.bound`).  At a node the
    kernel is a product of a factor of ``p`` and one of ``k``, so the sums over the starts are a
    chain over the queries, ``O(n·c·m)`` operations for ``m`` nodes
    (``exact/threshold_chain.py``): in ``arithmetic`` if it is
    :class:`~exactdp.exact.interval_arrays.FloatIntervals` (a level begins once the starts it
    has been offered exceed ``tolerance/(8c)``, the rest a one-sided ball), otherwise in Arb
    balls, in blocks of matrix products (docs/mathematics.md §12.1).  The rule is searched in
    ``jobs`` worker processes; the chain, whose every step sums over all the nodes, runs in this
    one, its matrix products in ``jobs`` threads.  ``progress`` is called with ``0`` and a note
    while the rule is searched, then per thousand queries of the chain."""
    share = tolerance / (4 * c)  # the rule's error enters each P_k once per level
    laws = _PassProbabilities(mech.threshold_noise, mech.query_noise, mech.threshold, values,
                              share)
    n = len(values)
    nodes, error = quadrature_rule(functools.partial(laws.bound, without_pass=True),
                                   laws.cuts, laws.tails, share,
                                   max(EVALUATION_COST, c * n / CHAIN_STEPS_PER_BOUND),
                                   progress=progress, jobs=jobs)
    passing, failing = [], []  # at each node, for each distinct answer: w p_ρ S, and F
    for z, weight, middle in nodes:
        density, passes, fails = laws.distinct_values(z, middle)
        passing.append([weight * density * s for s in passes])
        failing.append(fails)
    passing, failing = list(zip(*passing)), list(zip(*failing))  # per answer, over the nodes
    if isinstance(arithmetic, FloatIntervals):
        return chain_by_recurrence(
            arithmetic, [arithmetic.lift(column)[..., None] for column in passing],
            [arithmetic.lift(column)[..., None] for column in failing], laws.positions, c,
            error, tolerance / (8 * c), progress)
    return chain_in_blocks([ArbArrays.lift(column) for column in passing],
                           [ArbArrays.lift(column) for column in failing], laws.positions, c,
                           error, progress, threads=jobs)


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


#: Queries per block of the given-order sweep (:func:`_fewer_before`).
BLOCK = 12


def _fewer_before(passes: list, fails: list, positions: list, c: int, negligible: arb,
                  limit: int | None = None) -> tuple:
    """``Pr[fewer than c of the queries before i pass]`` for each query ``i`` (its pass and
    fail probabilities ``passes[positions[i]]``, ``fails[positions[i]]``): the coefficients of
    degree ``< c`` of ``Π_{j<i}(F_j + S_j x)``, summed.  It is exactly 1 for ``i < c``.  From
    ``i = c`` on, in blocks of :data:`BLOCK` queries from ``b``: with ``p_m`` the coefficients
    of the prefix ``P = Π_{j<b}`` truncated at degree ``c``, ``Q_t = Π_{b≤j<b+t}(F_j + S_j x)``
    (degree ``t``) and ``C_l = Σ_{m<c−l} p_m``, the sum for ``i = b + t`` is
    ``Σ_l [x^l]Q_t·C_l``, the coefficient of degree BLOCK of ``Q_t·Σ_l C_l x^{BLOCK−l}`` (one
    product by ``F_i + S_i x`` per query, as for ``Q_t``; at ``t = BLOCK`` it is the next
    block's ``C_0``), and one product ``P·Q_BLOCK`` moves the prefix on.

    The prefix keeps only its coefficients from a degree ``L`` up, ``L`` raised after each
    block while the mass left out stays within ``D = negligible·2^{−30}``: what is left out
    only moves up (``P·Q`` adds no mass below ``L``), so the exact ``C_l`` exceeds the sum of
    the kept coefficients by at most ``D`` (where the passing queries outnumber ``c`` by far,
    only a few dozen coefficients are kept).  The probability cannot grow with ``i``: once it
    is at most ``negligible`` every later one lies in ``[0, that value]``, and the sweep stops
    there.

    Only the first ``limit`` queries are swept (default: all).

    Returns
    -------
    (list, arb)
        The probabilities up to the stop, and the ball ``[0, value at the stop]`` holding all
        the later ones (``0`` if the sweep never stops before the limit)."""
    n = len(positions) if limit is None else limit
    result = [arb(1)] * min(c, n)
    if c >= n:
        return result, arb(0)
    budget = negligible * arb(2) ** -30
    factors = [None] * len(passes)  # F_k + S_k x of the distinct answers, as they are needed
    kept = _truncated_product(_linear([passes[k] for k in positions[:c]],
                                      [fails[k] for k in positions[:c]]), c)
    low, left_out = 0, arb(0)  # kept[m] = p_{low+m}; left_out ≥ the mass not kept
    total = kept(arb(1))  # C_0
    for start in range(c, n, BLOCK):
        while low < c - BLOCK:
            more = left_out + kept[0]
            if not more.upper() <= budget:
                break
            kept, low, left_out = kept.right_shift(1), low + 1, arb(more.upper())
        missing = arb(0, left_out.upper())
        cumulative = [total]  # C_0, C_1, …: the top coefficients taken off
        for l in range(1, BLOCK + 1):
            cumulative.append(cumulative[-1] - kept[c - l - low] if c - l > low else missing)
        # Σ_l [x^l]Q_t·C_l is the coefficient of degree BLOCK of Q_t·Σ_l C_l x^{BLOCK−l}
        weighted, local = arb_poly(cumulative[::-1]), arb_poly([1])  # the latter Q_t
        for k in positions[start:min(n, start + BLOCK)]:
            fewer = weighted[BLOCK]
            if fewer <= negligible:
                return result, arb(0, fewer.upper())
            result.append(fewer)
            factor = factors[k]
            if factor is None:
                factor = factors[k] = arb_poly([fails[k], passes[k]])
            weighted *= factor
            local *= factor
        kept, total = (kept * local).truncate(c - low), weighted[BLOCK]
    return result, arb(0)


def _merged_cuts(laws: _PassProbabilities, c: int, negligible: arb) -> tuple:
    """The cuts of the given-order integrals with the kinks that matter to no integrand left
    out, and for each piece ``(j, h)``: the integrands ``i ≥ j`` are not integrated there but
    bounded, ``Pr[fewer than c of the queries before i pass | z] ≤ h`` on the piece.

    A kink of the query noise at an answer whose first query is ``j`` touches only the
    integrands ``i ≥ j``, each at most ``p_ρ(z)·Pr[fewer than c of the first j pass | z]``; that
    probability grows with ``z``, so if its Chernoff bound (:func:`_fewer_than_bound`) at the
    right end of the piece is at most ``negligible``, the kink may lie inside the piece: the
    integrands before ``j`` are analytic there, and the others integrate to at most the piece's
    probability times the bound.  From the right, each kink is left out when that holds at the
    end of the piece it falls in (``j`` the least first query of the kinks left out, ``h`` the
    largest bound); the ends and the threshold noise's kinks stay."""
    n = len(laws.positions)
    first = {}
    for i, k in enumerate(laws.positions):
        first.setdefault(k, i)
    owner = {}  # a kink of the query noise → the first query of the answers having it there
    for k, q in enumerate(laws.distinct):
        for kink in laws.noise.kink_points():
            point = q - laws.threshold + kink
            owner[point] = min(owner.get(point, n), first[k])
    for point in laws.hub.kink_points():
        owner[point] = -1  # kept
    wanted = sorted({owner[x] for x in laws.cuts[1:-1] if owner.get(x, -1) >= 0})
    counts_before, running, i = {}, [0] * len(laws.distinct), 0  # counts among the first j
    for j in wanted:
        for k in laws.positions[i:j]:
            running[k] += 1
        counts_before[j], i = list(running), j
    kept, limits = [laws.cuts[-1]], []
    least, largest = n, arb(0)

    @functools.lru_cache(maxsize=1)  # the same right end for every kink left out before it
    def at(right: Fraction) -> tuple:
        return laws.distinct_values(to_arb(right), right)[1:]

    for point in reversed(laws.cuts[1:-1]):
        j = owner.get(point, -1)
        if j >= 0:
            passes, fails = at(kept[-1])
            bound = _fewer_than_bound(passes, fails, counts_before[j], c)
            if bound <= negligible:
                least, largest = min(least, j), max(largest, arb(bound.upper()))
                continue
        limits.append((least, largest))
        kept.append(point)
        least, largest = n, arb(0)
    limits.append((least, largest))
    kept.append(laws.cuts[0])
    return kept[::-1], limits[::-1]


def _fewer_random(passes: list, fails: list, counts: list, c: int, tolerance: arb,
                  log_generating=None) -> list:
    """``E[min(1, c/(M_k + 1))]`` for each distinct answer ``k`` (``counts[k]`` queries have it),
    ``M_k`` the number of the other queries that pass (the probability that a query with answer
    ``k``, if it passes, is among the first ``c`` passing queries of a uniformly random order;
    docs/mathematics.md §12.2), as
    ``Σ_{m<c} (1 − c/(m + 1)) Pr[M_k = m] + c·∫_0^1 Π_{j≠i}(F_j + S_j t) dt``
    (``E[1/(M + 1)] = ∫_0^1 E[t^M] dt``): the first term by the truncated generating
    polynomial, the second by :func:`_mean_reciprocal` within ``tolerance/(8c)`` (given
    ``log_generating``, if any)."""
    corrections = [1 - arb(c) / (m + 1) for m in range(c)]
    head = _weighted_others(passes, fails, counts, corrections, tolerance / 16)
    tail = _mean_reciprocal(passes, fails, counts, tolerance / (8 * c), log_generating)
    return [h + c * t for h, t in zip(head, tail)]


#: Bernstein ellipse parameters tried for the integral over ``t`` in :func:`_mean_reciprocal`.
T_RHOS = (Fraction(4), Fraction(2), Fraction(3, 2), Fraction(5, 4), Fraction(9, 8))


def _mean_reciprocal(passes: list, fails: list, counts: list, target: arb,
                     log_generating=None) -> list:
    """``∫_0^1 G(t)/(F_k + S_k t) dt`` for each distinct answer ``k``, with
    ``G(t) = Π_j (F_j + S_j t)^{n_j}`` (``n_j = counts[j]`` queries share the answer ``j``; real
    balls ``F_j, S_j ≥ 0``, ``F_j + S_j = 1``): the integral of ``Π`` over the other queries.

    Each factor ``F_j + S_j t`` increases with ``t`` and is at least ``t``, so on ``[0, t_0]`` the
    leave-one-out product is at most ``G(t_0)/t_0`` and its integral at most ``G(t_0)``; where
    many queries pass (``μ = Σ_j n_j S_j`` large) ``G(t) ≤ e^{−μ(1−t)}`` is negligible away from
    ``t = 1``, and ``t_0 = 1 − ln(8/target)/μ`` (kept when ``G(t_0) ≤ target/4``) leaves the rule
    a short interval.  On ``[t_0, 1]`` (half-width ``h``) the integrand is a polynomial of
    degree ``n − 1``: ``K = ⌈n/2⌉`` Gauss–Legendre nodes integrate it exactly; fewer suffice when
    the bound ``h·(64/15)·M·ρ^{2−2K}/(ρ² − 1)`` (``gauss_legendre.py``) is below ``target/2``,
    with ``M = Π_j (F_j + S_j R)^{n_j}`` bounding it on the ellipse ``E_ρ`` of the interval,
    whose points have ``|t| ≤ R = (1 + t_0)/2 + h(ρ + ρ^{−1})/2`` (each factor ``≥ 1`` there,
    so the whole product bounds every leave-one-out product).

    The rule's sum costs ``O(K·d)`` for ``d`` distinct answers (:func:`_reciprocal_sums`), or,
    where ``t_0 > 0`` and ``max_j S_j·(1 − t_0) ≤ 1/2``, ``O(d)`` operations per term of two
    series: of ``log G`` (:func:`_log_generating`, which also gives ``M``) and of the sum
    (:func:`_reciprocal_series`); ``log_generating(reach, budget)`` gives the former
    (default: :func:`_log_generating`; from closed forms,
    :meth:`_PassProbabilities.log_generating`)."""
    n = sum(counts)
    if log_generating is None:
        log_generating = functools.partial(_log_generating, passes, counts)
    start = _negligible_start(passes, counts, target / 4)
    series = log_generating(1 - start, target / 64) if start > 0 else None

    def generating(x):
        """``G(x)``, from the series of its logarithm where there is one."""
        if series is None:
            return _generating_value(passes, fails, counts, x)
        logarithm, rest = series
        return (logarithm(1 - x) + arb(0, rest.upper())).exp()

    dropped = arb(generating(start).upper()) if start > 0 else arb(0)
    if not dropped <= target / 4:
        start, series, dropped = arb(0), None, arb(0)

    middle, half = (1 + start) / 2, (1 - start) / 2
    order, error = max(1, -(-n // 2)), arb(0)
    for rho in T_RHOS:
        rho_ball = to_arb(rho)
        reach = middle + half * (rho_ball + 1 / rho_ball) / 2
        needed, bound = fewest_nodes(generating(reach), rho_ball, half, target / 2)
        if needed < order and bound.is_finite():
            order, error = needed, bound
    rule = [(middle + half * node, weight) for node, weight in legendre_rule(order, ctx.prec)]
    totals = None
    if series is not None:
        totals = _reciprocal_series(passes, [(t, weight * generating(t)) for t, weight in rule],
                                    1 - start, target / 16)
    if totals is None:
        totals = _reciprocal_sums(passes, fails, counts, rule)
    radius = arb(0, (error + dropped).upper())
    return [half * total + radius for total in totals]


def _reciprocal_sums(passes: list, fails: list, counts: list, rule: list) -> list:
    """``Σ_l w_l G(t_l)/(F_k + S_k t_l)`` for each ``k``, over the rule's nodes and weights
    ``(t_l, w_l)``, ``G`` computed at each node (each factor is ``> 0`` at the nodes, so the
    division keeps the relative accuracy)."""
    totals = [arb(0)] * len(counts)
    for t, weight in rule:
        factors = [f + s * t for s, f in zip(passes, fails)]
        product = arb(1)
        for factor, count in zip(factors, counts):
            product *= factor ** count
        product *= weight
        totals = [total + product / factor for total, factor in zip(totals, factors)]
    return totals


#: Most terms of the series in :func:`_log_generating` and :func:`_reciprocal_series`.
MAX_SERIES_TERMS = 60


def _reciprocal_series(passes: list, weighted: list, reach: arb, target: arb) -> list:
    """:func:`_reciprocal_sums` from the weighted values ``(t_l, w_l G(t_l))`` (all ``≥ 0``),
    for ``1 − t_l ≤ reach`` and ``max_j S_j·reach ≤ 1/2``: with ``s_l = 1 − t_l`` each
    ``F_k + S_k t_l = 1 − S_k s_l``, and

        Σ_l w_l G(t_l)/(1 − S_k s_l) = Σ_{r<R} S_k^r μ_r + E_k,   μ_r = Σ_l w_l G(t_l) s_l^r,
        0 ≤ E_k = Σ_l w_l G(t_l) (S_k s_l)^R/(1 − S_k s_l) ≤ S^R μ_R/(1 − S·reach)

    (``S = max_j S_j``): the moments once, then one polynomial of degree ``R − 1`` evaluated at
    each ``S_k``, ``R`` the fewest terms whose bound is within ``target`` (``None`` beyond
    :data:`MAX_SERIES_TERMS`)."""
    top = max(arb(s.upper()) for s in passes)
    shrink = 1 - top * reach
    gaps = [1 - t for t, _ in weighted]
    terms_at_nodes = [value for _, value in weighted]  # w_l G(t_l) s_l^r, r = 0 first
    moments = []
    for terms in range(MAX_SERIES_TERMS):
        moment = sum(terms_at_nodes, arb(0))
        rest = top ** terms * moment / shrink
        if rest <= target:
            series = arb_poly(moments)
            radius = arb(0, rest.upper())
            return [series(s) + radius for s in passes]
        moments.append(moment)
        terms_at_nodes = [term * gap for term, gap in zip(terms_at_nodes, gaps)]
    return None


def _log_generating(passes: list, counts: list, reach: arb, budget: arb):
    """``(L, E)``: the polynomial ``L(s) = −Σ_{m≤M} P_m s^m/m``, ``P_m = Σ_j n_j S_j^m``, and a
    bound ``E ≤ budget`` with ``|log G(1 − s) − L(s)| ≤ E`` for every real ``|s| ≤ reach``, where
    ``log G(1 − s) = Σ_j n_j log(1 − S_j s) = −Σ_m P_m s^m/m``; since ``P_k ≤ S^{k−m} P_m`` for
    ``k > m`` (``S = max_j S_j``) the terms after ``M`` are at most
    ``P_M·S·reach^{M+1}/((M + 1)(1 − S·reach))``.  ``None`` unless ``S·reach ≤ 1/2`` and
    :data:`MAX_SERIES_TERMS` terms suffice."""
    top = max(arb(s.upper()) for s in passes)
    ratio = top * reach
    if not ratio <= arb(1) / 2:
        return None
    powers = list(passes)
    coefficients = [arb(0)]
    for m in range(1, MAX_SERIES_TERMS + 1):
        total = sum((count * power for count, power in zip(counts, powers)), arb(0))
        coefficients.append(-total / m)
        rest = total * top * reach ** (m + 1) / ((m + 1) * (1 - ratio))
        if rest <= budget:
            return arb_poly(coefficients), rest
        powers = [power * s for power, s in zip(powers, passes)]
    return None


def _negligible_start(passes: list, counts: list, budget: arb) -> arb:
    """The left end ``t_0`` of the interval :func:`_mean_reciprocal` integrates, if ``G(t_0)``
    may be at most ``budget``: ``t_0 = 1 − ln(2/budget)/μ`` (``G(t_0) ≤ e^{−μ(1−t_0)}``, ``μ``
    the mean number of passing queries), rounded down to a multiple of ``2^{−20}``; else 0."""
    mean = _mean_passes(passes, counts)
    reach = math.log(2 / float(budget.mid())) / mean if mean > 0 else math.inf
    if not reach < 1:
        return arb(0)
    return arb(math.floor((1 - reach) * 2 ** 20)) / 2 ** 20


# --- the exponential mechanism, top c by Gumbel noise ------------------------------------------

def _exponential_top(mech: ExponentialTopMechanism, values: list, c: int, tolerance: arb,
                     progress, jobs: int) -> list:
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

    def at_right_end(a: Fraction, b: Fraction) -> tuple:
        _, below, above = laws(to_arb(b))
        return above, below, arb(1)  # ∫ g(x − q) dx ≤ 1 on any piece

    def at_left_end(a: Fraction, b: Fraction) -> tuple:
        _, below, above = laws(to_arb(a))
        return above, below, arb(1)

    pieces = list(zip(cuts, cuts[1:]))
    # the integrand is at most Pr[fewer than c others exceed x], which increases with x
    split, dropped = _negligible_pieces(pieces, at_right_end, _fewer_than_bound, counts, c,
                                        tolerance / 8)
    # where Pr[at least c others exceed x] (decreasing) is negligible the integrand is the
    # density alone: its integral in closed form, less at most that probability
    closed, missed = _negligible_pieces(pieces[split:][::-1], at_left_end, _at_least_bound,
                                        counts, c, tolerance / 8)
    end = len(cuts) - 1 - closed

    def evaluate(x, _middle):
        densities, below, above = laws(x)
        fewer = _weighted_others(above, below, counts, [arb(1)] * c, tolerance / 16)
        return [density * f for density, f in zip(densities, fewer)]

    def bound(x, _middle):
        densities, below, above = laws(x)
        return _largest(densities) * _product_bound(above, below, counts)

    if split == end:
        results = [arb(0, tails.upper())] * len(distinct)
    else:
        results = integrate_vector(evaluate, bound, cuts[split:end + 1], tails, tolerance / 2,
                                   progress, EVALUATION_COST, jobs=jobs)
    if end < len(cuts) - 1:
        start, stop = to_arb(cuts[end]), to_arb(cuts[-1])
        results = [r + below_of.value(stop - shift) - below_of.value(start - shift)
                   for r, shift in zip(results, shifts)]
    radius = arb(0, (dropped + missed).upper())
    return [results[k] + radius for k in positions]


def _linear(passes: list, fails: list) -> list:
    """The polynomials ``F_j + S_j y``."""
    return [arb_poly([f, s]) for s, f in zip(passes, fails)]


def _weighted_others(passes: list, fails: list, counts: list, weights: list,
                     target: arb) -> list:
    """:func:`_weighted_sums` for real pass probabilities, the terms of degree ``H`` and above
    left out where they are provably negligible: the coefficients of ``G/(F_k + S_k y)`` are
    ``Pr[M_k = m] ≥ 0`` (``M_k`` the number of the other queries that pass), so those terms are
    at most ``max_m |w_m|·Pr[M_k ≥ H] ≤ max_m |w_m|·Pr[M ≥ H]``, bounded by Markov's inequality
    (:func:`_at_least_bound`); where :func:`_negligible_degree` finds an ``H < c`` whose bound
    is within ``target/2``, the sums are taken to degree ``H`` (products of polynomials of
    length ``H`` instead of ``c``: where few queries pass, far shorter), and that bound is added
    to each."""
    largest = _largest(weights)
    cut = _negligible_degree(passes, fails, counts, len(weights), target / (2 * largest))
    if cut is None:
        return _weighted_sums(passes, fails, counts, weights, target)
    degree, mass = cut
    radius = arb(0, (largest * mass).upper())
    return [value + radius
            for value in _weighted_sums(passes, fails, counts, weights[:degree], target / 2)]


def _negligible_degree(passes: list, fails: list, counts: list, c: int, budget: arb):
    """``(H, E)``: a degree ``H < c`` with ``Pr[at least H of the queries pass] ≤ E ≤ budget``
    (:func:`_at_least_bound`), or ``None`` if none is found.  ``H = μ + t`` is first placed by
    Bernstein's inequality for a sum of independent Bernoulli variables with mean ``μ`` (so
    variance at most ``μ``), ``Pr[M ≥ μ + t] ≤ e^{−t²/(2(μ + t/3))}``, at
    ``t = L/3 + √(L²/9 + 2μL)``, ``L = ln(1/budget)``; it only places ``H``, which is raised by a
    quarter until the rigorous bound holds."""
    if not budget > 0:
        return None
    mean = _mean_passes(passes, counts)
    logarithm = -float(arb(budget.mid()).log().mid())
    degree = math.ceil(mean + logarithm / 3 + math.sqrt(logarithm ** 2 / 9 + 2 * mean * logarithm))
    while degree < c:
        bound = _at_least_bound(passes, fails, counts, degree)
        if bound <= budget:
            return degree, arb(bound.upper())
        degree += max(1, degree // 4)
    return None


def _weighted_sums(passes: list, fails: list, counts: list, weights: list,
                   target: arb) -> list:
    """``Σ_{m<c} w_m [y^m] G(y)/(F_k + S_k y)`` for each distinct answer ``k``, with
    ``G(y) = Π_j (F_j + S_j y)^{n_j}`` (``n_j = counts[j]`` queries share the answer ``j``): the
    weighted first ``c`` terms of the distribution of the number of the other queries that pass.

    ``G/(F_k + S_k y)`` is a polynomial, equal to its power series
    ``G(y)·Σ_r (−S_k/F_k)^r y^r/F_k``, so with ``G``'s coefficients ``g_l`` and
    ``u_r = Σ_{l<c−r} g_l w_{l+r}`` (one correlation of ``G`` truncated at degree ``c``)

        Σ_{m<c} w_m [y^m] G/(F_k + S_k y) = U(−S_k/F_k)/F_k,    U(x) = Σ_{r<c} u_r x^r,

    one polynomial evaluated at each group's ratio (docs/mathematics.md §12.2).  Where
    ``S_k > F_k`` the terms of ``U`` may grow far beyond its value and the ball loses its
    accuracy: a group whose ball is wider than ``target`` is computed by the sweep of
    :func:`_weighted_around` instead, among those groups only, the others folded into the
    weights (the product of the groups with ``S_k ≤ 1/2``, which keep their accuracy, is
    formed once for both)."""
    c = len(weights)
    groups = [_truncated_power(f, s, count, c) for s, f, count in zip(passes, fails, counts)]
    # the groups likelier to pass than to fail, where the evaluation may lose accuracy
    likely = [k for k, s in enumerate(passes) if s.mid() > 0.5]
    likely_set = set(likely)
    unlikely = _truncated_product([g for k, g in enumerate(groups) if k not in likely_set], c)
    total = (unlikely * _truncated_product([groups[k] for k in likely], c)).truncate(c)
    functional = _correlate(arb_poly(weights), total, c)
    values = [functional(-s / f) / f for s, f in zip(passes, fails)]
    wide = [k for k, value in enumerate(values)
            if not (value.is_finite() and value.rad() <= target)]
    if wide:
        wide_set = set(wide)
        if wide_set <= likely_set:
            rest = _truncated_product([unlikely] + [groups[k] for k in likely
                                                    if k not in wide_set], c)
        else:
            rest = _truncated_product([g for k, g in enumerate(groups) if k not in wide_set], c)
        folded = _correlate(arb_poly(weights), rest, c).coeffs()
        folded += [arb(0)] * (c - len(folded))
        own = [_truncated_power(fails[k], passes[k], counts[k] - 1, c) for k in wide]
        chosen = [groups[k] for k in wide]
        for k, value in zip(wide, _weighted_around(chosen, chosen, folded, own)):
            values[k] = value
    return values


#: Group sizes above which :func:`_truncated_power` takes the binomial terms one by one.
BINOMIAL_FROM = 128


def _truncated_power(fail: arb, passes: arb, count: int, c: int) -> arb_poly:
    """``(F + S y)^n`` truncated at degree ``c``.  For ``n`` above :data:`BINOMIAL_FROM` and
    ``F > 0``, its terms ``C(n, m) F^{n−m} S^m`` for ``m < c``, each from the one before by the
    factor ``(S/F)(n − m)/(m + 1)`` (all ``≥ 0``: no cancellation), instead of the full power of
    degree ``n`` (Arb's power of a long binomial costs a millisecond at ``n`` = 1000)."""
    if count <= BINOMIAL_FROM or not fail > 0:
        return (arb_poly([fail, passes]) ** count).truncate(c)
    ratio = passes / fail
    term = fail ** count
    terms = [term]
    for m in range(min(count, c - 1)):
        term = term * ratio * (count - m) / (m + 1)
        terms.append(term)
    return arb_poly(terms)


def _truncated_product(polynomials: list, c: int) -> arb_poly:
    """The product of the polynomials truncated at degree ``c`` (pairwise, so that most
    products are of short polynomials)."""
    layer = list(polynomials) or [arb_poly([1])]
    while len(layer) > 1:
        layer = [(layer[k] * layer[k + 1]).truncate(c) if k + 1 < len(layer) else layer[k]
                 for k in range(0, len(layer), 2)]
    return layer[0].truncate(c)


def _weighted_around(before: list, after: list, weights: list, own: list | None = None) -> list:
    """``Σ_{m<c} w_m [y^m] Π_{j<i} A_j(y)·O_i(y)·Π_{j>i} B_j(y)`` for each ``i``
    (``A = before``, ``B = after``, ``O = own`` or 1: polynomials with real-ball coefficients),
    ``c = len(weights)``: with the prefix ``Π_{j<i} A_j`` truncated at degree ``c`` and the
    functional ``u^{(i)}_k = Σ_l [y^l]Π_{j>i} B_j·w_{k+l}`` (``w_m = 0`` for ``m ≥ c``), it is
    ``Σ_{k<c} [y^k](Π_{j<i} A_j·O_i)·u^{(i)}_k``, and ``u^{(i−1)}_k = Σ_l [y^l]B_i·u^{(i)}_{k+l}``
    (:func:`_correlate`).  For linear factors this is ``O(n·c)``."""
    n, c = len(before), len(weights)
    functional = [None] * n
    current = arb_poly(weights)
    for i in range(n - 1, -1, -1):
        functional[i] = current.coeffs()
        current = _correlate(current, after[i], c)
    result, prefix = [], arb_poly([1])
    for i in range(n):
        left = prefix if own is None else (prefix * own[i]).truncate(c)
        result.append(sum((a * u for a, u in zip(left.coeffs(), functional[i])), arb(0)))
        prefix = (prefix * before[i]).truncate(c)
    return result


def _correlate(functional: arb_poly, factor: arb_poly, c: int) -> arb_poly:
    """``Σ_l p_l u_{k+l}`` for ``k < c`` (``u`` the functional's coefficients, ``p`` the
    factor's): the coefficients ``L … L + c − 1`` of ``u(y)·y^L p(1/y)``, ``L = deg p``."""
    coefficients = factor.coeffs()
    degree = len(coefficients) - 1
    return (functional * arb_poly(coefficients[::-1])).right_shift(degree).truncate(c)


# --- Sparse Vector with retraversal ------------------------------------------------------------

def _retraversal(mech: RetraversalMechanism, values: list, c: int, tolerance: arb,
                 progress, arithmetic, jobs: int) -> list:
    """Given the threshold noise ``z``, query ``i`` first passes in traversal ``R_i``
    (geometric: ``Pr[R_i = r] = S_i F_i^{r−1}``), independently; it is selected iff fewer than
    ``c`` others come before ``(R_i, i)`` in the order of traversals then positions:
    ``P[i | z] = Σ_r S_i F_i^{r−1} Q_{i,r}``, ``Q_{i,r} = Pr[fewer than c of {j < i: R_j ≤ r}
    ∪ {j > i: R_j ≤ r − 1}]``.  The threshold noise's range is cut into cells; on cell ``k`` the
    first ``R_k`` traversals are integrated and the rest, at most ``F_i^{R_k}·Q_{i,R_k+1}``
    (increasing in ``z``), are bounded (:func:`_traversals_per_cell`; docs/mathematics.md
    §12.4): few traversals where queries often pass, many only where the threshold noise is
    likely enough to need them.  The traversals are computed in chunks, each a recurrence over
    the queries vectorised over its traversals (:func:`_traversal_chunk`), in ``arithmetic``
    (``exact/interval_arrays.py``)."""
    hub = mech.threshold_noise
    laws = _PassProbabilities(hub, mech.query_noise, mech.threshold, values, tolerance)
    grid = _grid(laws.cuts, hub.scale)
    masses, fails_at_ends = [], []
    for a, b in zip(grid, grid[1:]):
        masses.append(laws.hub_mass(a, b))
        fails_at_ends.append(laws(to_arb(b), (a + b) / 2)[2])
    searched = None if progress is None else (
        lambda done: progress(0, note=f"traversals modelled: {done}"))
    per_cell, remainder = _traversals_per_cell(arithmetic, fails_at_ends, masses, c,
                                               tolerance / 8, searched)

    def traversals_at(middle: Fraction) -> int:
        return per_cell[bisect.bisect_right(grid, middle) - 1]

    def evaluate(z, middle):
        density, _, fails = laws(z, middle)
        fails = arithmetic.lift(fails)
        passing = arithmetic.one_minus(fails)
        total = arithmetic.constant(0, (len(values),))
        earliest = arithmetic.constant(1, (len(values),))  # F^{r−1} at the chunk's first r
        sizes = _chunk_sizes(traversals_at(middle), len(values), c)
        table = _powers(arithmetic, fails, max(sizes, default=0) + 1)
        for size in sizes:
            earlier, fewer, earliest = _traversal_chunk(arithmetic, table, earliest, size, c)
            weights = arithmetic.mul(passing[..., None], earlier)  # S_i F_i^{r−1}
            total = arithmetic.add(total, arithmetic.total(arithmetic.mul(weights, fewer), -1))
        return [density * p for p in arithmetic.balls(total)]

    def bound(z, middle):
        density, passes, fails = laws.distinct_values(z, middle)
        return abs(density) * _traversal_bound(arithmetic, passes, fails, laws.counts,
                                               traversals_at(middle))

    results = integrate_vector(evaluate, bound, grid, laws.tails, tolerance, progress,
                               EVALUATION_COST, jobs=jobs)
    return [p + arb(0, remainder.upper()) for p in results]


#: Most traversals computed in one vectorised chunk (:func:`_traversal_chunk`), and most
#: entries of its largest array (the functionals: queries × c × traversals, 16 bytes each in
#: double intervals), which bounds its memory.
TRAVERSAL_CHUNK = 512
CHUNK_ENTRIES = 4_000_000
#: The first chunk of the search for the traversals each cell needs
#: (:func:`_traversals_per_cell`); the chunks double from there up to the largest.
FIRST_SEARCH_CHUNK = 16


def _largest_chunk(n: int, c: int) -> int:
    """The most traversals per chunk for ``n`` queries and cutoff ``c``."""
    return max(1, min(TRAVERSAL_CHUNK, CHUNK_ENTRIES // (n * c)))


def _chunk_sizes(traversals: int, n: int, c: int) -> list:
    """``traversals`` split into chunks of at most :func:`_largest_chunk` traversals."""
    full, rest = divmod(traversals, _largest_chunk(n, c))
    return [_largest_chunk(n, c)] * full + ([rest] if rest else [])


def _powers(arithmetic, bases, count: int):
    """``bases^k`` for ``k = 0 … count − 1`` (shape ``(len(bases), count)``), by doubling."""
    table = np.concatenate((arithmetic.constant(1, (bases.shape[-1], 1)), bases[..., None]),
                           axis=-1)
    while table.shape[-1] < count:
        top = arithmetic.mul(table[..., -1:], bases[..., None])  # bases^{columns}
        table = np.concatenate((table, arithmetic.mul(table, top)), axis=-1)
    return table[..., :count]


def _traversal_chunk(arithmetic, table, earliest, size: int, c: int) -> tuple:
    """For the ``size`` traversals ``r`` from the one where ``F_i^{r−1}`` is ``earliest``: the
    arrays ``F_i^{r−1}`` and ``Q_{i,r}`` (:func:`_retraversal`), shape ``(n, size)``, and
    ``F_i^{r−1}`` for the traversal after the chunk (``table``: ``F_i^k`` for ``k = 0 …`` at
    least ``size``, :func:`_powers`).  ``Q`` follows the recurrences of
    :func:`_weighted_around` over the queries (the prefix ``Π_{j<i}(F_j^r + (1 − F_j^r)y)``
    truncated at degree ``c``, and the functional ``u_k = Pr[fewer than c − k of the queries
    after i passed by traversal r − 1]``), each step one operation on the whole chunk."""
    earlier = arithmetic.mul(earliest[..., None], table[..., :size])  # F^{r−1}
    later = arithmetic.mul(earliest[..., None], table[..., 1:size + 1])  # F^r
    return earlier, _fewer_in_traversal(arithmetic, earlier, later, c), later[..., -1].copy()


def _fewer_in_traversal(arithmetic, earlier, later, c: int):
    """``Q_{i,r}`` for every traversal of a chunk (:func:`_traversal_chunk`): the prefix and
    the functional are arrays of shape ``(c, chunk)``."""
    n, size = earlier.shape[-2:]
    passed_earlier, passed_later = arithmetic.one_minus(earlier), arithmetic.one_minus(later)
    zero = arithmetic.constant(0, (1, size))
    functional, functionals = arithmetic.constant(1, (c, size)), [None] * n
    for i in range(n - 1, -1, -1):
        functionals[i] = functional
        shifted = np.concatenate((functional[..., 1:, :], zero), axis=-2)
        functional = arithmetic.mul_add(earlier[..., i, None, :], functional,
                                        passed_earlier[..., i, None, :], shifted)
    prefix = np.concatenate((arithmetic.constant(1, (1, size)),
                             arithmetic.constant(0, (c - 1, size))), axis=-2)
    fewer = []
    for i in range(n):
        fewer.append(arithmetic.dot(prefix, functionals[i]))
        shifted = np.concatenate((zero, prefix[..., :-1, :]), axis=-2)
        prefix = arithmetic.mul_add(later[..., i, None, :], prefix, passed_later[..., i, None, :],
                                    shifted)
    return np.stack(fewer, axis=-2)


@np.errstate(over="ignore", invalid="ignore")
def _traversal_bound(arithmetic, passes: list, fails: list, counts: list,
                     traversals: int) -> arb:
    """A bound on every ``|Σ_{r≤R} S_i F_i^{r−1} Q_{i,r}|`` on complex balls (``R`` =
    ``traversals``; ``passes``, ``fails`` of the distinct answers, ``counts`` their
    multiplicities).  With ``a_j ≥ |F_j|``, ``s_j ≥ |S_j|``: ``|S_i F_i^{r−1}| ≤ s_i a_i^{r−1}``
    and the coefficients of ``Q``'s factors sum to at most
    ``f_j(r) = a_j^r + s_j Σ_{k<r} a_j^k`` (``1 − F^r = S·Σ_{k<r} F^k``), so the sum is at most
    ``Σ_r max_i s_i a_i^{r−1} Π_j f_j(r)^{n_j}``.  Each ``f_j`` is nondecreasing in ``r``
    (``f_j(r + 1) − f_j(r) = a_j^r (a_j + s_j − 1) ≥ 0``, as ``|F_j| + |S_j| ≥ |F_j + S_j| = 1``)
    and each ``a_i^{r−1}`` monotone, so on a block ``p ≤ r ≤ p'`` of traversals the terms are at
    most ``max_i s_i max(a_i^{p−1}, a_i^{p'−1})·Π_j f_j(p')^{n_j}``: the bound sums that times
    the block's length over at most :data:`BOUND_BLOCKS` blocks (every traversal its own block
    up to the first :data:`BOUND_BLOCKS`/2, then geometrically growing ones; fewer where the
    distinct answers times the blocks would exceed :data:`CHUNK_ENTRIES`).  Off the real
    line ``a_j`` may exceed 1 and the powers overflow double precision: their upper ends become
    ``+inf`` (the bound is then infinite, that ellipse unusable) and lower ends may become NaN
    (``0·inf``); only upper ends enter the bound."""
    if traversals == 0:
        return arb(0)
    sizes = arithmetic.lift([arb(abs(f).upper()) for f in fails])
    passing = arithmetic.lift([arb(abs(s).upper()) for s in passes])
    half = max(1, min(BOUND_BLOCKS, CHUNK_ENTRIES // len(fails)) // 2)
    points = np.unique(np.concatenate((
        np.arange(1, min(traversals, half) + 1),
        np.geomspace(min(traversals, half), traversals, half).round().astype(int),
        [traversals])))
    # blocks [points[k], points[k + 1]] (one block [1, 1] for a single traversal)
    left = np.arange(max(1, len(points) - 1))
    right = np.minimum(left + 1, len(points) - 1)
    powers, sums = _geometric_at(arithmetic, sizes, points - 1)  # a^{p−1}, Σ_{k<p−1} a^k
    at_points = arithmetic.mul(passing[..., None], powers)  # s_i a_i^{p−1}
    largest = np.maximum(arithmetic.largest(at_points[..., left], -2),
                         arithmetic.largest(at_points[..., right], -2))
    # f_j(p') = a^{p'} + s Σ_{k<p'} a^k, from a^{p'−1} and Σ_{k<p'−1} a^k
    ends = arithmetic.mul_add(powers[..., right], sizes[..., None], passing[..., None],
                              arithmetic.add(sums[..., right], powers[..., right]))
    lengths = (points[right] - points[left] + 1).astype(float)
    product = arithmetic.mul(arithmetic.from_upper(largest), arithmetic.from_upper(lengths))
    for j, count in enumerate(counts):
        product = arithmetic.mul(product, _integer_power(arithmetic, ends[..., j, :], count))
    return arithmetic.upper(arithmetic.total(product, -1))


#: Blocks of traversals of :func:`_traversal_bound`.
BOUND_BLOCKS = 512


def _geometric_at(arithmetic, bases, exponents: np.ndarray) -> tuple:
    """``(bases^p, Σ_{k<p} bases^k)`` for each ``p`` of ``exponents`` (shape
    ``(len(bases), len(exponents))``), by binary powering: ``(x^m, G(m))`` and ``(x^l, G(l))``
    combine to ``(x^{m+l}, G(m) + x^m G(l))``."""
    shape = (bases.shape[-1], len(exponents))
    power, total = arithmetic.constant(1, shape), arithmetic.constant(0, shape)
    step_power, step_total = bases[..., None], arithmetic.constant(1, (shape[0], 1))
    for bit in range(int(exponents.max()).bit_length()):
        chosen = ((exponents >> bit) & 1).astype(bool)
        total = np.where(chosen, arithmetic.add(total, arithmetic.mul(power, step_total)), total)
        power = np.where(chosen, arithmetic.mul(power, step_power), power)
        step_total = arithmetic.add(step_total, arithmetic.mul(step_power, step_total))
        step_power = arithmetic.mul(step_power, step_power)
    return power, total


def _integer_power(arithmetic, x, exponent: int):
    """``x^exponent`` elementwise, by repeated squaring."""
    result = None
    while exponent:
        if exponent & 1:
            result = x if result is None else arithmetic.mul(result, x)
        exponent >>= 1
        if exponent:
            x = arithmetic.mul(x, x)
    return result


def _grid(cuts: list, scale: Fraction) -> list:
    """The cut points, with points added so that no cell is wider than ``scale``."""
    grid = [cuts[0]]
    for a, b in zip(cuts, cuts[1:]):
        steps = max(1, math.ceil((b - a) / scale))
        grid.extend(a + (b - a) * Fraction(k, steps) for k in range(1, steps + 1))
    return grid


def _traversals_per_cell(arithmetic, fails: list, masses: list, c: int, target: arb,
                         searched=None) -> tuple:
    """For each cell of the threshold noise's range the number of traversals ``R_k`` to
    integrate, and a bound (at most ``target``) on the dropped terms for every ``i``.  On cell
    ``k`` they are at most ``F_i^R·Q_{i,R+1}`` at the cell's right end (both increase with
    ``z``), times the cell's probability (``fails[k]``: the ``F_i`` at the right end of cell
    ``k``, ``masses[k]`` an upper bound on its probability); with no traversal at all
    (``R_k = 0``) they are at most the cell's probability.  A cell stops as soon as its bound is
    within an equal share of half of ``target`` (the central cells, where queries often pass,
    after a few traversals; the far ones, if unlikely enough, at once); every cell still going
    stops at the first ``R`` where all the bounds together are within ``target``.  The bounds
    come in chunks of traversals (:func:`_dropped_bounds`), in ``arithmetic``.
    ``searched``, if given, is called with each number of traversals modelled."""
    share = target / (2 * len(fails))
    per_cell, total = [None] * len(fails), arb(0)
    for k, mass in enumerate(masses):
        if mass <= share:
            per_cell[k], total = 0, total + arb(mass.upper())
    active = [k for k in range(len(fails)) if per_cell[k] is None]
    bounds = {k: _dropped_bounds(arithmetic, fails[k], masses[k], c) for k in active}
    probe = None  # the sum of the active cells' bounds at the last probe
    for traversals in range(1, MAX_TRAVERSALS + 1):
        if not active:
            return per_cell, total
        if searched is not None:
            searched(traversals)
        dropped = {k: next(bounds[k]) for k in active}
        going = sum(dropped.values(), arb(0))
        if total + going <= target:
            for k in active:
                per_cell[k] = traversals
            return per_cell, total + going
        for k, bound in dropped.items():
            if bound <= share:
                per_cell[k], total = traversals, total + bound
                active.remove(k)
        if traversals >= PROBE_TRAVERSALS and traversals & (traversals - 1) == 0:
            left = sum((dropped[k] for k in active), arb(0))
            if probe is not None:
                _refuse_slow_decay(probe, left, traversals, target - total)
            probe = left
    raise _too_many_traversals()


def _dropped_bounds(arithmetic, fails: list, mass: arb, c: int):
    """For ``R = 1, 2, …`` an upper bound on ``mass·max_i F_i^R·Q_{i,R+1}``
    (:func:`_traversals_per_cell`), computed in chunks of traversals doubling from
    :data:`FIRST_SEARCH_CHUNK`; between chunks only ``F_i^R`` and the powers ``F_i^k`` up to
    the chunk's size are kept (the search holds one such generator per cell)."""
    fails = arithmetic.lift(fails)
    earliest, size = fails, min(FIRST_SEARCH_CHUNK, _largest_chunk(fails.shape[-1], c))
    table = None
    while True:
        if table is None or table.shape[-1] <= size:
            table = _powers(arithmetic, fails, size + 1)
        earlier, fewer, earliest = _traversal_chunk(arithmetic, table, earliest, size, c)
        largest = arithmetic.largest(arithmetic.mul(earlier, fewer), -2)
        del earlier, fewer
        for value in largest:
            yield arb((mass * arb(float(value))).upper())
        size = min(2 * size, _largest_chunk(fails.shape[-1], c))


#: Traversals after which the decay of the dropped terms is first measured, then again at each
#: doubling (:func:`_refuse_slow_decay`); a power of 2.
PROBE_TRAVERSALS = 16


def _refuse_slow_decay(earlier: arb, later: arb, done: int, target: arb) -> None:
    """Refuse early when the dropped terms, ``earlier`` after ``done/2`` traversals and
    ``later`` after ``done``, shrink so slowly that continuing at that geometric rate
    (``later/earlier`` per ``done/2`` traversals) would need more than :data:`MAX_TRAVERSALS` in
    all, where the search stops anyway (each traversal costs a pass over every cell: without
    this the refusal comes only after minutes; the decay slows rather than speeds up as the
    cells where queries rarely pass come to dominate).  Only a refusal depends on this
    extrapolation, never a value."""
    rate = float(later.upper()) / float(earlier.upper()) if earlier > 0 else 0.0
    if not 0 < rate < 1:
        return
    remaining = done / 2 * math.log(float(target.mid()) / float(later.upper())) / math.log(rate)
    if done + remaining > MAX_TRAVERSALS:
        raise _too_many_traversals()


def _too_many_traversals() -> PrecisionError:
    return PrecisionError(f"Sparse Vector with retraversal needs more than {MAX_TRAVERSALS} "
                          f"traversals for this accuracy (the queries rarely pass; a lower "
                          f"threshold or fewer digits needs fewer)")
