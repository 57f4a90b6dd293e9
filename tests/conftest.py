"""Shared pytest configuration: hypothesis profile (deterministic, no deadline), the one
enclosure assertion every enclosure test uses, and the one check of exact probabilities against a
seeded simulation."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
from flint import arb
from hypothesis import HealthCheck, settings
from scipy import stats

import exactdp

# Derandomised: the examples are a fixed function of the test, so a run is reproducible.
settings.register_profile("exactdp", derandomize=True, deadline=None, print_blob=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("exactdp")


def _rational(value) -> Fraction | float:
    """``value`` as an exact rational (an ``mpf``, an Arb ball's exact midpoint, a double, a
    ``Fraction`` or an integer), or ``±inf``: the assertion compares with no rounding at all (a
    rounded end can hold a value the enclosure does not)."""
    if isinstance(value, arb):
        value = value.mid()
        if value.is_finite():
            mantissa, exponent = (int(part) for part in value.man_exp())
            return Fraction(mantissa) * Fraction(2) ** exponent
        value = float(value)
    if isinstance(value, mpmath.mpf):
        if mpmath.isinf(value):
            return float(value)
        sign, mantissa, exponent, _ = value._mpf_
        return (-1) ** sign * Fraction(int(mantissa)) * Fraction(2) ** exponent
    if isinstance(value, float) and math.isinf(value):
        return value
    return Fraction(value)


def _ends(enclosure) -> tuple[Fraction | float, Fraction | float]:
    """The two ends of ``enclosure``: an Arb ball, a ``(lower, upper)`` pair, or any object with
    ``lower`` and ``upper`` attributes (``Enclosure``, a probability result)."""
    if isinstance(enclosure, arb):
        return _rational(enclosure.lower()), _rational(enclosure.upper())
    lower, upper = enclosure if isinstance(enclosure, tuple) else (enclosure.lower,
                                                                    enclosure.upper)
    return _rational(lower), _rational(upper)


def assert_encloses(enclosure, reference, digits: int, *, absolute: bool = False,
                    slack=0) -> None:
    """The one enclosure assertion: ``reference`` lies in ``[lower, upper]`` **and** the enclosure
    is narrow, ``upper − lower ≤ 2·10^{−digits}·|reference|`` (with ``absolute``,
    ``≤ 2·10^{−digits}``: the radius of a ball asked for ``digits`` digits is at most
    ``10^{−digits}`` of its centre, or of 1).

    Containment alone would let ``[0, ∞]`` pass; the width alone would let a narrow wrong ball
    pass. ``slack`` widens only the containment check, by the reference's own error (a reference
    computed by quadrature to a stated accuracy), never the width check. A zero reference with a
    relative width needs the exact enclosure ``[0, 0]``; an infinite one needs ``[∞, ∞]``. Both
    checks are made in exact rationals.
    """
    lower, upper = _ends(enclosure)
    reference, slack = _rational(reference), _rational(slack)
    assert lower - slack <= reference <= upper + slack, \
        f"{float(reference)!r} is outside [{float(lower)!r}, {float(upper)!r}] (slack {slack})"
    if isinstance(reference, float):  # ±inf (a rational beyond floats is finite)
        assert lower == upper == reference, f"[{lower}, {upper}] for {reference}"
        return
    allowed = 2 * Fraction(1, 10 ** digits) * (1 if absolute else abs(reference))
    assert upper - lower <= allowed, (f"[{float(lower)!r}, {float(upper)!r}] is "
                                      f"{float(upper - lower):.3g} wide, more than "
                                      f"{float(allowed):.3g} for {digits} digits")


def assert_in_simulation(mech, queries, counts: dict, runs: int, dps: int = 15):
    """Each output's exact probability (``counts`` maps an output to the boolean array of the
    seeded runs that gave it, ``runs`` of them) lies in the 99.99% Clopper–Pearson interval of
    its count; returns the sums of the enclosures' lower and upper ends (exact rationals), for
    the caller to check that they hold 1."""
    lower = upper = 0
    for output, hits in counts.items():
        p = exactdp.probability(mech, queries, output, dps=dps)
        interval = stats.binomtest(int(hits.sum()), runs).proportion_ci(0.9999)
        assert interval.low <= p.value <= interval.high, (output, p.value, interval)
        lower, upper = lower + _rational(p.lower), upper + _rational(p.upper)
    return lower, upper


def ellipse_boundary(layout, rho: float, count: int = 16):
    """``(piece index, z)`` for ``count`` points ``z`` (mpmath complex numbers) on the boundary of
    the Bernstein ellipse ``E_ρ`` of every piece of a shared-nodes layout (its ``middle`` and
    ``half`` arrays): ``c + h·((ρ + 1/ρ)/2·cos θ + i(ρ − 1/ρ)/2·sin θ)``."""
    for p, (c, h) in enumerate(zip(layout.middle, layout.half)):
        for j in range(count):
            angle = 2 * mpmath.pi * j / count
            yield p, mpmath.mpf(c) + h * ((rho + 1 / rho) / 2 * mpmath.cos(angle)
                                          + 1j * (rho - 1 / rho) / 2 * mpmath.sin(angle))
