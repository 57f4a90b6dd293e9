"""Every output of a Sparse Vector mechanism that stops at its first ⊤ (cutoff 1, threshold never
redrawn) with smooth log-concave noise (Gaussian) at once, on Gauss–Legendre nodes shared by all
outputs: ``shared_nodes.py``'s method, its factors evaluated at the nodes and bounded off the
real line from real values; docs/engine.md §5.

The outputs are ``⊥ᵏ⊤`` (``k < n``) and ``⊥ⁿ``, with ``s_i = q_i − T`` (``form/threshold.py``)

    Pr[⊥ᵏ⊤] = ∫ p(z) P_k(z) S(z − s_k) dz,   P_k(z) = Π_{i<k} F(z − s_i),   Pr[⊥ⁿ] = ∫ p P_n.

Every integrand is entire, so the pieces are cut only where the integrands turn: at ``0`` and
the shifts ``s_i``, at doubling distances from them, and halved where a piece needs more than
``shared_nodes.MAX_ORDER`` nodes.  At each node the running products ``w·p·P_k`` take one
factor per query, ``F`` and ``S`` from one ``erfc`` (the smaller tail in balls, the other one
minus it).

Error, per output and piece: the rule's bound ``h·(64/15)·M·ρ^{2−2N}/(ρ² − 1)`` on the best
Bernstein ellipse ``E_ρ`` (``node_planner.plan``), with ``M`` from real values
(``off_axis.py``; the law's ``off_axis_growth`` ``C``, ``|g(x + iy)| ≤ g(x)·e^{C·y²}``): the
density and the factors below ``½`` at the piece's middle ``c`` by the tangent bound
``G(c) + |G'(c)|·r + h²·Σ C`` of their log sum, each factor on its flat side by
``log(1 + T·e^{C·h²})``, its complement ``T`` taken at the end of the ellipse's real extent where
it is largest, or for Gaussian noise by ``off_axis.decay_log_bound`` where that is smaller (on
the real segment, the smaller of this and the tangent of every factor).
These are cumulative sums over the queries, in double precision (the law's ``float_log``),
raised by ``2^{−30}`` of the sizes summed (``shared_nodes._rounding_margin``:
far above their rounding; a bound needs only a few correct bits).  The tails beyond the pieces
are bounded as in ``shared_nodes.py``.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from flint import arb

from ...noise import Gaussian, Kind
from ...precision import to_arb
from .off_axis import decay_log_bound, flat_log_bound, on_flat_side, tangent_log_bound
from .shared_nodes import (SparseVectorLayout, _exclusive_cumsum, _objects, _pieces,
                           _rounding_margin, rule_nodes, shared_probabilities)

#: The smallest noise scale served (:func:`smooth_in_doubles`).
SMALLEST_SCALE = Fraction(1, 10 ** 20)
#: ``(dps + TAIL_DIGITS)·ln 10`` nats of the hub's log density: where the pieces first reach.
TAIL_DIGITS = 20


def applies(mech) -> bool:
    """Cutoff 1, a fixed threshold, nothing released, both laws smooth and log-concave with an
    off-axis growth and double-precision log functions (the Gaussian)."""
    if (mech.cutoff != 1 or mech.redraw_threshold or mech.releases_numbers
            or mech.threshold_noise is None or mech.query_noise is None):
        return False
    laws = (mech.threshold_noise, mech.query_noise)
    return all(smooth_in_doubles(law) for law in laws)


def smooth_in_doubles(law) -> bool:
    """Whether the law is smooth and log-concave with an off-axis growth and double-precision
    log functions (``NoiseLaw.float_log``), at a scale of at least :data:`SMALLEST_SCALE`
    (below it, squares of distances in units of the scale would overflow the doubles of the
    bounds: the per-output certified path, which has no such limit, serves it)."""
    return (not law.is_point_mass and not law.integer_valued
            and law.off_axis_growth() is not None and law.scale >= SMALLEST_SCALE
            and law.float_log(Kind.PDF, np.zeros(1)) is not None)


def first_top_probabilities(mech, queries, dps: int) -> list:
    """``[Pr[⊥ᵏ⊤] for k < n] + [Pr[⊥ⁿ]]`` as ``arb`` balls of relative width at most
    ``10^{−dps}`` (else :class:`~exactdp.errors.PrecisionError`), for a mechanism for which
    :func:`applies`."""
    hub, noise = mech.threshold_noise, mech.query_noise
    shifts = [Fraction(q) - Fraction(mech.threshold) for q in queries]
    return shared_probabilities(
        mech, len(queries), dps, lambda pieces: SparseVectorLayout(hub, noise, shifts, pieces),
        *cutting(mech, shifts, dps), _LogBounds, _rule_sums)


def cutting(mech, shifts, dps: int) -> tuple:
    """``(cut, distance)`` for ``shared_nodes.shared_probabilities``: the pieces cut at ``0``
    and the ``shifts`` (module docstring), and the first distance beyond them, where the hub's
    log density has reached ``(dps + TAIL_DIGITS)·ln 10`` (``NoiseLaw.log_size``)."""
    hub = mech.threshold_noise
    cuts = sorted({Fraction(0)} | set(shifts))
    width = min(hub.scale, mech.query_noise.scale)
    distance = hub.scale
    while hub.log_size(distance) < (dps + TAIL_DIGITS) * Fraction(23, 10):  # ln 10 < 2.3
        distance *= 2
    return (lambda reach: _pieces(cuts, width, reach)), distance


class _LogBounds:
    """``log M[k, p]``: a bound of output ``k``'s integrand on an extent around the middle of
    piece ``p`` (module docstring), from the laws' logs and slopes at the middles (computed
    once) and, per extent off the real line, the complements of the factors on their flat side
    (on the real line also the tangent of every factor: all are log-concave).

    The rows are the layout's shifts (``geometry.shift_f``), each with its ``F`` and ``S``
    factor; :meth:`combine` gives each output's multiples of them (here the queries before
    ``k`` and the survival factor of query ``k``)."""

    def __init__(self, geometry: SparseVectorLayout):
        hub, noise, middle = geometry.hub, geometry.noise, geometry.middle
        self.noise, self.middle, self.shift = noise, middle, geometry.shift_f[:, None]
        self.relative = middle[None, :] - geometry.shift_f[:, None]            # (n, P)
        self.hub_value, self.hub_slope = hub.float_log(Kind.PDF, middle)
        self.hub_growth = float(hub.off_axis_growth())
        self.growth = float(noise.off_axis_growth())
        #: whether ``decay_log_bound`` holds (``p' = −2C·w·p``)
        self.gaussian = isinstance(noise, Gaussian)
        # F factors (⊥) and S factors (⊤): value, slope, whether on the flat side
        self.factors = {kind: (*noise.float_log(kind, self.relative),)
                        for kind in (Kind.CDF, Kind.SF)}
        self.flat = {kind: on_flat_side(kind, values[0])
                     for kind, values in self.factors.items()}
        # the distinct shifts (equal queries share their flat bounds) and their rows
        self.distinct, first, self.row_of = np.unique(geometry.shift_f, return_index=True,
                                                      return_inverse=True)
        self.distinct_flat = {kind: flat[first] for kind, flat in self.flat.items()}

    def __call__(self, low, high, imaginary, last) -> np.ndarray:
        """``(outputs, P)`` bounds on the extents ``[low, high] × [−imaginary, imaginary]``
        around the middles (arrays over the pieces) for the outputs ``k ≤ last[p]``; ``+inf``
        elsewhere: the factors on their flat side by the smaller of their two bounds
        (``off_axis.flat_log_bound`` and ``decay_log_bound``), the others by the tangent, and on
        the real line the smaller of that and the tangent of every factor."""
        reach = np.maximum(self.middle - low, high - self.middle)
        height = np.broadcast_to(np.asarray(imaginary, dtype=float), reach.shape)
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            out = self._bound(reach, height, self._flat_bounds(low, high, height[None, :]))
            if not np.any(height > 0):
                out = np.fmin(out, self._bound(reach, height, None))
        out[np.arange(out.shape[0])[:, None] > np.asarray(last)[None, :]] = np.inf
        return np.nan_to_num(out, nan=np.inf)

    def _flat_bounds(self, low, high, height) -> dict:
        """Per kind, ``(bound, size)`` of each factor on its flat side over the extents (rows ×
        pieces; 0 elsewhere): ``off_axis.flat_log_bound`` and, for Gaussian noise, the smaller
        of it and ``decay_log_bound``, the complement ``T`` of a flat ``F`` (``S``) largest at
        the left end and least at the right one (the reverse for a flat ``S``); ``size`` bounds
        the parts summed, for the margin.  Evaluated once per distinct shift, where flat."""
        start, stop = low[None, :] - self.distinct[:, None], high[None, :] - self.distinct[:, None]
        distance = np.maximum(np.abs(start), np.abs(stop))
        height = np.broadcast_to(height, start.shape)
        bounds = {}
        for kind, complement, far, near in ((Kind.CDF, Kind.SF, start, stop),
                                            (Kind.SF, Kind.CDF, stop, start)):
            flat = self.distinct_flat[kind]
            log_far, _ = self.noise.float_log(complement, far[flat])
            bound = flat_log_bound(log_far, self.growth, height[flat])
            size = np.abs(bound)
            if self.gaussian:
                log_near, slope_near = self.noise.float_log(complement, near[flat])
                decay, parts = decay_log_bound(log_near, log_far, np.abs(slope_near),
                                               distance[flat], self.growth, height[flat])
                bound = np.fmin(bound, decay)
                size = np.maximum(size, parts)
            full = np.zeros((2,) + flat.shape)
            full[:, flat] = bound, size
            bounds[kind] = full[0][self.row_of], full[1][self.row_of]
        return bounds

    def _bound(self, reach, height, flat_bounds) -> np.ndarray:
        """The bounds with the factors on their flat side by ``flat_bounds`` (None: every
        factor by the tangent), raised by their rounding margin."""
        n = self.relative.shape[0]
        parts = {}  # per kind: steep logs, slopes, counts, sizes, slope sizes, flat bounds
        for kind in (Kind.CDF, Kind.SF):
            value, slope = self.factors[kind]
            if flat_bounds is None:
                flat, flat_bound, flat_size = np.zeros_like(value, dtype=bool), 0.0, 0.0
            else:
                flat = self.flat[kind]
                flat_bound, flat_size = (np.where(flat, part, 0.0)
                                         for part in flat_bounds[kind])
            parts[kind] = np.stack(
                [np.where(flat, 0.0, part) for part in (value, slope, np.ones_like(value),
                                                        np.abs(value), np.abs(slope))]
                + [np.broadcast_to(flat_bound, value.shape),
                   np.broadcast_to(flat_size, value.shape)], axis=1)
        value, slope, count, size, size_slope, flat_total, flat_size = np.moveaxis(
            self.combine(parts[Kind.CDF], parts[Kind.SF]), 1, 0)
        value += self.hub_value
        slope += self.hub_slope
        size += np.abs(self.hub_value)
        size_slope += np.abs(self.hub_slope)
        curvature = self.hub_growth + self.growth * count
        bound = tangent_log_bound(value, slope, reach, curvature, height) + flat_total
        margin = _rounding_margin(size + size_slope * reach + curvature * height ** 2
                                  + flat_size + n + 3)
        return bound + margin

    @staticmethod
    def combine(cdf, survival) -> np.ndarray:
        """``(n + 1, …)``: per output ``k`` the sums of parts over its factors, ``cdf`` and
        ``survival`` (``(n, …)``) the parts of each query's ``F`` and ``S`` factor (rows): the
        ``F`` factors of the queries before ``k`` and the survival factor of ``⊥ᵏ⊤`` (not of
        ``⊥ⁿ``)."""
        total = _exclusive_cumsum(cdf)
        total[:-1] += survival
        return total


def _rule_sums(geometry: SparseVectorLayout, plan, bits: int) -> list:
    """The rule's sum for every output: one pass over the queries, each multiplying the running
    products ``w·p·P_k`` at the nodes still in the pass (the nodes from right to left, so those
    in the pass are a prefix: ``shared_nodes._plan``) by ``F(z − s_k)``, after adding
    ``Σ w·p·P_k·S(z − s_k)`` to output ``k``."""
    hub, noise, shifts = geometry.hub, geometry.noise, geometry.shifts
    n = len(shifts)
    density = hub.ball_log(Kind.PDF)
    cdf, sf = noise.ball_log(Kind.CDF), noise.ball_log(Kind.SF)
    median = to_arb(noise.median * noise.scale)
    nodes, weights, _, in_pass = rule_nodes(geometry, plan, bits)
    products = _objects([weight * density.value(z) for z, weight in zip(nodes, weights)])
    last_use = {shift: k for k, shift in enumerate(shifts)}
    made: dict = {}  # a repeated query's factors at the nodes, kept until its last use
    sums = []
    for k, shift in enumerate(shifts):
        count, keep = in_pass[k], in_pass[k + 1]
        survival, distribution = made.pop(shift, None) or _factors(
            nodes[:count], to_arb(shift), cdf, sf, median)
        if last_use[shift] > k:
            made[shift] = survival[:keep], distribution[:keep]
        current = products[:count]
        sums.append((current * survival[:count]).sum() if count else arb(0))
        products[:keep] = (current[:keep] * distribution[:keep])
    sums.append(products[:in_pass[n]].sum() if in_pass[n] else arb(0))
    return sums


def _factors(nodes, shift: arb, cdf, sf, median: arb) -> tuple:
    """``(S(z − shift), F(z − shift))`` at the ``nodes`` (arrays of balls): one ``erfc`` per
    node, for the smaller tail; the other is one minus it."""
    survival, distribution = [], []
    for z in nodes:
        x = z - shift
        if x.mid() >= median:  # the survival function is the smaller tail
            tail = sf.value(x)
            survival.append(tail)
            distribution.append(1 - tail)
        else:
            tail = cdf.value(x)
            distribution.append(tail)
            survival.append(1 - tail)
    return _objects(survival), _objects(distribution)
