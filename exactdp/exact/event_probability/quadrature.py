"""Peak-aware quadrature of ``∫ p_hub(z) · G(z) dz`` for an integrand that is not log-concave.

The event integrals of the Sparse Vector family (``exactdp.exact.event_probability.rules``) have
the form
``∫ p_ρ(z) G_E(z) dz`` with ``0 ≤ G_E ≤ 1`` a *sum* of log-concave products: the integrand may have
several modes, so the bisections of ``exactdp.exact.backends.peak_quadrature`` (which need
concavity) do not
apply.  Here, with ``h = log p_hub + log G``:

1. the mass is located by scanning ``h`` on a grid of step at most half the smallest noise scale,
   joined with the midpoint of every piece between kinks, over ``[L, R]``, where the hub's own
   tails beyond ``L`` and ``R`` are below ``e^{h*}·s·10^{−(digits+5)}`` (``h*`` the largest value
   seen, ``s`` the step; ``L`` and ``R`` found by doubling steps, ``peak_search.bracket``);
2. the breakpoints are ``L``, ``R``, the kinks, the grid maximiser and, on each side of it, the
   first grid points where ``h`` has fallen by 1, 4, 16, … and ``D = (digits+5)·ln 10``;
3. ``e^{h − h*}`` is integrated over the breakpoints by tanh-sinh and by Gauss–Legendre.

The error bound is mpmath's estimate plus the two rules' difference, plus the cut-off tails,
bounded rigorously by ``G ≤ 1``: ``∫_{−∞}^{L} p_hub G ≤ F_hub(L)`` and
``∫_{R}^{∞} p_hub G ≤ S_hub(R)``, plus the rounding of ``h`` at the working precision.

Certified (:func:`integrate_hub_certified`): the same breakpoints (their positions need not be
exact, they only cut the domain) and the same tail bounds, in ball arithmetic, with
``acb.integral`` on each piece instead of step 3: a rigorous enclosure.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
from flint import acb, arb
from mpmath import mpf

from ...noise import Kind
from ...precision import to_arb, unit_roundoff
from ..backends.certified import log_constant
from ..backends.peak_search import bracket

#: Drops of ``h`` below its largest value at which breakpoints are placed (before the cut-off).
LEVELS = (1, 4, 16, 64, 256, 1024)
#: Digits beyond those wanted at which the quadratures run.
QUADRATURE_GUARD = 5
#: Largest number of grid points of the scan.
MAX_SCAN = 2000


def _log(x: mpf) -> mpf:
    return mpmath.log(x) if x > 0 else mpf("-inf")


def locate_mass(hub, conditional, kinks: list, scale: mpf, digits: int):
    """Steps 1–2 of the module docstring at the current working precision: ``(h*, points)``,
    the largest value of ``h = log p_hub + log G`` seen and the sorted breakpoints, from ``L``
    to ``R`` (``None`` when ``h`` is ``−∞`` at every point scanned).

    Parameters
    ----------
    hub : noise law
        The law of the integration variable (``logpdf``, ``logcdf``, ``logsf``).
    conditional : callable
        ``z ↦ G(z) ∈ [0, 1]``.
    kinks : list of mpf
        Points where ``G`` is not smooth.
    scale : mpf
        The smallest noise scale of the integrand (sets the scan step).
    digits : int
        Significant digits wanted (sets the cut-off ``D``).
    """
    def h(z):
        return hub.logpdf(z) + _log(conditional(z))

    cutoff = (digits + 5) * mpmath.ln10
    step = scale / 2
    anchors = sorted(set(kinks) | {mpf(0)})
    low, high = anchors[0] - 4 * scale, anchors[-1] + 4 * scale
    grid = _grid(low, high, step, anchors)
    peak_value = max(h(z) for z in grid)
    if peak_value == mpf("-inf"):
        return None
    while True:  # widen until the hub's tails beyond [L, R] are negligible
        level = peak_value + mpmath.log(step) - cutoff
        low = bracket(lambda z, level=level: hub.logcdf(z) > level, low, 4 * scale, -1)
        high = bracket(lambda z, level=level: hub.logsf(z) > level, high, 4 * scale, 1)
        step = max(scale / 2, (high - low) / MAX_SCAN)
        grid = _grid(low, high, step, anchors)
        values = [h(z) for z in grid]
        best = max(range(len(grid)), key=lambda i: values[i])
        if values[best] <= peak_value + 1:
            break
        peak_value = values[best]
    peak_value = max(peak_value, values[best])
    points = {low, high, grid[best]} | {k for k in kinks if low < k < high}
    for direction in (-1, 1):
        drops = [mpf(d) for d in LEVELS if d < cutoff] + [cutoff]
        i = best
        for drop in drops:
            while 0 <= i < len(grid) and values[i] > peak_value - drop:
                i += direction
            if not 0 <= i < len(grid):
                break
            points.add(grid[i])
    return peak_value, sorted(points)


def integrate_hub(hub, conditional, kinks: list, scale: mpf, terms: int = 1,
                  digits: int | None = None):
    """``∫ p_hub(z) · conditional(z) dz`` at the current working precision.

    Parameters
    ----------
    hub, conditional, kinks, scale
        As for :func:`locate_mass`.
    terms : int
        How many rounded factors ``G`` multiplies (for the rounding bound).
    digits : int, optional
        Significant digits wanted.  The scan runs at the working precision; the two quadratures,
        which dominate the cost (tanh-sinh refines until its estimate reaches the precision it
        runs at), run at ``digits +`` :data:`QUADRATURE_GUARD` when that is lower, the rounding
        bound following that precision.  Default: the working precision's digits.

    Returns
    -------
    (log_scale, value, error)
        The integral is ``e^{log_scale} · value``, with absolute error at most
        ``e^{log_scale} · error``; ``value = 0`` when the scan finds no mass.
    """
    digits = mpmath.mp.dps if digits is None else min(mpmath.mp.dps, digits + QUADRATURE_GUARD)
    located = locate_mass(hub, conditional, kinks, scale, digits)
    if located is None:
        return mpf(0), mpf(0), mpf(0)
    peak_value, points = located
    low, high = points[0], points[-1]

    def scaled(z):
        return mpmath.exp(hub.logpdf(z) + _log(conditional(z)) - peak_value)

    with mpmath.workdps(digits):
        value, error = mpmath.quad(scaled, points, error=True)
        other = mpmath.quad(scaled, points, method="gauss-legendre")
        tails = mpmath.exp(hub.logcdf(low) - peak_value) + mpmath.exp(hub.logsf(high)
                                                                      - peak_value)
        rounding = abs(value) * 8 * (abs(peak_value) + terms + 10) * unit_roundoff()
        return +peak_value, +value, error + abs(other - value) + tails + rounding


def _grid(low: mpf, high: mpf, step: mpf, kinks: list) -> list:
    """An even grid on ``[low, high]`` joined with the midpoint of every piece between
    consecutive kinks (and a point beyond the outer ones): ``G`` is smooth and of one sign on a
    piece — constant there when the query noise is a point mass — so a piece the grid misses
    cannot hide mass, and an integrand that vanishes at every point scanned is an exact zero."""
    count = int(mpmath.ceil((high - low) / step))
    points = {low + k * (high - low) / count for k in range(count + 1)}
    edges = [low] + [k for k in kinks if low < k < high] + [high]
    points |= {(a + b) / 2 for a, b in zip(edges, edges[1:])}
    return sorted(points)


def integrate_hub_certified(hub, conditional_on, points: list, log_scale: arb, goal: int,
                            size: Fraction) -> arb:
    """An Arb ball containing ``e^{−log_scale} ∫ p_hub(z) G(z) dz``.

    ``acb.integral`` (Johansson, "Numerical integration in arbitrary-precision ball
    arithmetic", ICMS 2018) integrates ``p_hub·G`` on each piece between consecutive
    ``points`` (exact rationals that contain every kink of ``G`` and of ``p_hub`` between the
    outer two); the tails beyond the outer points are bounded with ``0 ≤ G ≤ 1`` by the hub's
    own tails, ``[0, F_hub(L)]`` and ``[0, S_hub(R)]``, in balls (``certified.log_constant``).

    Parameters
    ----------
    hub : noise law with a certified rule (``NoiseLaw.ball_log``)
    conditional_on : callable
        ``middle ↦`` the function ``z ↦ G(z)`` on complex balls on the piece containing the
        exact rational ``middle`` (an entire function there), or ``None`` where ``G`` vanishes
        identically.
    points : list of Fraction
        Sorted breakpoints ``L = points[0] < … < points[-1] = R``.
    log_scale : arb
        Factored out of the integrand (near the log of its largest value).
    goal : int
        Relative accuracy ``2^{−goal}`` aimed at (effort, not rigour).
    size : Fraction
        A rough size of the scaled integral (sets the absolute tolerance).
    """
    target = arb(2) ** -goal
    total = arb(0)
    for a, b in zip(points, points[1:]):
        if a == b:
            continue
        middle = (a + b) / 2
        conditional = conditional_on(middle)
        if conditional is None:
            continue
        functions = hub.ball_log(Kind.PDF, hub.side(middle))
        if functions is None:  # the hub's density vanishes on this piece
            continue
        density = functions.log
        scale = acb(-log_scale)

        def integrand(z, _analytic, density=density, conditional=conditional, scale=scale):
            return (density(z) + scale).exp() * conditional(z)

        total += acb.integral(integrand, to_arb(a), to_arb(b), rel_tol=target,
                              abs_tol=target * to_arb(size)).real
    for kind, end in ((Kind.CDF, points[0]), (Kind.SF, points[-1])):
        log_tail = log_constant(hub, kind, end)
        if log_tail is not None:
            total += arb(0, (log_tail - log_scale).exp().upper()).nonnegative_part()
    return total
