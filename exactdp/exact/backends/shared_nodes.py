"""Every output of a Sparse Vector mechanism that stops at its first ⊤ (cutoff 1, threshold never
redrawn) at once, by Gauss–Legendre quadrature on nodes shared by all outputs; docs/engine.md §5.

The outputs are ``⊥ᵏ⊤`` (``k < n``) and ``⊥ⁿ``, with (``form/threshold.py``, ``s_i = q_i − T``)

    Pr[⊥ᵏ⊤] = ∫ p(z) P_k(z) S(z − s_k) dz,   P_k(z) = Π_{i<k} F(z − s_i),   Pr[⊥ⁿ] = ∫ p P_n.

Every integrand is analytic between the kinks ``0, s_1, …, s_n``, so the same pieces serve all
outputs: the kinks cut ℝ, and pieces of doubling width cut the wide gaps and reach beyond the
outermost kinks as far as any output needs (:func:`_pieces`).  Each piece gets one rule of ``N_p``
Gauss–Legendre nodes (``backends/gauss_legendre.py``), and the running products ``P_k`` at the nodes
are updated by one factor per query, so all ``n + 1`` probabilities cost one pass over the queries:
about ``n × (number of nodes) ≈ n²`` ball products (a piece no output needs any more leaves the
pass).

Error, per output and piece (``gauss_legendre.error_bound``): ``h·(64/15)·M·ρ^{2−2N}/(ρ² − 1)``
with ``M`` a bound of the integrand on the Bernstein ellipse ``E_ρ`` of the piece, for the best
``ρ`` of :data:`RHOS` (the bound holds for every ``ρ``, so each output picks its own;
``backends/node_planner.py``).  ``M`` is
the product of bounds of the factors on the ellipse (a running product over the queries, like
``P_k``): ``|e^{c + r(z − s)}| = e^{c + r(Re z − s)}`` at the end of the ellipse's real extent
and ``|1 − u e^{iφ}|² = (1 − u)² + 2u(1 − cos φ) ≤ (1 − u)² + uφ²`` (``u`` real,
``φ = r·Im z``).  These bounds are sums of logs in double precision, raised by
:func:`_rounding_margin` (far more than the rounding of such sums; the bound needs only a few
correct bits).  A piece whose integral is below an output's share of its tolerance
(``2h·M`` on the real segment) is left out of that output with that bound; the tails beyond the
outermost pieces are bounded by ``F_hub(L)·P_k(L)`` (``P_k`` increasing, ``S ≤ 1``) and
``S_hub(R)·S(R − s_k)`` (``S`` decreasing, ``P_k ≤ 1``).  Each probability is the ball of the
rule's sum (rounding tracked by Arb) widened by these bounds: a rigorous enclosure.
"""

from __future__ import annotations

import bisect
import math
from fractions import Fraction

from typing import NamedTuple

import numpy as np
from flint import arb

from ...errors import PrecisionError
from ...noise import Kind
from ...precision import FACTOR_ROUNDING_GUARD_DIGITS, to_arb, working_bits
from . import output_tree
from .arithmetics import BALLS
from .exponential_sums import piece_in
from .gauss_legendre import legendre_rule
from .node_planner import plan
from .piecewise_gauss import BOUND_BITS
from .piece_series import flint_context

#: Bernstein ellipse parameters tried on every piece for every output (the smallest bound wins;
#: the large ones suit the small pieces between close kinks).
RHOS = (2.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0)
#: Most nodes of one piece (``PieceLayout.max_order``: a piece needing more is halved).
MAX_ORDER = 400
#: Doublings of the distance covered beyond the outermost kinks (:func:`_pieces`) tried before
#: the tails are left to the precision check.
TAIL_ROUNDS = 4
#: Further tries when a ball is too wide: with 64 more bits if the rounding took too much of
#: its tolerance, once with the tolerances shared out from the first sums otherwise.
RETRIES = 2
#: Rounds of halvings after which tails that do not fit double the reach first.
SPLITS_BEFORE_REACH = 8
#: Halvings of the pieces that need more than their layout's ``max_order`` nodes.
SPLIT_ROUNDS = 64
#: Most outputs × pieces planned (each a few doubles in several arrays of the plan): beyond,
#: :class:`~exactdp.errors.PrecisionError`.
MAX_CELLS = 2 ** 24
#: Share of an output's tolerance ``10^{−dps}·Pr`` given to the quadrature and tail bounds (the
#: rest covers the rounding of the balls and the estimate of ``Pr`` used to share it out).
ERROR_SHARE = 1 / 16


def applies(mech) -> bool:
    """Cutoff 1 and a fixed threshold, with piecewise exponential noise (``output_tree.applies``)
    whose CDF or survival function is a plain exponential on each side of its kink."""
    if mech.cutoff != 1 or not output_tree.applies(mech):
        return False
    return all(_primary(mech.query_noise, side) is not None for side in (-1, 1))


def _primary(law, side: int):
    """``(kind, piece)`` of the plain exponential among the law's CDF and survival function on
    ``side`` (the other is one minus it), or None."""
    for kind in (Kind.CDF, Kind.SF):
        piece = law.piece(kind, side)
        if piece is None:
            continue
        if not piece.one_minus:
            return kind, piece
    return None


def first_top_probabilities(mech, queries, dps: int) -> list:
    """``[Pr[⊥ᵏ⊤] for k < n] + [Pr[⊥ⁿ]]`` as ``arb`` balls of relative width at most
    ``10^{−dps}`` (else :class:`~exactdp.errors.PrecisionError`), for a mechanism for which
    :func:`applies`."""
    hub, noise = mech.threshold_noise, mech.query_noise
    shifts = [Fraction(q) - Fraction(mech.threshold) for q in queries]
    (noise_kink,) = noise.kink_points()
    kinks = sorted(set(hub.kink_points()) | {s + noise_kink for s in shifts})
    distance = hub.scale * (dps + 20) * Fraction(23, 10)  # ln 10 < 2.3
    return shared_probabilities(
        mech, len(queries), dps, lambda pieces: _Geometry(hub, noise, shifts, kinks, pieces),
        lambda distance: _pieces(kinks, min(hub.scale, noise.scale), distance), distance,
        _LogBounds, _rule_sums)


def shared_probabilities(mech, n: int, dps: int, layout, cut, distance: Fraction, log_bounds,
                         rule_sums) -> list:
    """The probabilities of :func:`first_top_probabilities` for laws whose factors
    ``log_bounds`` bounds on the ellipses and ``rule_sums`` evaluates at the nodes (the
    piecewise exponential laws here; the smooth ones, ``smooth_shared_nodes.py``).

    ``cut(distance)`` gives the pieces reaching ``distance`` beyond the outermost cuts (doubled,
    up to :data:`TAIL_ROUNDS` times, while some output is so small that the tails still matter)
    and ``layout(pieces)`` their geometry; a piece needing more than its ``max_order`` nodes is
    halved, up to :data:`SPLIT_ROUNDS` times and :data:`MAX_CELLS` outputs × pieces.  The
    pieces are split before the reach is doubled, unless :data:`SPLITS_BEFORE_REACH` rounds of
    splits have not made the tails fit: an output whose mass lies beyond the pieces would have
    the steep edge of its integrand halved without end."""
    pieces, rounds, splits, recent = cut(distance), 1, 0, 0
    while True:
        geometry = layout(pieces)
        if geometry.outputs * len(pieces) > MAX_CELLS:
            raise PrecisionError(f"{mech.name}: the shared Gauss–Legendre nodes would need "
                                 f"{len(pieces)} pieces for {geometry.outputs} outputs")
        plan = _plan(geometry, dps, log_bounds)
        farther = not plan.tails_fit and rounds < TAIL_ROUNDS
        if np.any(plan.split) and not (farther and recent >= SPLITS_BEFORE_REACH):
            splits, recent = splits + 1, recent + 1
            if splits > SPLIT_ROUNDS:
                raise PrecisionError(f"a piece of the shared Gauss–Legendre nodes needs more "
                                     f"than {geometry.max_order} nodes")
            pieces = _halved(pieces, plan.split)
            continue
        if farther:
            rounds, recent = rounds + 1, 0
            distance *= 2
            pieces = cut(distance)
            continue
        break
    # a ball's rounding grows by a few units of 2^{−bits} per factor: n·2^{−bits} ≪ 10^{−dps}
    # (at most 128 bits, two limbs, for 30 digits and 1000 queries)
    bits = working_bits(dps, n, FACTOR_ROUNDING_GUARD_DIGITS)
    replanned = False
    for _ in range(RETRIES + 1):
        with flint_context(bits):
            sums = rule_sums(geometry, plan, bits)
            tolerance = arb(10) ** (-dps)
            balls = [total + error + tail
                     for total, error, tail in zip(sums, plan.errors, plan.tails)]
            wide = [k for k, ball in enumerate(balls)
                    if not ball.rad() <= tolerance * abs(ball.mid())]
            if not wide:
                return balls
            if any(not sums[k].rad() <= tolerance * abs(balls[k].mid()) / 2 for k in wide):
                bits += 64  # the rounding took too much of the tolerance
            elif not replanned:  # the rough estimates of Pr shared it out: use the sums
                plan = _plan(geometry, dps, log_bounds,
                             [float(total.mid().log()) if total > 0 else None
                              for total in sums])
                replanned = True
            else:
                break
    ball = balls[wide[0]]
    relative = ball.rad() / abs(ball.mid()) if ball.mid() != 0 else arb("inf")
    raise PrecisionError(f"{mech.name}: the probability of {geometry.label(wide[0])} "
                         f"(shared Gauss–Legendre nodes) reached relative width "
                         f"{float(relative.upper()):.2e}, not 1e-{dps}")


def _halved(pieces: list, split) -> list:
    """The pieces, each marked in ``split`` cut in two halves."""
    halved = []
    for (a, b), cut in zip(pieces, split):
        halved += [(a, (a + b) / 2), ((a + b) / 2, b)] if cut else [(a, b)]
    return halved


def _pieces(kinks, width: Fraction, distance: Fraction) -> list:
    """The pieces ``(a, b)``: between adjacent kinks, and beyond the outermost kinks as far as
    ``distance``, cut at ``width, 2·width, 4·width, 8·width, …`` from the kinks (the integrands
    are smooth and nearly exponential away from the kinks, so wide pieces need few nodes)."""
    outer = _doubling(width, distance)
    pieces = [(kinks[0] - b, kinks[0] - a) for a, b in reversed(outer)]
    for left, right in zip(kinks, kinks[1:]):
        half = (right - left) / 2
        if half <= width:
            pieces.append((left, right))
            continue
        steps = [(a, min(b, half)) for a, b in _doubling(width, half)]
        pieces += [(left + a, left + b) for a, b in steps]
        pieces += [(right - b, right - a) for a, b in reversed(steps)]
    return pieces + [(kinks[-1] + a, kinks[-1] + b) for a, b in outer]


def _doubling(width: Fraction, distance: Fraction) -> list:
    """``[(0, w), (w, 2w), (2w, 4w), …]`` until ``distance`` is reached."""
    steps, reached = [], Fraction(0)
    while reached < distance:
        step = max(width, reached)
        steps.append((reached, reached + step))
        reached += step
    return steps


class PieceLayout:
    """The pieces (exact), their middles and half-widths in double precision (for the bounds),
    and the outer ends ``lower``, ``upper``."""

    def __init__(self, pieces):
        self.pieces = pieces
        self.middle = np.array([float((a + b) / 2) for a, b in pieces])
        self.half = np.array([float((b - a) / 2) for a, b in pieces])
        self.lower, self.upper = pieces[0][0], pieces[-1][1]

    #: Rule sizes each output picks its own from (``node_planner.plan``), or None: every
    #: output takes the most nodes any output needs on the piece.
    ladder = None
    #: The Bernstein ellipses tried (``node_planner.plan``).
    rhos = RHOS
    #: Most nodes of one piece: a piece needing more is halved.
    max_order = MAX_ORDER
    #: Arcs of the upper half of each ellipse bounded apart (``_on_ellipse``): 1 bounds the
    #: extent around the whole ellipse.
    arcs = 1

    def passes(self, kept) -> tuple:
        """``(last, in_pass)`` from ``kept`` (outputs × pieces: the pieces each output cannot
        leave out): the last output of each piece (``−1`` for none), raised to the largest on
        its left, so that the pieces an output ``k`` sums, ``last ≥ k``, are those right of a
        point (the pass of the rule sums over outputs in order, :func:`rule_nodes`); and that
        mask (outputs × pieces)."""
        final = kept.shape[0] - 1
        used = kept.any(axis=0)
        last = np.where(used, final - np.argmax(kept[::-1], axis=0), -1)
        last = np.where(used, np.maximum.accumulate(last), -1)
        return last, last[None, :] >= np.arange(final + 1)[:, None]

    def label(self, k: int) -> str:
        """How an error names output ``k``."""
        return f"output {k}"


class SparseVectorLayout(PieceLayout):
    """The pieces of a Sparse Vector mechanism's ``n + 1`` outputs, its laws and the shifts
    (exact, and in double precision)."""

    def __init__(self, hub, noise, shifts, pieces):
        super().__init__(pieces)
        self.hub, self.noise, self.shifts = hub, noise, shifts
        self.shift_f = np.array([float(s) for s in shifts])
        self.outputs = len(shifts) + 1

    def tails(self) -> list:
        """Per output, the ball bounding its integral beyond the pieces (:func:`_tails`)."""
        return _tails(self)


class _Geometry(SparseVectorLayout):
    """The layout and the ranks of the kinks (exact)."""

    def __init__(self, hub, noise, shifts, kinks, pieces):
        super().__init__(hub, noise, shifts, pieces)
        rank = {kink: index for index, kink in enumerate(kinks)}
        (noise_kink,) = noise.kink_points()
        (hub_kink,) = hub.kink_points()
        #: a piece lies right of kink ``j`` iff ``j < piece_rank`` (its count of kinks ≤ a)
        self.piece_rank = np.array([bisect.bisect_right(kinks, a) for a, _ in pieces])
        self.query_rank = np.array([rank[s + noise_kink] for s in shifts])
        self.hub_rank = rank[hub_kink]

    def right_of_query(self, ranks) -> np.ndarray:
        """``(n, len(ranks))``: whether each place of rank ``ranks`` lies right of each query's
        kink."""
        return self.query_rank[:, None] < np.asarray(ranks)[None, :]


def _form(law, kind: Kind, side: int):
    """``(log coefficient, rate, one_minus)`` in floats, or None where the function vanishes."""
    piece = law.piece(kind, side)
    if piece is None:
        return None
    coefficient, rate, one_minus = piece
    return math.log(coefficient), float(rate), one_minus


def _log_bound(form, shift, low, high, imaginary):
    """A bound of ``log|g(z − shift)|`` for ``Re z ∈ [low, high]``, ``|Im z| ≤ imaginary``,
    ``g`` the form (module docstring); numpy arrays broadcast together."""
    if form is None:
        return np.full(np.broadcast(shift, low).shape, -np.inf)
    log_coefficient, rate, one_minus = form
    plain, complement = _bounds_of_pair(log_coefficient + rate * (low - shift),
                                        log_coefficient + rate * (high - shift),
                                        rate * imaginary)
    return complement if one_minus else plain


def _bounds_of_pair(low_exponent, high_exponent, imaginary_exponent):
    """Bounds of ``log|e^{t}|`` and ``log|1 − e^{t}|`` for ``Re t`` between the exponents
    at the two ends and ``|Im t| ≤ imaginary_exponent`` (module docstring), in logs throughout
    (``log 0 = −inf`` where ``1 − e^{t}`` vanishes; nothing underflows)."""
    with np.errstate(over="ignore", divide="ignore"):
        largest = np.maximum(low_exponent, high_exponent)
        real = np.abs(1 - np.exp(largest))  # |1 − u| is convex in u = e^{Re t}: at an end
        if low_exponent is not high_exponent:
            real = np.maximum(real, np.abs(1 - np.exp(np.minimum(low_exponent, high_exponent))))
        if not np.any(imaginary_exponent):
            return largest, np.log(real)
        return largest, np.logaddexp(2 * np.log(real),
                                     largest + 2 * np.log(np.abs(imaginary_exponent))) / 2


def _rounding_margin(total_abs):
    """Added to a double-precision sum of ``m`` logs, ``total_abs`` the sum of their absolute
    values and of ``m`` times the largest part of their exponents: each term is within a few
    units in the last place of its parts and the sum within ``m·2^{−53}`` of their total, so
    ``2^{−30}·total_abs`` covers every rounding for ``m < 2^{20}`` terms."""
    return 2.0 ** -30 * total_abs


class _Plan(NamedTuple):
    """Nodes per piece (0: no output needs it), the last output needing each piece, the
    pieces each output sums (``PieceLayout.passes``) and, with a ladder
    (``PieceLayout.ladder``), the rule each output takes on each piece (``node_planner.plan``),
    and per output the balls ``[0, bound]`` of the rule's error and the pieces left out, and of
    the tails beyond the pieces; whether the tails fit the tolerances, and which pieces need
    more than the layout's ``max_order`` nodes."""

    orders: np.ndarray
    last: np.ndarray
    in_pass: np.ndarray
    rules: np.ndarray | None
    errors: list
    tails: list
    tails_fit: bool
    split: np.ndarray


def _plan(geometry, dps: int, log_bounds, known=None) -> _Plan:
    """The nodes of every piece and, per output, the bound on everything but the rule's sum
    (its factors bounded by ``log_bounds(geometry)``, as :class:`_LogBounds`; the tails beyond
    the pieces by ``geometry.tails()``, as :func:`_tails`); the tolerances
    are shared out from a rough estimate of each ``log Pr``, or from ``known`` (a list of them,
    None where unknown).  The pieces that need more than the layout's ``max_order`` nodes are
    marked ``split``."""
    final = geometry.outputs - 1  # the index of the last output
    bounds = log_bounds(geometry)
    middle, half = geometry.middle, geometry.half
    every = np.full(len(middle), final)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        at_middle = bounds(middle, middle, 0.0, every)  # (one point: low is high)
        on_segment = bounds(middle - half, middle + half, 0.0, every)
        log_width = np.log(2 * half)
        estimate = np.logaddexp.reduce(at_middle + log_width, axis=1)        # log Pr, roughly
        if known is not None:
            estimate = np.array([e if k is None else k for e, k in zip(estimate, known)])
        budget = estimate + math.log(ERROR_SHARE) - dps * math.log(10)      # (outputs,)
        share = budget - math.log(2 * len(geometry.pieces) + 2)
        segment = on_segment + log_width
        kept = ~(np.nan_to_num(segment, nan=np.inf) <= share[:, None])
        last, in_pass = geometry.passes(kept)
        # each output on its best ellipse of the layout's (RHOS); a piece gets the most nodes
        # any output needs, or each output its own rung of the layout's ladder
        rhos = geometry.rhos
        rules = plan(half, lambda k: _on_ellipse(bounds, middle, half, rhos[k], last,
                                                 geometry.arcs),
                     share[:, None], rhos, geometry.max_order, kept, geometry.ladder)
        orders, log_rule_error = rules.orders.astype(np.int64), rules.log_errors
        # an output sums the rule on every piece in its pass: a piece it would have left out
        # errs by at most |∫| + |rule| ≤ 4h·M; a piece out of the pass by 2h·M
        log_error = np.where(in_pass, np.minimum(log_rule_error, segment + math.log(2)),
                             segment)
        log_error = _rounding_up(np.nan_to_num(log_error, nan=np.inf))
        tails = geometry.tails()
        tails_fit = all(not tail.rad() > 0 or float(arb(tail.rad()).log().mid()) <= limit
                        for tail, limit in zip(tails, share + math.log(4)))
    return _Plan(orders, last, in_pass, rules.rules, _error_balls(log_error), tails, tails_fit,
                 rules.split)


class _LogBounds:
    """``log M[k, p]``: a bound of output ``k``'s integrand ``p·P_k·S_k`` on an extent around
    piece ``p`` (module docstring), as cumulative sums of the factors' bounds over the queries,
    raised by their rounding margin (:func:`_rounding_margin`)."""

    #: Outputs per block (a block computes only the pieces some output of it still needs).
    BLOCK = 64

    def __init__(self, geometry: _Geometry):
        self.n = len(geometry.shifts)
        right = geometry.right_of_query(geometry.piece_rank)                      # (n, P)
        self.hub_right = geometry.hub_rank < geometry.piece_rank                   # (P,)
        self.hub_forms = {side: _form(geometry.hub, Kind.PDF, side) for side in (-1, 1)}
        # each query's F and S on a piece: the plain exponential e^{c + r(z − s)} of the
        # piece's side (``_primary``) and one minus it
        primaries = {side: _primary(geometry.noise, side) for side in (-1, 1)}
        log_coefficient, self.rate, survival_primary = (
            np.where(right, *(np.float64(value(primaries[side])) for side in (1, -1)))
            for value in (lambda p: math.log(p[1].coefficient), lambda p: float(p[1].rate),
                          lambda p: p[0] is Kind.SF))
        self.survival_primary = survival_primary.astype(bool)
        self.constant = log_coefficient - self.rate * geometry.shift_f[:, None]
        self.scale = np.max(np.abs(self.constant), initial=0)
        self.largest_rate = np.max(np.abs(self.rate), initial=0)

    def __call__(self, low, high, imaginary, last) -> np.ndarray:
        """``(n + 1, P)`` bounds on the extents ``[low, high] × [−imaginary, imaginary]``
        (arrays over the pieces) for the outputs ``k ≤ last[p]``; ``+inf`` elsewhere."""
        n = self.n
        out = np.full((n + 1, len(low)), np.inf)
        order = np.argsort(-last, kind="stable")        # pieces by last output, descending
        last_sorted = last[order]
        hub = np.where(self.hub_right,
                       _log_bound(self.hub_forms[1], 0.0, low, high, imaginary),
                       _log_bound(self.hub_forms[-1], 0.0, low, high, imaginary))
        carry = np.zeros(len(low))                      # Σ of the F bounds before the block
        largest = _largest_finite(hub)
        scale = self.scale + self.largest_rate * max(np.max(np.abs(low)),
                                                    np.max(np.abs(high))) + 1
        for start in range(0, n + 1, self.BLOCK):
            stop = min(start + self.BLOCK, n + 1)
            columns = order[:np.count_nonzero(last_sorted >= start)]
            if columns.size == 0:
                break
            rows = slice(start, min(stop, n))
            constant, rate = self.constant[rows][:, columns], self.rate[rows][:, columns]
            low_exponent = constant + rate * low[columns]
            high_exponent = (low_exponent if high is low
                             else constant + rate * high[columns])
            plain, complement = _bounds_of_pair(
                low_exponent, high_exponent,
                rate * imaginary[columns] if np.ndim(imaginary) else rate * imaginary)
            primary = self.survival_primary[rows][:, columns]
            cdf = np.where(primary, complement, plain)
            survival = np.where(primary, plain, complement)
            if stop > n:  # the output ⊥ⁿ has no survival factor
                survival = np.vstack([survival, np.zeros((1, columns.size))])
            prefix = np.vstack([np.zeros((1, columns.size)), np.cumsum(cdf, axis=0)])
            prefix += carry[columns]
            carry[columns] = prefix[-1]
            # n + 2 terms, each at most ``largest`` in size and rounded relative to its
            # exponent's parts, at most ``scale``
            largest = max(largest, _largest_finite(cdf), _largest_finite(survival))
            margin = _rounding_margin((n + 2) * (largest + scale))
            out[start:stop, columns] = (hub[columns] + prefix[:stop - start] + survival
                                        + margin)
        return out


def _on_ellipse(bounds, middle, half, rho: float, last, arcs: int):
    """``bounds`` (a ``log_bounds`` hook) on the Bernstein ellipses ``E_ρ`` of the pieces: on
    the extent around each ellipse, or with ``arcs > 1`` the largest over the extents around
    ``arcs`` equal arcs of its upper half (the largest modulus is on the boundary, and on the
    lower half it is the same for an integrand real on the real line); each arc's extent is
    widened by ``2^{−40}`` of the axes, far above the rounding of its cosines and sines."""
    if arcs == 1:
        return bounds(*_ellipse(middle, half, rho), last)
    low, high, minor = _ellipse(middle, half, rho)
    major = (high - low) / 2
    slack = 2.0 ** -40 * major
    out = None
    for k in range(arcs):
        start, stop = math.pi * k / arcs, math.pi * (k + 1) / arcs
        top = 1.0 if start <= math.pi / 2 <= stop else max(math.sin(start), math.sin(stop))
        arc = bounds(middle + major * math.cos(stop) - slack,
                     middle + major * math.cos(start) + slack,
                     minor * top * (1 + 2.0 ** -40), last)
        out = arc if out is None else np.maximum(out, arc)
    return out


def _ellipse(middle, half, rho):
    """The real extent and the imaginary half-height of the Bernstein ellipses ``E_ρ`` of the
    pieces."""
    major, minor = (rho + 1 / rho) / 2 * half, (rho - 1 / rho) / 2 * half
    return middle - major, middle + major, minor


def _largest_finite(values) -> float:
    """The largest absolute value among the finite ``values`` (0 if none)."""
    return float(np.max(np.abs(values), initial=0, where=np.isfinite(values)))


def _exclusive_cumsum(rows):
    """``out[k] = Σ_{i<k} rows[i]`` (``k = 0 … len(rows)``; rows of any shape)."""
    out = np.zeros((rows.shape[0] + 1,) + rows.shape[1:])
    np.cumsum(rows, axis=0, out=out[1:])
    return out


def _rounding_up(log_values):
    """Logs raised by a relative ``2^{−30}`` (the exponentials below round within it)."""
    return log_values + 2.0 ** -30 * (np.abs(np.where(np.isfinite(log_values), log_values, 0))
                                      + 1)


def _error_balls(log_values) -> list:
    """Per row, the ball ``[0, Σ e^{log_values}]``: ``top + log Σ e^{x − top}`` in double
    precision, each term that underflows counted as ``2^{−1000}``, raised by
    :func:`_rounding_up`, then exponentiated in balls (no underflow)."""
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        top = np.max(log_values, axis=1)
        finite = np.where(np.isfinite(top), top, 0)
        scaled = np.exp(log_values - finite[:, None])
        logs = _rounding_up(finite + np.log(np.sum(scaled, axis=1)
                                            + log_values.shape[1] * 2.0 ** -1000))
    with flint_context(BOUND_BITS):
        return [arb(0) if value == -np.inf and low == -np.inf
                else arb(0, arb(float(value)).exp().upper())
                for value, low in zip(logs, top)]


def _tails(geometry: _Geometry) -> list:
    """Per output, a ball bounding the integral beyond the outermost pieces (module
    docstring): ``F_hub(L)·P_k(L) + S_hub(R)·S(R − s_k)``, every query's kink lying between
    ``L`` and ``R``."""
    hub, noise, shifts = geometry.hub, geometry.noise, geometry.shifts
    with flint_context(BOUND_BITS):
        lower, upper = to_arb(geometry.lower), to_arb(geometry.upper)
        left = _ball_log_or_none(hub, Kind.CDF, -1, lower)
        cdf = [_ball_log_or_none(noise, Kind.CDF, -1, lower - to_arb(s)) for s in shifts]
        right = _ball_log_or_none(hub, Kind.SF, 1, upper)
        sf = [_ball_log_or_none(noise, Kind.SF, 1, upper - to_arb(s)) for s in shifts]
        tails, prefix = [], arb(0)
        for k in range(len(shifts) + 1):
            total = arb(0)
            if left is not None and prefix is not None:
                total += (left + prefix).exp()
            if right is not None and (k == len(shifts) or sf[k] is not None):
                total += (right + (sf[k] if k < len(shifts) else 0)).exp()
            tails.append(arb(0, total.upper()))
            if k < len(shifts):
                prefix = None if prefix is None or cdf[k] is None else prefix + cdf[k]
        return tails


def _ball_log_or_none(law, kind: Kind, side: int, x: arb):
    """``log g(x)`` as a ball on ``side`` of the law's kink, None where ``g`` vanishes."""
    functions = law.ball_log(kind, side)
    return None if functions is None else functions.log(x)


def _rule_sums(geometry: _Geometry, plan: _Plan, bits: int) -> list:
    """The rule's sum for every output: one pass over the queries, each multiplying the running
    products ``w·p·P_k`` at the nodes still in the pass.  The nodes go from right to left, so the
    nodes right of a query's kink and the nodes in the pass (:func:`_plan`) are prefixes."""
    hub, noise, shifts = geometry.hub, geometry.noise, geometry.shifts
    n = len(shifts)
    nodes, weights, pieces, in_pass = rule_nodes(geometry, plan, bits)
    densities = {}  # the hub's density on each side of its kink: (log coefficient, rate)
    products = []
    for z, weight, p in zip(nodes, weights, pieces):
        side = 1 if geometry.hub_rank < geometry.piece_rank[p] else -1
        if side not in densities:
            density = piece_in(hub, Kind.PDF, side, BALLS)
            densities[side] = density.log_coefficient, to_arb(density.rate)
        log_coefficient, rate = densities[side]
        products.append(weight * (log_coefficient + rate * z).exp())
    products = _objects(products)
    ranks = geometry.piece_rank[np.array(pieces, dtype=np.int64)]
    # per side of a kink: the plain exponential among F and S (``_primary``) is
    # coefficient·e^{rate·(z − s)}: e^{rate·z} at every node times a constant per query
    powers, constants, survival_primary = {}, {}, {}
    for side in (-1, 1):
        kind, piece = _primary(noise, side)
        rate = to_arb(piece.rate)
        powers[side] = _objects([(rate * z).exp() for z in nodes])
        constants[side] = [to_arb(piece.coefficient) * (-(rate * to_arb(s))).exp()
                           for s in shifts]
        survival_primary[side] = kind is Kind.SF
    right_of = np.searchsorted(-ranks, -geometry.query_rank, side="left")  # rank > query's
    sums = []
    for k in range(n):
        count, keep = in_pass[k], in_pass[k + 1]
        total = arb(0)
        for side, part in ((1, slice(0, min(right_of[k], count))),
                           (-1, slice(min(right_of[k], count), count))):
            current = products[part]
            if current.size == 0:
                continue
            factor = powers[side][part] * constants[side][k]
            # (1 − factor is made before it multiplies: P − P·factor would add the radii)
            if survival_primary[side]:  # S = factor, F = 1 − S
                total += (current * factor).sum()
                continued = current * (1 - factor)
            else:  # F = factor, S = 1 − F
                total += (current * (1 - factor)).sum()
                continued = current * factor
            # nodes out of the pass from the next output on are left as they are
            updated = slice(part.start, min(part.stop, keep))
            products[updated] = continued[:max(0, updated.stop - updated.start)]
        sums.append(total)
    sums.append(products[:in_pass[n]].sum() if in_pass[n] else arb(0))
    return sums


def rule_nodes(geometry, plan: _Plan, bits: int) -> tuple:
    """``(nodes, weights, pieces, in_pass)``: every node of the plan's rules as a ball, from the
    rightmost piece to the leftmost, its weight (the piece's half-width included) and its
    piece's index; ``in_pass[k]`` the number of nodes (a prefix) whose piece an output ``≥ k``
    needs (``plan.last``), for ``k = 0 … geometry.outputs``."""
    nodes, weights, pieces, lasts = [], [], [], []
    for p in reversed(range(len(geometry.pieces))):
        if plan.orders[p] == 0:
            continue
        piece_nodes, piece_weights = piece_rule(geometry.pieces[p], int(plan.orders[p]), bits)
        nodes += piece_nodes
        weights += piece_weights
        pieces += [p] * len(piece_nodes)
        lasts += [plan.last[p]] * len(piece_nodes)
    in_pass = np.searchsorted(-np.array(lasts, dtype=np.int64),
                              -np.arange(geometry.outputs + 1), side="right")
    return nodes, weights, pieces, in_pass


def piece_rule(piece: tuple, order: int, bits: int) -> tuple:
    """``(nodes, weights)``: the ``order``-point Gauss–Legendre rule on the piece ``(a, b)``
    (exact ends) as lists of balls, the weights times the half-width."""
    a, b = piece
    middle, half = to_arb((a + b) / 2), to_arb((b - a) / 2)
    rule = legendre_rule(order, bits)
    return [middle + half * x for x, _ in rule], [half * w for _, w in rule]


def _objects(values) -> np.ndarray:
    """A numpy array of objects (``arb`` balls), one per value."""
    array = np.empty(len(values), dtype=object)
    array[:] = values
    return array
