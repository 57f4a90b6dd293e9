"""Gaussian Sparse Vector (cutoff 1, fixed threshold) on run-length encoded queries: the
probabilities at many positions of long runs at once, on Gauss–Legendre nodes shared by every
position (``smooth_shared_nodes.py``'s pieces, plan and bounds, fed per-position sums);
docs/engine.md §5.

The queries are runs ``r`` of ``len_r`` equal answers (shift ``s_r = q_r − T``, as in
``form/threshold.py``), run ``j`` covering the positions ``[start_j, end_j)``.  With ``p`` the
threshold noise's density and ``F``, ``S`` the query noise's CDF and survival function, a
position ``κ ≥ 0`` in run ``j`` (an exact rational, ``t = κ − start_j`` its exponent) has

    A(κ) = ∫ p(z) Π_{r<j} F(z − s_r)^{len_r} · F(z − s_j)^t dz                (prefix)
    P(κ) = ∫ p(z) Π_{r<j} F(z − s_r)^{len_r} · F(z − s_j)^t · S(z − s_j) dz

(at an integer ``κ``, ``Pr[the first κ answers are ⊥]`` and ``Pr[⊥^κ⊤]``).  At each node ``z``
every run gives ``log F(z − s_r)`` (one ``erfc`` and one log) and ``log S(z − s_r)``, the runs
before ``j`` their sum weighted by ``len_r``, and a position one exponential,
``e^{Σ_{r<j} len_r·log F_r + t·log F_j + log(w·p·S)}``: the work is positions × nodes, whatever
the runs' lengths.  A position sums only the pieces it cannot leave out, each on its own rule of
:data:`LADDER` (``node_planner.plan``), so a piece evaluates the few rules its positions take
and a position pays for no node a harder one needs.

Error, per position and piece, as in ``smooth_shared_nodes.py``: the rule's bound on the best
Bernstein ellipse, the integrand bounded there from real values (``off_axis.py``: the tangent
bound of the log sum, each ``F`` on its flat side by ``log(1 + S·e^{C·h²})`` or the decay bound,
which keeps ``F^t ≈ e^{−t·S}``) with each factor's parts weighted by its exponent,
``Σ_{r<j} len_r·v_r + t·v_j``, over four arcs of each half ellipse (``shared_nodes._on_ellipse``:
its thin ends, where a large power is largest, apart from its full height); the tails beyond
the pieces by ``F_hub(L)·Π F(L − s_r)^{m_r}`` (the ``F`` factors increase, ``S ≤ 1``) and
``S_hub(R)·S(R − s_j)`` (``S`` decreases, every ``F ≤ 1``).  A non-integer ``t`` makes
``F(z − s_j)^t`` analytic only where ``F`` has no zero: the ellipse must avoid them, which it
does where it lies left of ``s_j`` (``F(w) = ½ erfc(−u)``, ``u = (w − s_j)/(σ√2)``, and
``erfc(v) = e^{−v²}·w(iv)`` with Faddeeva's ``w = (i/π)∫ e^{−τ²}/(· − τ) dτ`` (DLMF 7.2.3,
7.7.2), whose real part ``(y/π)∫ e^{−τ²}/|iv − τ|² dτ`` is positive for ``y = Re v > 0``, and
``erfc(iy) = 1 − i·erfi(y)``)
or where ``|S| ≤ S(low)·e^{C·h²} < 1`` on it (``F = 1 − S``); elsewhere the ellipse is not used
(a piece on which none serves is halved).  There ``|F^t| = |F|^t``, and the bounds above hold.
"""

from __future__ import annotations

import bisect
from fractions import Fraction

import numpy as np
from flint import arb

from ...errors import InputError, MethodUnavailableError
from ...noise import Kind
from ...precision import to_arb
from ...sequences import to_fraction
from .piece_series import flint_context
from .piecewise_gauss import BOUND_BITS
from . import smooth_shared_nodes
from .shared_nodes import (PieceLayout, _exclusive_cumsum, _objects, piece_rule,
                           shared_probabilities)
from .smooth_shared_nodes import TAIL_DIGITS, _factors, _LogBounds, cutting


#: Most nodes of one piece: a piece needing more is halved (a position pays for the nodes of
#: every piece it keeps, so wide pieces that a few positions need many nodes on cost more than
#: the pieces halving adds; ``shared_nodes.MAX_ORDER`` for the outputs of a pass).
MAX_POSITION_ORDER = 192
#: The rule sizes a position picks from on each piece (``node_planner.plan``): steps of at
#: most a quarter, up to :data:`MAX_POSITION_ORDER`.  Each position sums its own rule, so the
#: nodes of the few rules taken on a piece cost an ``erfc`` each, and a position no more
#: exponentials than it needs.
LADDER = (2, 3, 4, 5, 6, 8, 10, 12, 14, 16, 20, 24, 28, 32, 40, 48, 56, 64, 80, 96, 112, 128,
          160, MAX_POSITION_ORDER)


def applies(mech) -> bool:
    """Cutoff 1, a fixed threshold, nothing released, both laws smooth and log-concave with an
    off-axis growth and double-precision log functions: ``smooth_shared_nodes.applies``."""
    return smooth_shared_nodes.applies(mech)


def probabilities_at(mech, queries, positions, dps: int, prefix: bool) -> list:
    """``A(κ)`` (``prefix``) or ``P(κ)`` (module docstring) at every position ``κ`` of
    ``positions`` (exact non-negative rationals: ``Fraction`` or ``int``), as ``arb`` balls of
    relative width at most ``10^{−dps}`` (else :class:`~exactdp.errors.PrecisionError`).

    Parameters
    ----------
    mech : ThresholdMechanism
        A mechanism for which :func:`applies`.
    queries : Runs
        The query answers, run-length encoded (never expanded).
    positions : sequence of Fraction or int
        Each in ``[0, n)``, or ``[0, n]`` with ``prefix`` (``n = len(queries)``); ``A(0) = 1``
        exactly.
    dps : int
        Significant digits of every ball.
    prefix : bool
        ``A`` (the first ``κ`` answers ``⊥``) rather than ``P`` (``⊥^κ⊤``).

    Raises
    ------
    InputError
        A position that is not a number, negative or beyond the queries.
    MethodUnavailableError
        A mechanism for which :func:`applies` is false.
    """
    if not applies(mech):
        raise MethodUnavailableError(f"{mech.name}: the probabilities at run positions need a "
                                     f"cutoff of 1, a fixed threshold and Gaussian noise")
    runs = [(Fraction(value) - Fraction(mech.threshold), count) for value, count in queries]
    located = _located(runs, positions, prefix)
    wanted = list(dict.fromkeys(place for place in located if place != (0, 0) or not prefix))
    balls = dict.fromkeys(located, arb(1))  # A(0) = 1
    if wanted:
        shifts = [shift for shift, _ in runs]
        tails: dict = {}  # per outer ends of the pieces (a split keeps them)
        balls.update(zip(wanted, shared_probabilities(
            mech, len(runs) + 3 * (dps + TAIL_DIGITS), dps,
            lambda pieces: _PositionLayout(mech, runs, wanted, prefix, pieces, tails),
            *cutting(mech, shifts, dps), _PositionBounds, _position_sums)))
    return [balls[place] for place in located]


def _located(runs: list, positions, prefix: bool) -> list:
    """Each position as ``(run j, exponent t)``, ``t = κ − start_j`` (an exact rational), the
    run with ``start_j ≤ κ < end_j`` (``κ = n`` with ``prefix``: the last run, ``t = len``);
    :class:`~exactdp.errors.InputError` for a position out of range."""
    ends = list(np.cumsum([count for _, count in runs], dtype=object))
    n = ends[-1]
    located = []
    for value in positions:
        position = to_fraction(value, "position")
        if not 0 <= position <= n or (position == n and not prefix):
            interval = f"[0, {n}]" if prefix else f"[0, {n})"
            raise InputError(f"position must lie in {interval} (the queries' length {n}), "
                             f"got {position}")
        j = min(bisect.bisect_right(ends, position), len(runs) - 1)
        located.append((j, position - (ends[j] - runs[j][1])))
    return located


class _PositionLayout(PieceLayout):
    """The pieces, the laws, the runs (shifts exact and in double precision, lengths) and the
    positions (run, exponent): one output each, on its own rule of :data:`LADDER` per piece."""

    ladder = LADDER
    max_order = MAX_POSITION_ORDER
    #: Ellipses of moderate size: a position's factors grow fast off the real line (a power
    #: of a run's length), so the large ones of ``shared_nodes.RHOS`` never serve.
    rhos = (2.0, 3.0, 4.0, 8.0, 16.0)
    #: Arcs per half ellipse: its ends are thin, where a large power's factor is largest.
    arcs = 4

    def __init__(self, mech, runs, located, prefix: bool, pieces, tails=None):
        super().__init__(pieces)
        self.known_tails = {} if tails is None else tails
        self.hub, self.noise = mech.threshold_noise, mech.query_noise
        self.shifts = [shift for shift, _ in runs]
        self.lengths = [count for _, count in runs]
        self.shift_f = np.array([float(s) for s in self.shifts])
        self.located, self.prefix = located, prefix
        self.run_of = np.array([j for j, _ in located], dtype=np.int64)
        self.exponent_f = np.array([float(t) for _, t in located])
        #: positions whose exponent is not an integer (``F^t`` is not entire)
        self.fractional = np.array([t.denominator != 1 for _, t in located])
        self.outputs = len(located)

    def passes(self, kept) -> tuple:
        """Every position sums the pieces it keeps (no pass over the queries): ``last`` marks
        the pieces some position keeps."""
        return np.where(kept.any(axis=0), self.outputs - 1, -1), kept

    def label(self, k: int) -> str:
        """Position ``k`` as its ``κ``."""
        j, t = self.located[k]
        return f"position {sum(self.lengths[:j]) + t}"

    def tails(self) -> list:
        """Per position, the ball ``[0, F_hub(L)·Π F(L − s_r)^{m_r} + S_hub(R)·S(R − s_j)]``
        (no ``S`` for a prefix; module docstring), once per outer ends ``L``, ``R``."""
        ends = (self.lower, self.upper)
        if ends not in self.known_tails:
            self.known_tails[ends] = self._tails()
        return self.known_tails[ends]

    def _tails(self) -> list:
        """:meth:`tails`, computed."""
        cdf, sf = self.noise.ball_log(Kind.CDF), self.noise.ball_log(Kind.SF)
        with flint_context(BOUND_BITS):
            lower, upper = to_arb(self.lower), to_arb(self.upper)
            left = [cdf.log(lower - to_arb(s)) for s in self.shifts]
            before = [self.hub.ball_log(Kind.CDF).log(lower)]
            for log_value, length in zip(left, self.lengths):
                before.append(before[-1] + length * log_value)
            right = self.hub.ball_log(Kind.SF).log(upper)
            tails = []
            for j, t in self.located:
                total = (before[j] + to_arb(t) * left[j]).exp()
                if not self.prefix:
                    total += (right + sf.log(upper - to_arb(self.shifts[j]))).exp()
                else:
                    total += right.exp()
                tails.append(arb(0, total.upper()))
            return tails


class _PositionBounds(_LogBounds):
    """``log M[κ, p]``: ``smooth_shared_nodes._LogBounds`` with each position's multiples of
    the runs' factors (:meth:`combine`), and ``+inf`` off the real line where a fractional
    power's factor may vanish on the extent (module docstring)."""

    def __init__(self, geometry: _PositionLayout):
        super().__init__(geometry)
        self.lengths = np.array(geometry.lengths, dtype=float)
        self.run_of, self.prefix = geometry.run_of, geometry.prefix
        self.exponent = geometry.exponent_f
        self.fractional = geometry.fractional[:, None]

    def combine(self, cdf, survival) -> np.ndarray:
        """``(positions, …)`` from parts ``(runs, …)``: ``Σ_{r<j} len_r·cdf_r + t·cdf_j``
        (``+ survival_j`` unless a prefix) for each position's run ``j`` and exponent ``t``
        (``0`` for ``t = 0``: an ``F^0`` is 1 however large its log)."""
        shape = (-1,) + (1,) * (cdf.ndim - 1)
        before = _exclusive_cumsum(self.lengths.reshape(shape) * cdf)[self.run_of]
        own = cdf[self.run_of]
        own[self.exponent == 0] = 0.0
        own[self.exponent > 0] *= self.exponent[self.exponent > 0].reshape(shape)
        before += own
        if not self.prefix:
            before += survival[self.run_of]
        return before

    def __call__(self, low, high, imaginary, last) -> np.ndarray:
        """The bounds of ``_LogBounds.__call__``, ``+inf`` where a fractional power's ``F`` is
        not proven free of zeros on the extent: neither left of its shift nor with
        ``S(low)·e^{C·h²} < 1``."""
        out = super().__call__(low, high, imaginary, last)
        height = np.broadcast_to(np.asarray(imaginary, dtype=float), out.shape[1:])
        if np.any(height > 0) and np.any(self.fractional):
            log_survival, _ = self.noise.float_log(Kind.SF, low[None, :] - self.shift)
            with np.errstate(over="ignore", invalid="ignore"):
                # (a margin of 2^{−20}: far above the doubles' rounding)
                zero_free = ((high[None, :] <= self.shift)
                             | (log_survival + self.growth * height ** 2 < -2.0 ** -20))
            out[self.fractional & ~zero_free[self.run_of]] = np.inf
        return out


def _position_sums(geometry: _PositionLayout, plan, bits: int) -> list:
    """The rule's sum for every position over the pieces it keeps (``plan.in_pass``), each on
    its own rule of the ladder (``plan.rules``): at the nodes of every rule some position takes,
    ``log(w·p(z))`` and per run ``log S(z − s_r)`` and ``log F(z − s_r)`` (``log1p(−S)`` where
    ``S`` is the smaller tail: no digit of a tiny ``log F`` lost), their sums over the earlier
    runs weighted by the lengths, then per position one exponential per node."""
    hub, noise = geometry.hub, geometry.noise
    density = hub.ball_log(Kind.PDF)
    cdf, sf = noise.ball_log(Kind.CDF), noise.ball_log(Kind.SF)
    median = to_arb(noise.median * noise.scale)
    nodes, weights, blocks = [], [], {}   # blocks[(piece, order)]: its nodes' range
    for p in range(len(geometry.pieces)):
        for order in np.unique(plan.rules[plan.in_pass[:, p], p]):
            piece_nodes, piece_weights = piece_rule(geometry.pieces[p], int(order), bits)
            blocks[p, order] = np.arange(len(nodes), len(nodes) + len(piece_nodes))
            nodes += piece_nodes
            weights += piece_weights
    nodes = _objects(nodes)
    log_weighted = _objects([weight.log() + density.log(z) for z, weight in zip(nodes, weights)])
    uses = [np.concatenate([blocks[p, plan.rules[k, p]] for p in np.flatnonzero(row)]
                           or [np.zeros(0, dtype=np.int64)])
            for k, row in enumerate(plan.in_pass)]
    # the nodes each run's factors are needed at: those of the positions in it or later runs
    runs = len(geometry.shifts)
    needed = np.zeros((runs + 1, len(nodes)), dtype=bool)
    for j, at in zip(geometry.run_of, uses):
        needed[j, at] = True
    needed = np.logical_or.accumulate(needed[::-1], axis=0)[::-1]
    before = _objects([arb(0)] * len(nodes))       # Σ_{r<j} len_r·log F_r at the nodes
    factors = []                                   # per run: (log F, w·p·S or w·p, before)
    made: dict = {}                                # a repeated shift's factors
    for j, (shift, length) in enumerate(zip(geometry.shifts, geometry.lengths)):
        at = np.flatnonzero(needed[j])
        key = (shift, at.tobytes())
        if key not in made:
            survival, distribution = _factors(nodes[at], to_arb(shift), cdf, sf, median)
            log_cdf = _objects([(-s).log1p() if s.mid() < f.mid() else f.log()
                                for s, f in zip(survival, distribution)])
            made[key] = log_cdf, survival
        log_cdf, survival = made[key]
        logs, offset = _objects([arb(0)] * len(nodes)), log_weighted.copy()
        logs[at] = log_cdf
        offset[at] = offset[at] + before[at]
        if not geometry.prefix:
            offset[at] = offset[at] + _objects([s.log() for s in survival])
        factors.append((logs, offset))
        before[at] = before[at] + length * log_cdf
    exponential = np.frompyfunc(arb.exp, 1, 1)
    sums = []
    for (j, t), at in zip(geometry.located, uses):
        logs, offset = factors[j]
        exponents = offset[at] if t == 0 else logs[at] * to_arb(t) + offset[at]
        sums.append(exponential(exponents).sum() if at.size else arb(0))
    return sums
