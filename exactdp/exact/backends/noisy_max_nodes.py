"""Every index of Report Noisy Max with smooth log-concave noise (Gaussian) at once, on
Gauss–Legendre nodes shared by all indices (``shared_nodes.py``'s method and plan, the factors
bounded off the real line as in ``smooth_shared_nodes.py``); docs/engine.md §5.

With the winner's noisy answer ``x = q_i + η_i`` as the variable (``form/noisy_max.py`` takes
``η_i``), and ``c_u`` the number of answers equal to ``u``,

    Pr[argmax = i] = ∫ p(x − q_i) F(x − q_i)^{c − 1} Π_{u ≠ q_i} F(x − u)^{c_u} dx
                   = ∫ P(x) · p(x − q_i)/F(x − q_i) dx,      P(x) = Π_u F(x − u)^{c_u},

one integral per distinct answer (equal answers win with equal probability).  At each node the
product ``w·P(x)`` is made once (one ``erfc`` per distinct answer, raised to its count), and each
distinct answer ``v`` adds ``Σ w·P(x)·p(x − v)/F(x − v)`` over the nodes its integral needs.

Bounds, per distinct answer and piece: the log sum of the factors of its integrand, the density
``p(x − v)`` and every CDF below ``½`` at the piece's middle by the tangent bound, each CDF on its
flat side by ``log(1 + S·e^{C·h²})`` with ``S`` at the left end of the ellipse's real extent
(``off_axis.py``; off the real line only): the sums over all answers less the one factor
``F(x − v)`` the integrand lacks, in double precision raised by
``shared_nodes._rounding_margin``.  Beyond the pieces,
``P`` is increasing and ``p(x − v)/F(x − v)·F(x − v) = p(x − v)``: the left tail is at most
``P(L)``, the right one at most ``S(R − v)``.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from flint import arb

from ...noise import Kind
from ...precision import to_arb
from .off_axis import flat_log_bound, on_flat_side, tangent_log_bound
from .piece_series import flint_context
from .piecewise_gauss import BOUND_BITS
from .shared_nodes import (PieceLayout, _objects, _pieces, _rounding_margin, rule_nodes,
                           shared_probabilities)
from .smooth_shared_nodes import TAIL_DIGITS, _factors, smooth_in_doubles


def applies(mech) -> bool:
    """Noisy max releasing an index, its law smooth and log-concave with an off-axis growth and
    double-precision log functions (the Gaussian: ``smooth_shared_nodes.smooth_in_doubles``)."""
    return not mech.releases_value and smooth_in_doubles(mech.noise)


def answer_probabilities(mech, counts: dict, dps: int) -> dict:
    """``{v: Pr[argmax = i]}`` for an index ``i`` of each distinct answer ``v`` (equal answers
    win with equal probability), the answers occurring ``counts[v]`` times, as ``arb`` balls of
    relative width at most ``10^{−dps}`` (else :class:`~exactdp.errors.PrecisionError`), for a
    mechanism for which :func:`applies`: the work depends on the distinct answers, not on how
    often each occurs."""
    noise = mech.noise
    values = sorted(counts)
    distance = noise.scale
    while noise.log_size(distance) < (dps + TAIL_DIGITS) * Fraction(23, 10):  # ln 10 < 2.3
        distance *= 2
    balls = shared_probabilities(
        mech, sum(counts.values()), dps,
        lambda pieces: _Geometry(noise, values, counts, pieces),
        lambda distance: _pieces(values, noise.scale, distance), distance, _LogBounds,
        _rule_sums)
    return dict(zip(values, balls))


class _Geometry(PieceLayout):
    """The pieces, the distinct answers and their counts."""

    def __init__(self, noise, values, counts, pieces):
        super().__init__(pieces)
        self.noise, self.values = noise, values
        self.counts = [counts[v] for v in values]
        self.value_f = np.array([float(v) for v in values])
        self.count_f = np.array(self.counts, dtype=float)
        self.outputs = len(values)

    def tails(self) -> list:
        """Per distinct answer ``v``, the ball ``[0, P(L) + S(R − v)]`` (module docstring)."""
        cdf, sf = self.noise.ball_log(Kind.CDF), self.noise.ball_log(Kind.SF)
        with flint_context(BOUND_BITS):
            lower, upper = to_arb(self.lower), to_arb(self.upper)
            left = sum((count * cdf.log(lower - to_arb(v))
                        for v, count in zip(self.values, self.counts)), arb(0)).exp()
            return [arb(0, (left + sf.value(upper - to_arb(v))).upper()) for v in self.values]


class _LogBounds:
    """``log M[v, p]``: a bound of distinct answer ``v``'s integrand on an extent around the
    middle of piece ``p`` (module docstring; on the real line every factor takes the tangent,
    as in ``smooth_shared_nodes._LogBounds``)."""

    def __init__(self, geometry: _Geometry):
        noise, middle = geometry.noise, geometry.middle
        self.noise, self.middle = noise, middle
        self.value = geometry.value_f[:, None]                                   # (m, 1)
        self.count = geometry.count_f[:, None]
        relative = middle[None, :] - self.value                                  # (m, P)
        self.growth = float(noise.off_axis_growth())
        self.cdf, self.cdf_slope = noise.float_log(Kind.CDF, relative)
        self.pdf, self.pdf_slope = noise.float_log(Kind.PDF, relative)
        self.flat = on_flat_side(Kind.CDF, self.cdf)

    def __call__(self, low, high, imaginary, last) -> np.ndarray:
        """``(m, P)`` bounds on the extents ``[low, high] × [−imaginary, imaginary]`` around the
        middles for the answers ``k ≤ last[p]``; ``+inf`` elsewhere."""
        reach = np.maximum(self.middle - low, high - self.middle)
        height = np.broadcast_to(np.asarray(imaginary, dtype=float), reach.shape)
        off_axis = bool(np.any(height > 0))
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            flat = self.flat & off_axis
            if off_axis:
                log_survival, _ = self.noise.float_log(Kind.SF, low[None, :] - self.value)
                flat_bound = np.where(flat, flat_log_bound(log_survival, self.growth, height),
                                      0.0)
            else:
                flat_bound = np.zeros_like(self.cdf)
            # per answer, its one CDF factor's steep parts; over all answers, their weighted
            # sums; each answer's integrand lacks one of its own CDF factors
            own = [np.where(flat, 0.0, part)
                   for part in (self.cdf, self.cdf_slope, np.ones_like(self.cdf),
                                np.abs(self.cdf), np.abs(self.cdf_slope))] + [flat_bound]
            value, slope, count, size, size_slope, flat_total = (
                np.sum(self.count * part, axis=0)[None, :] - part for part in own)
            size += 2 * np.abs(own[0]) + np.abs(self.pdf)
            size_slope += 2 * np.abs(own[1]) + np.abs(self.pdf_slope)
            value, slope = value + self.pdf, slope + self.pdf_slope
            curvature = self.growth * (count + 1)
            bound = tangent_log_bound(value, slope, reach, curvature, height) + flat_total
            margin = _rounding_margin(size + size_slope * reach + curvature * height ** 2
                                      + np.abs(flat_total) + 2 * np.sum(self.count) + 3)
            out = bound + margin
        out[np.arange(out.shape[0])[:, None] > np.asarray(last)[None, :]] = np.inf
        return np.nan_to_num(out, nan=np.inf)


def _rule_sums(geometry: _Geometry, plan, bits: int) -> list:
    """The rule's sum for every distinct answer: ``w·P`` at every node (nodes from right to
    left, so those an answer needs are a prefix: ``shared_nodes._plan``), then per answer
    ``Σ w·P·p/F`` over its prefix."""
    noise = geometry.noise
    cdf, sf, density = (noise.ball_log(kind) for kind in (Kind.CDF, Kind.SF, Kind.PDF))
    median = to_arb(noise.median * noise.scale)
    nodes, weights, _, in_pass = rule_nodes(geometry, plan, bits)
    products = _objects(weights)
    distributions = []   # F(z − q) at every node, per answer: its prefix serves the hazard below
    for value, count in zip(geometry.values, geometry.counts):
        _, distribution = _factors(nodes, to_arb(value), cdf, sf, median)
        distributions.append(distribution)
        products = products * (distribution ** count if count > 1 else distribution)
    sums = []
    for k, value in enumerate(geometry.values):
        count, shift = in_pass[k], to_arb(value)
        if not count:
            sums.append(arb(0))
            continue
        hazard = (_objects([density.value(z - shift) for z in nodes[:count]])
                  / distributions[k][:count])
        sums.append((products[:count] * hazard).sum())
    return sums
