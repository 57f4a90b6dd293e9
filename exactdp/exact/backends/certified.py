"""Certified evaluation of the integral form: rigorous enclosures in ball arithmetic (Arb).

Every number below is an Arb ball (python-flint's ``arb``/``acb``): an interval guaranteed to
contain the exact value, whatever the rounding and the cancellation — they only widen the ball.
The evaluation reads the integral form (``form/integral_form.py``) and nothing else:

* exact rational inputs (shifts, bounds, scales, points) become balls of ``p/q``;
* a **constant** ``g(x)^k`` is ``k·log g(x)`` from the law's ball functions
  (``NoiseLaw.ball_log``);
* an **integral** ``I = ∫ p_hub(z) Π g_j(z − s_j)^{m_j} dz`` is split at its kinks; on each
  piece every ``g_j`` is an entire function of ``z`` (``NoiseLaw.ball_log`` on the side of the
  law's kink that holds the piece).  For piecewise exponential laws the integrand is
  ``exp(c₀ + c₁z) · Π_j (1 − e^{a_j + λ_j z})^{m_j}`` (``NoiseLaw.piece``; Laplace:
  ``F_b(x) = ½e^{x/b}`` for ``x < 0``, ``1 − ½e^{−x/b}`` for ``x ≥ 0``; exponential:
  ``F_b(x) = 1 − e^{−x/b}`` on ``x > 0``).  It is integrated

  - *in closed form* when the laws are piecewise exponential and the expansion is small: with
    ``w = e^{z/b}`` the product is a Laurent polynomial in ``w`` (``exponential_sums.py``),
    integrated term by term in balls; or
  - *rigorously* by piecewise Gauss–Legendre (``backends/piecewise_gauss.py``) for piecewise
    exponential laws, else by Gauss–Legendre with the Bernstein-ellipse bound
    ``h·(64/15)·M_ρ·ρ^{2−2N}/(ρ² − 1)`` (``vector_quadrature.integrate_vector``; Trefethen,
    *Approximation Theory and Approximation Practice*, SIAM 2013, Thm 19.3), with
    ``acb.integral`` (adaptive Gauss–Legendre with a certified error bound; Johansson,
    "Numerical integration in arbitrary-precision ball arithmetic", ICMS 2018,
    arXiv:1802.07942) as the fallback, between the peak-aware breakpoints of the quadrature
    (``quadrature.find_peak``/``breakpoints`` on the log integrand in balls, whose positions
    need not be exact: they only cut the domain), with the value ``e^{g*}`` at the peak
    factored out, and the two cut-off tails bounded by the tangent of the concave log
    integrand ``g``: for ``R`` right of the peak, ``g(z) ≤ g(R) + g'(R)(z − R)``, so
    ``∫_R^∞ e^{g} ≤ e^{g(R)}/|g'(R)|`` (the left tail alike), with ``g(R)`` and ``g'(R)``
    themselves balls.  The laws are log-concave (their densities, CDFs and survival functions:
    Laplace, exponential, Gumbel), so ``g`` is concave on the whole line and the bound holds
    whatever the kinks beyond ``R``; a Gumbel CDF ``exp(−e^{−x/b})`` far left of its mode is a
    ball like any other (no underflow);
* a **nested integral** (a tree of compared noises, ``form/nested_integral.py``) by its
  messages in closed form (``backends/nested_messages.py``), a group with two hubs on the
  cells of the hubs' plane (``backends/hub_pairs.py``), a group with three hubs on the slabs
  of the hubs' space (``backends/hub_triples.py``): piecewise exponential laws; for smooth
  laws (Gaussian, Gumbel; three hubs Gaussian only) by a Gauss–Legendre rule per message with
  the ellipse bound, the inner messages bounded on complex balls
  (``backends/nested_quadrature.py``); two trees or two-hub groups whose regions are one up to
  exchanging noises of equal law or reflecting them all (``form/noise_symmetries.py``), and
  one-hub integrals equal by the reflection, are computed once within :func:`shared_integrals`;
* a **term** is the sum of the logs; the **form** ``log Σ_t e^{ℓ_t}``.

Arb's exponent range is unbounded, so ``1e-428491`` is a ball like any other.  The working
precision starts at the requested digits plus the digits the largest logarithm costs, and is
doubled until the relative width of the result is at most ``10^{−dps}``
(:class:`~exactdp.errors.PrecisionError` otherwise).  A law without ball functions ("no noise",
which never carries a factor) is refused with :class:`~exactdp.errors.MethodUnavailableError`.
"""

from __future__ import annotations

import bisect
import contextlib
import contextvars
import dataclasses
import math
from fractions import Fraction
from typing import NamedTuple

import mpmath
from flint import acb, arb, ctx

from ...errors import PrecisionError
from ...noise import Kind, NoiseLaw
from ...precision import (GOAL_GUARD_DIGITS, ROUNDING_GUARD_DIGITS, CertifiedProbability,
                         exact_mpf, to_arb, to_mpf, working_bits, working_dps)
from ...refinement import refine
from ...sequences import to_fraction
from .discrete_hub import log_sum
from .off_axis import on_flat_side, tangent_log_bound
from .arithmetics import BALLS
from .exponential_sums import ExponentialProduct, integrate, product_on_piece
from ..form.noise_symmetries import group_key, integral_key
from ..form.integral_form import Integral, IntegralForm, Term, interior_point
from ..form.log_integrand import LogIntegrand
from ..form.nested_integral import HubPair, HubTriple, NestedIntegral
from .hub_triples import log_hubs
from .nested_messages import log_nested
from .nested_quadrature import log_nested_smooth, smooth
from .piece_series import PiecewiseExponential
from .piecewise_gauss import log_integral_certified
from .peak_quadrature import breakpoints, find_peak
from .tail_bound import tangent_tail_bound
from .vector_quadrature import integrate_vector

#: Closed form when every piece's Laurent polynomial has at most this degree (else integrate;
#: the closed form is the cheaper up to about this degree, ``benchmarks/distinct_values.py``).
CLOSED_FORM_DEGREE = 64
#: The working precision is doubled at most this many times before giving up.
MAX_DOUBLINGS = 4
#: The drop of the log integrand below its peak where the certified rules cut the domain (besides
#: the kinks and the cut-off points): Gauss–Legendre on an entire integrand gains from long
#: pieces (``benchmarks/gaussian_speed.py``).
CUT_LEVEL = 4
#: Bits of the balls of the peak and level searches (:class:`BallLogIntegrand`), beyond the
#: bits of the integral's magnitude.
SEARCH_BITS = 64
#: Bits of the complex balls that bound the integrand on the Bernstein ellipses (a bound needs
#: few digits; a ball stays an enclosure at any precision).
BOUND_BITS = 32
#: A CDF or survival factor whose scale is below this fraction of the domain between the
#: cut-off points is *narrow*: it is cut where it saturates (:func:`_saturation_points`), and
#: left out of the segments where it is within ``2^{−goal−SATURATION_BITS}`` of 1
#: (:func:`gauss_legendre_segments`).
NARROW = Fraction(1, 1024)
SATURATION_BITS = 10


# --- the log integrand on one segment ---------------------------------------------------------

class SegmentIntegrand:
    """``g(z) = log p_hub(z) + Σ_j m_j log g_j(z − s_j)`` on a segment between kinks, from the
    laws' ball functions (``NoiseLaw.ball_log``) on the sides of their kinks that contain
    ``middle`` (any law with a certified rule: piecewise exponential or smooth)."""

    def __init__(self, integral: Integral, middle: Fraction):
        hub = integral.hub
        self.terms = [(hub.ball_log(Kind.PDF, hub.side(middle)), arb(0), 1)]
        self.terms += [(f.law.ball_log(f.kind, f.law.side(middle - f.shift)), to_arb(f.shift),
                        f.power) for f in integral.factors]
        #: ``(NoiseLaw.off_axis_growth(), kind)`` of each term, for :meth:`modulus_bound`
        self.growths = [(hub.off_axis_growth(), Kind.PDF)]
        self.growths += [(f.law.off_axis_growth(), f.kind) for f in integral.factors]

    def log(self, z: arb) -> arb:
        """``g(z)`` at a real ball ``z``."""
        return sum((power * functions.log(z - shift) for functions, shift, power in self.terms),
                   arb(0))

    def slope(self, z: arb) -> arb:
        """``g'(z)`` at a real ball ``z``."""
        return sum((power * functions.slope(z - shift)
                    for functions, shift, power in self.terms), arb(0))

    def sensitivity(self, z: arb) -> arb:
        """``Σ_j m_j (|log g_j(z − s_j)| + |z·g_j'(z − s_j)|)`` (the hub's term included) at a
        real ball ``z``: how many units of the working precision the rounding of each term and
        of ``z`` itself (to ``z(1 + δ)``, which moves ``m_j log g_j`` by ``m_j|z g_j'|δ``) may
        move ``g(z)``."""
        return sum((power * (abs(functions.log(z - shift)) + abs(z * functions.slope(z - shift)))
                    for functions, shift, power in self.terms), arb(0))

    def scaled(self, log_scale: arb):
        """``z ↦ e^{−log_scale} Π_j g_j(z − s_j)^{m_j}`` on real (``arb``) or complex (``acb``)
        balls: a product of entire functions."""
        scale = (-log_scale).exp()
        terms = self.terms

        def f(z):
            value = scale
            for functions, shift, power in terms:
                value = value * functions.value(z - shift) ** power
            return value
        return f

    def modulus_bound(self, z: acb, log_scale: arb) -> arb:
        """An upper bound on ``|e^{−log_scale} Π_j g_j(w − s_j)^{m_j}|`` over the complex ball
        ``z ∋ w = x + iy``, ``x`` within ``r`` of the real centre ``c`` of ``z``.

        The terms of laws with an off-axis growth ``C_j`` (``NoiseLaw.off_axis_growth``: the
        Gaussian's ``1/(2σ²)``) are bounded together from real values:
        ``|g_j(x + iy)| ≤ g_j(x)·e^{C_j y²}``, and their log sum ``g_T`` is concave on the whole
        line (such laws are smooth and log-concave), so it lies below its tangent at ``c``:

            Π_T |g_j(w − s_j)|^{m_j} ≤ exp(g_T(c) + |g_T'(c)|·r + y_max²·Σ_T m_j C_j).

        Evaluating each factor on the ball instead would multiply the bound by about
        ``e^{r·Σ|m_j g_j'|}``: at a peak far from the centres of the laws (``|x − s_j| ≫ σ``)
        the terms' slopes ``±|x − s_j|/σ²`` cancel in ``g'`` but not in the balls' widths, and
        a Gaussian of scale ``σ`` would need pieces ``σ²/|x − s_j|`` wide.  A CDF or survival
        function at least ``½`` at ``c`` (its flat side, where the ball's width costs little),
        and every term of a law without a growth constant, is evaluated on the ball."""
        x, height = z.real, arb(z.imag.abs_upper())
        centre, reach = arb(x.mid()), arb(x.rad())
        log_bound, slope, curvature, direct = -log_scale, arb(0), arb(0), arb(1)
        for (functions, shift, power), (growth, kind) in zip(self.terms, self.growths):
            if growth is not None:
                log_value = functions.log(centre - shift)
                if not on_flat_side(kind, log_value):
                    log_bound += power * log_value
                    slope += power * functions.slope(centre - shift)
                    curvature += power * to_arb(growth)
                    continue
            direct *= abs(functions.value(z - shift)) ** power
        return tangent_log_bound(log_bound, slope, reach, curvature, height).exp() * direct

    def integrand(self, log_scale: arb):
        """:meth:`scaled` in the form ``acb.integral`` calls: the function is entire, so its
        ``analytic`` flag needs no check."""
        scaled = self.scaled(log_scale)
        return lambda z, _analytic: scaled(z)


class BallLogIntegrand(LogIntegrand):
    """:class:`~exactdp.exact.form.log_integrand.LogIntegrand` evaluated in balls at
    :data:`SEARCH_BITS` bits (plus the bits of the integral's magnitude) by the
    :class:`SegmentIntegrand` of the segment between kinks holding the point, returned as the
    ball's midpoint: Arb's ``erfc`` and ``exp`` are many times faster than mpmath's, and the
    peak and level searches of ``backends/peak_quadrature.py`` only place breakpoints, so their
    values need not be exact.  Where a ball is not finite (a zero of the integrand at a bound) it
    answers with mpmath's value."""

    def __init__(self, integral: Integral):
        super().__init__(integral)
        self.bits = SEARCH_BITS + int(integral.magnitude).bit_length()
        self._pieces = integral.pieces
        self._segments: dict = {}

    def _segment(self, z) -> SegmentIntegrand:
        """The segment integrand of the piece containing ``z`` (the right one at a kink)."""
        index = bisect.bisect_right(self.kinks, z)
        if index not in self._segments:
            self._segments[index] = SegmentIntegrand(self.integral,
                                                     interior_point(*self._pieces[index]))
        return self._segments[index]

    def _ball(self, z, method, fallback):
        with ctx.workprec(self.bits):
            value = method(self._segment(z), arb(z))
            if value.is_finite():
                return exact_mpf(value.mid())
        return fallback(self, z)

    def __call__(self, z):
        return self._ball(z, SegmentIntegrand.log, LogIntegrand.__call__)

    def slope(self, z):
        """``g'(z)`` (the right derivative at a kink)."""
        return self._ball(z, SegmentIntegrand.slope, LogIntegrand.slope)

    def sensitivity(self, z):
        """:meth:`SegmentIntegrand.sensitivity` (``+inf`` where the ball is not finite)."""
        return self._ball(z, SegmentIntegrand.sensitivity, lambda _, z: mpmath.inf)


# --- closed form ------------------------------------------------------------------------------

def closed_piece(product: ExponentialProduct, lo: Fraction | None, hi: Fraction | None) -> arb:
    """``∫_lo^hi`` of the product by the expansion of ``exponential_sums.py`` in balls."""
    # the terms alternate in sign and reach about 2^degree times the result: carry those bits
    with ctx.workprec(ctx.prec + product.degree() + 10):
        return +integrate(product, lo, hi, BALLS)


# --- rigorous integration ---------------------------------------------------------------------

def _probe(integral: Integral, x: Fraction, side: int) -> Fraction:
    """A point just ``side`` of ``x`` (−1 left, +1 right) on the same piece as ``(x, x±δ)``."""
    others = [abs(k - x) for k in integral.kinks if k != x]
    step = min([integral.scale] + others) / 2
    return x + side * step


def _tail(integral: Integral, x: Fraction, side: int, log_scale: arb) -> arb:
    """A ball ``[0, bound]`` containing ``e^{−log_scale}∫`` beyond ``x`` on ``side``:
    ``e^{g(x) − log_scale}/|g'(x)|`` (:func:`~.tail_bound.tangent_tail_bound`)."""
    segment = SegmentIntegrand(integral, _probe(integral, x, side))
    point = to_arb(x)
    bound = tangent_tail_bound(segment.log(point), segment.slope(point) * side, log_scale)
    return arb(0, bound).nonnegative_part()


class Cuts(NamedTuple):
    """The layout of :func:`integrate_piecewise`, from the non-rigorous peak-aware search."""

    #: exact rational breakpoints, increasing (the kinks and finite bounds among them)
    points: list
    #: the value ``g*`` near the peak, factored out
    log_scale: arb
    #: whether each end is cut off (a tail to bound) rather than a bound of the domain
    left_cut: bool
    right_cut: bool
    #: a rough lower bound on the scaled integral (it sets the absolute tolerance: effort, not
    #: rigour)
    size: Fraction
    #: the largest :meth:`SegmentIntegrand.sensitivity` at the outer points and the peak,
    #: about the largest between them (each ``−log g_j`` is convex, each ``|g_j'|`` largest at
    #: an end): its bits are what the evaluations need beyond the goal, often far fewer than
    #: the static ``Integral.magnitude`` (a Gaussian of scale ``1e-300`` whose tail the domain
    #: does not reach), or more (its steep side near a point far from 0)
    sensitivity: mpmath.mpf


def _cut_points(integral: Integral, goal: int) -> Cuts:
    """The :class:`Cuts` of ``integral`` for a relative accuracy ``2^{−goal}``."""
    with mpmath.workdps(working_dps(10, integral.magnitude)):
        g = BallLogIntegrand(integral)
        peak = find_peak(g)
        peak_value = g(peak)
        cutoff = (goal + 10) * mpmath.ln2
        points, _ = breakpoints(g, peak, peak_value, cutoff, (CUT_LEVEL,))
        sizes = [g.sensitivity(p) for p in (points[0], peak, points[-1])]
        sensitivity = max(size for size in sizes if mpmath.isfinite(size))
        # exactly: at a scale of 1e-300 a double would merge the points
        rational = {to_fraction(p, "breakpoint") for p in points if mpmath.isfinite(p)}
        log_scale = arb(peak_value)
        centre = to_fraction(peak, "peak")
    tolerance = integral.scale * Fraction(1, 10 ** 9)
    low, high = min(rational), max(rational)
    left_cut = integral.lower is None or low - integral.lower > tolerance
    right_cut = integral.upper is None or integral.upper - high > tolerance
    if not left_cut:
        low = integral.lower
    if not right_cut:
        high = integral.upper
    inside = {p for p in rational if low < p < high}
    inside.update(k for k in integral.kinks if low < k < high)
    inside.update(p for p in _saturation_points(integral, goal, high - low) if low < p < high)
    points = [low, *sorted(inside), high]
    # the integrand stays above e^{-CUT_LEVEL} between the peak's neighbours (the level points,
    # or nearer kinks and bounds): a lower bound on the scaled integral
    span = (min([p for p in points if p > centre], default=high)
            - max([p for p in points if p < centre], default=low))
    return Cuts(points, log_scale, left_cut, right_cut, span / math.ceil(math.exp(CUT_LEVEL)),
                sensitivity)


def _narrow_factors(integral: Integral, width: Fraction) -> list:
    """The CDF and survival factors whose scale is below :data:`NARROW` of ``width``."""
    return [f for f in integral.factors
            if f.kind is not Kind.PDF and f.law.scale < NARROW * width]


def _saturation_points(integral: Integral, goal: int, width: Fraction) -> list:
    """For each narrow factor (:func:`_narrow_factors`), the point beyond which it is within
    ``2^{−goal−SATURATION_BITS}/(total power)`` of 1 (right of a CDF's shift, left of a
    survival function's), found by doubling and bisection on the log of its complement (the
    other function of its law, which decreases away from the shift).  Where the factor
    saturates the integrand no longer follows its scale, and a segment beyond the point leaves
    it out: a Gaussian of scale ``1e-300`` 1 from a hub of scale 2 would otherwise grade the
    pieces towards its step over 1000 halvings.  The points only cut; the saturation of each
    segment is checked in balls."""
    points = []
    with mpmath.workdps(30):
        # a factor of margin 2 below the threshold of _saturated
        level = -(goal + SATURATION_BITS + 1) * mpmath.ln2 - mpmath.log(integral.total_power)
        for factor in _narrow_factors(integral, width):
            law = factor.law
            complement, direction = ((Kind.SF, 1) if factor.kind is Kind.CDF
                                     else (Kind.CDF, -1))

            def saturated(distance: Fraction, law=law, complement=complement,
                          direction=direction) -> bool:
                return law.log(complement, direction * to_mpf(distance)) < level

            far = law.scale
            while not saturated(far):
                far *= 2
            near = far / 2
            for _ in range(8):  # to 1/256 of the distance: the point only cuts
                middle = (near + far) / 2
                near, far = (near, middle) if saturated(middle) else (middle, far)
            points.append(factor.shift + direction * far)
    return points


def _saturated(integral: Integral, a: Fraction, b: Fraction, width: Fraction,
               threshold: arb) -> tuple[Integral, arb]:
    """``(integral without the narrow factors saturated on [a, b], ε)``: a narrow factor
    (:func:`_narrow_factors` of the domain's ``width``) ``g^m`` whose complement ``c`` at the
    end of ``[a, b]`` nearer its shift (the complement decreases away from it) is below
    ``threshold`` lies in ``[(1 − c)^m, 1] ⊂ [1 − m·c, 1]`` on ``[a, b]``, so the integrand lies
    in ``[(1 − ε)·f_rest, f_rest]`` with ``ε = Σ m·c`` over the factors left out."""
    left_out, epsilon = set(), arb(0)
    for factor in _narrow_factors(integral, width):
        complement = Kind.SF if factor.kind is Kind.CDF else Kind.CDF
        nearer = a if factor.kind is Kind.CDF else b
        log_value = factor.law.log_ball_at(complement, nearer - factor.shift)
        value = arb(0) if log_value is None else log_value.exp()
        if value < threshold:
            left_out.add(factor)
            epsilon += factor.power * value
    if not left_out:
        return integral, arb(0)
    kept = tuple(f for f in integral.factors if f not in left_out)
    return dataclasses.replace(integral, factors=kept), epsilon


def gauss_legendre_segments(integral: Integral, cuts: Cuts, target: arb) -> arb:
    """``e^{−log_scale}∫`` between the first and last of the ``cuts``' points by piecewise
    Gauss–Legendre with the Bernstein-ellipse error bound
    (``vector_quadrature.integrate_vector``, a vector of one integrand), with absolute error
    at most about ``target·size``: each segment's integrand (:meth:`SegmentIntegrand.scaled`)
    is entire, and :meth:`SegmentIntegrand.modulus_bound` bounds it on the ellipses.  A
    segment leaves out the narrow factors saturated on it (:func:`_saturated`); the sum, of
    non-negative integrals, is then multiplied by ``[1 − ε, 1]``, ``ε`` the largest of the
    segments'."""
    points, log_scale = cuts.points, cuts.log_scale
    threshold = target * arb(2) ** -SATURATION_BITS / max(1, integral.total_power)
    reduced = [_saturated(integral, a, b, points[-1] - points[0], threshold)
               for a, b in zip(points, points[1:])]
    segments = [SegmentIntegrand(part, (a + b) / 2)
                for (part, _), a, b in zip(reduced, points, points[1:])]
    scaled = [segment.scaled(log_scale) for segment in segments]
    epsilon = max((epsilon for _, epsilon in reduced), key=lambda ball: ball.upper())
    # the bounds sum logs as large as the sensitivity: its bits come on top
    bound_bits = BOUND_BITS + int(cuts.sensitivity).bit_length()

    def index(middle: Fraction) -> int:
        return bisect.bisect_right(points, middle) - 1

    def evaluate(z: arb, middle: Fraction) -> list:
        return [scaled[index(middle)](z)]

    def bound(z: acb, middle: Fraction) -> arb:
        with ctx.workprec(bound_bits):
            return segments[index(middle)].modulus_bound(z, log_scale)

    (value,) = integrate_vector(evaluate, bound, points, arb(0), target * to_arb(cuts.size))
    return value * (1 - arb(0, epsilon.upper()).nonnegative_part())


def acb_integral_segments(integral: Integral, cuts: Cuts, target: arb) -> arb:
    """As :func:`gauss_legendre_segments`, by ``acb.integral`` segment by segment (its own
    adaptive Gauss–Legendre; module docstring), with the relative tolerance ``target`` and
    the absolute one ``target·size`` on each segment."""
    total, size = arb(0), to_arb(cuts.size)
    for a, b in zip(cuts.points, cuts.points[1:]):
        segment = SegmentIntegrand(integral, (a + b) / 2)
        total += acb.integral(segment.integrand(cuts.log_scale), to_arb(a), to_arb(b),
                              rel_tol=target, abs_tol=target * size).real
    return total


#: The rules of :func:`integrate_piecewise`, each tried when the one before raises
#: :class:`PrecisionError`: ``(method name, rule)``.
SEGMENT_RULES = (("segment-gauss", gauss_legendre_segments),
                 ("integral", acb_integral_segments))


def integrate_piecewise(integral: Integral, goal: int,
                        rules=SEGMENT_RULES) -> tuple[arb, str]:
    """``(log I as a ball, method name)``: the integral between the breakpoints by the first of
    ``rules`` that succeeds, tails bounded (module docstring), aiming at a relative accuracy
    ``2^{−goal}``: the absolute tolerance of the scaled integral is ``2^{−goal}`` times the
    rough lower bound of ``_cut_points``.  The Arb precision is the goal plus the bits of
    :attr:`Cuts.sensitivity` and :data:`~exactdp.precision.ROUNDING_GUARD_DIGITS`
    (:func:`~exactdp.precision.working_bits`)."""
    cuts = _cut_points(integral, goal)
    with ctx.workprec(goal + working_bits(0, cuts.sensitivity, ROUNDING_GUARD_DIGITS)):
        target, total, method = arb(2) ** -goal, arb(0), None
        for index, (name, rule) in enumerate(rules):
            try:
                total = rule(integral, cuts, target) if len(cuts.points) > 1 else arb(0)
                method = name
                break
            except PrecisionError:  # e.g. a zero of a factor near a piece: the next rule
                if index == len(rules) - 1:
                    raise
        if cuts.left_cut:
            total += _tail(integral, cuts.points[0], -1, cuts.log_scale)
        if cuts.right_cut:
            total += _tail(integral, cuts.points[-1], 1, cuts.log_scale)
        return cuts.log_scale + total.log(), method


def _closed_pieces(integral: Integral):
    """``[(product, lo, hi)]`` (``exponential_sums.product_on_piece``; the pieces where a factor
    vanishes left out) when every piece qualifies for the closed form, else ``None``.  The
    two outer pieces come first: there every CDF or every survival function is on its
    ``1 − e^{…}`` side, so a large expansion is usually refused after two pieces, not ``n``."""
    spans = integral.pieces
    order = [0, len(spans) - 1] + list(range(1, len(spans) - 1)) if len(spans) > 1 else [0]
    products = {}
    for index in order:
        lo, hi = spans[index]
        product = product_on_piece(integral, interior_point(lo, hi), BALLS)
        if product is not None and (product.common_rate() is None
                                    or product.degree() > CLOSED_FORM_DEGREE):
            return None
        products[index] = (product, lo, hi)
    return [products[index] for index in range(len(spans)) if products[index][0] is not None]


#: ``{(key, goal): log}`` of the integrals computed within :func:`shared_integrals` (``None``
#: outside it).
_SHARED: contextvars.ContextVar[dict | None] = contextvars.ContextVar("shared_integrals",
                                                                      default=None)


@contextlib.contextmanager
def shared_integrals():
    """Within the block (the outermost one, where blocks nest), an integral is computed once per
    goal for itself and the integrals equal to it by a symmetry of their noises
    (``form/noise_symmetries.py``): the outputs of a pair of inputs, or the forms of a domain,
    share many (a log certified to a goal at another working precision is as good: the precision
    carries guard bits beyond the goal).  It opens :func:`shared_constants` too."""
    with _memo_block(_SHARED), _memo_block(_CONSTANTS):
        yield


#: ``{(law, kind, point, precision): log}`` of the constants computed within
#: :func:`shared_constants` (``None`` outside it).
_CONSTANTS: contextvars.ContextVar[dict | None] = contextvars.ContextVar("shared_constants",
                                                                         default=None)


@contextlib.contextmanager
def shared_constants():
    """Within the block (the outermost one, where blocks nest; :func:`shared_integrals` opens
    one), a constant ``log g(point)`` of an integral form is computed once per working
    precision (:func:`log_constant`).  The ball is the one computed anew at that precision, so
    sharing it across any blocks changes no bit of any result (an integral's, shared per goal,
    would: it is shared within one block of :func:`shared_integrals` only)."""
    with _memo_block(_CONSTANTS):
        yield


@contextlib.contextmanager
def _memo_block(memo: contextvars.ContextVar):
    """``memo`` an empty dictionary for the block, unless an outer block opened it already."""
    if memo.get() is not None:
        yield
        return
    token = memo.set({})
    try:
        yield
    finally:
        memo.reset(token)


def _memoised(memo: contextvars.ContextVar, key, compute):
    """``compute()``, or its value for an equal ``key`` computed within a block of ``memo``
    (:func:`_memo_block`)."""
    known = memo.get()
    if known is None:
        return compute()
    if key not in known:
        known[key] = compute()
    return known[key]


def log_integral(integral: Integral, goal: int) -> tuple[arb, str]:
    """``(log I as a ball, method name)`` of a non-empty integral, aiming at a relative accuracy
    ``2^{−goal}``, once for an integral and its reflection within :func:`shared_integrals`
    (``form/noise_symmetries.integral_key``): :func:`_log_integral`."""
    return _memoised(_SHARED, (("one hub", integral_key(integral)), goal),
                     lambda: _log_integral(integral, goal))


def _log_integral(integral: Integral, goal: int) -> tuple[arb, str]:
    """:func:`log_integral`: the closed form where every piece's
    expansion is small (piecewise exponential laws), else the rigorous piecewise Gauss–Legendre
    rule (``piecewise_gauss.log_integral_certified``), else :func:`integrate_piecewise`
    (Gauss–Legendre with the ellipse bound, ``acb.integral`` as its fallback).  Over an
    integer-valued hub the integral is a sum (``discrete_hub.log_sum``)."""
    if integral.hub.integer_valued:
        return log_sum(integral, goal), "discrete sum"
    laws = [integral.hub] + [factor.law for factor in integral.factors]
    pieces = _closed_pieces(integral) if all(law.closed_form for law in laws) else None
    if pieces is not None:
        return sum((closed_piece(*piece) for piece in pieces), arb(0)).log(), "closed"
    if PiecewiseExponential.applies(integral):
        try:
            return log_integral_certified(integral, goal), "piecewise-gauss"
        except PrecisionError:  # a piece too close to a zero of the integrand
            pass
    return integrate_piecewise(integral, goal)


# --- constants, terms and the form ------------------------------------------------------------

def log_constant(law: NoiseLaw, kind: Kind, point: Fraction) -> arb | None:
    """``log g(point)`` as a ball at flint's precision, ``None`` where ``g`` vanishes (decided
    exactly); within :func:`shared_constants` once per precision (the forms of a domain repeat
    a few constants: 29 distinct ones in the 138 of a Sparse Vector program's forms on
    ``{0,1}^6``)."""
    return _memoised(_CONSTANTS, (law, kind, point, ctx.prec),
                     lambda: law.log_ball_at(kind, point))


#: The closed forms of the integrals over several noises (``form/nested_integral.py``):
#: ``type → (log of the integral as a ball or None for an exact zero, method name)``.
NESTED_RULES = {NestedIntegral: (log_nested, "nested closed form"),
                HubPair: (log_hubs, "hub-pair closed form"),
                HubTriple: (log_hubs, "hub-triple closed form")}


def log_several_noises(integral: NestedIntegral | HubPair | HubTriple, goal: int):
    """``(log of an integral over several noises as a ball or None, method name)``: by nested
    quadrature where every law is smooth (``nested_quadrature.py``), else in closed form; once
    for the integrals equal by a symmetry of their noises within :func:`shared_integrals`
    (``form/noise_symmetries.group_key``)."""
    return _memoised(_SHARED, (("several", group_key(integral)), goal),
                     lambda: _log_group(integral, goal))


def _log_group(integral: NestedIntegral | HubPair | HubTriple, goal: int):
    """:func:`log_several_noises`."""
    if smooth(integral):
        return log_nested_smooth(integral, goal), "nested quadrature"
    rule, name = NESTED_RULES[type(integral)]
    return rule(integral), name


def _log_term(term: Term, goal: int, methods: list) -> arb | None:
    total = to_arb(term.multiplicity).log()
    for constant in term.constants:
        log_factor = log_constant(constant.law, constant.kind, constant.point)
        if log_factor is None:
            return None
        total += constant.power * log_factor
    for integral, multiplicity in term.integrals:
        if type(integral) in NESTED_RULES:
            log_value, name = log_several_noises(integral, goal)
            if log_value is None:
                return None
        else:
            log_value, name = log_integral(integral, goal)
        total += multiplicity * log_value
        methods.append(name)
    return total


def log_form(form: IntegralForm, goal: int):
    """``(log Σ terms as a ball, methods)``; ``None`` for an exact zero."""
    methods: list = []
    logs = [log for log in (_log_term(t, goal, methods) for t in form.terms if not t.is_zero)
            if log is not None]
    if not logs:
        return None, methods
    top = max(logs, key=lambda log: log.mid()).mid()
    return top + sum(((log - top).exp() for log in logs), arb(0)).log(), methods


def relative_width(log_ball: arb) -> arb:
    """An upper bound on ``(upper − lower)/lower`` of ``e^{log_ball}``."""
    return (2 * log_ball.rad()).expm1().upper()


def enclose(compute, magnitude, dps: int, what: str):
    """``compute(goal)`` → ``(log ball or None, methods)``, aiming at a relative accuracy
    ``2^{−goal}``, with ``goal`` from the requested digits and doubled until the relative width
    of ``e^{log ball}`` is at most ``10^{−dps}`` (:class:`PrecisionError` saying the width
    reached otherwise).  The Arb precision is the goal plus the bits of ``magnitude`` (the size
    of the logs summed: their absolute error is a relative one of the result) plus
    :data:`~exactdp.precision.ROUNDING_GUARD_DIGITS`; the goal starts at the requested digits
    plus :data:`~exactdp.precision.GOAL_GUARD_DIGITS` (:func:`~exactdp.precision.working_bits`)
    and is doubled by :func:`~exactdp.refinement.refine`.  Returns ``(log ball, method name,
    bits)``."""
    extra = working_bits(0, magnitude, ROUNDING_GUARD_DIGITS)
    target = arb(10) ** -dps

    def attempt(goal: int):
        bits = goal + extra
        with ctx.workprec(bits):
            log_ball, methods = compute(goal)
            if log_ball is None:
                return True, (None, methods, bits)
            width = relative_width(log_ball)
            if log_ball.is_finite() and width <= target:
                return True, (log_ball, "certified " + "+".join(dict.fromkeys(methods)
                                                                 or ["closed"]), bits)
            return False, width

    goal = working_bits(dps, guard=GOAL_GUARD_DIGITS)
    return refine(attempt, goal, goal * 2 ** MAX_DOUBLINGS,
                  lambda width, goal: f"{what}: the certified enclosure reached relative width "
                                      f"{width.str(3, radius=False)} at {goal + extra} bits, not "
                                      f"1e-{dps}; ask for fewer digits (dps)")


def evaluate_certified(form: IntegralForm, dps: int,
                       what: str = "probability") -> CertifiedProbability:
    """A :class:`~exactdp.precision.CertifiedProbability` enclosing the exact value of ``form``,
    of relative width at most ``10^{−dps}`` (module docstring)."""
    log_ball, name, bits = enclose(lambda goal: log_form(form, goal), form.magnitude, dps,
                                   what)
    if log_ball is None:
        return CertifiedProbability.exact_zero(form.is_density, dps)
    with ctx.workprec(bits):
        return CertifiedProbability.from_log_ball(log_ball, name, form.is_density, dps)
