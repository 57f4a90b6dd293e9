"""A deployed library's calibration of the Gaussian mechanism [1]_ (``docs/mathematics.md`` §9):
``smartnoise-gaussian-scale``.

SmartNoise SQL's ``Gaussian`` mechanism set its noise scale to ``σ = Δ·√(2 ln(1.25/δ))/ε``
whenever the sensitivity exceeded 1000, at every ``ε``.  That is the classical calibration of
Dwork & Roth ("The Algorithmic Foundations of Differential Privacy", 2014, Theorem A.1), proven
for ``ε < 1`` only; [1]_ reports that it is used beyond, and Balle & Wang ("Improving the
Gaussian Mechanism for Differential Privacy: Analytical Calibration and Optimal Denoising",
ICML 2018, arXiv:1805.06530, Theorem 4) show that no such formula holds for every large ``ε``.
exactdp computes the exact privacy profile of ``q + N(0, σ²)`` at that ``σ`` (Balle & Wang's
Theorem 8, certified: ``exact/divergences/profile.py``) and finds, for three ``δ``, the ``ε``
from which ``δ(ε)`` exceeds the ``δ`` the scale was set for.

The profile depends on ``Δ/σ = ε/√(2 ln(1.25/δ))`` alone, so ``Δ = 1`` stands for every
sensitivity.  ``σ`` is irrational: it is enclosed by Arb and rounded outward to two rationals
``σ_low ≤ σ ≤ σ_high``; ``δ(ε)`` of the Gaussian shift falls as ``σ`` grows (data processing:
adding independent ``N(0, σ′² − σ²)`` maps the pair at ``σ`` to the pair at ``σ′ > σ``), so the
exact ``δ(ε)`` at ``σ`` lies between the profile's lower end at ``σ_high`` and its upper end at
``σ_low``.

References
----------
.. [1] SmartNoise SDK, GitHub issue opendp/smartnoise-sdk#462, "Gaussian formula looks wrong
   when epsilon>1" (2022-03-31; the code path ``sql/snsql/sql/_mechanisms/gaussian.py``,
   ``Gaussian._compute_noise_scale``, sensitivity > 1000; fixed 2022-06-12).
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable

import mpmath
import sympy as sp
from mpmath import mpf

from ..exact.backends.piece_series import flint_context
from ..exact.divergences.profile import privacy_profile
from ..formatting import decimal_text, printed_number
from ..precision import to_arb
from ..programs import program
from .certify import all_of, ball_ends, certified_verdict, enclosed_below, exact
from .families import DPS
from .figure_spec import EXACT, Curve, FigureSpec, Panel, horizontal
from .registry import Claim, ClaimResult, register_claim

SMARTNOISE = ("SmartNoise SDK, GitHub issue opendp/smartnoise-sdk#462, \"Gaussian formula looks "
              "wrong when epsilon>1\" (2022-03-31; SmartNoise SQL's Gaussian scale for "
              "sensitivity > 1000, fixed 2022-06-12)")
#: The δ the scale is set for.
DELTAS = (Fraction(1, 10 ** 3), Fraction(1, 10 ** 5), Fraction(1, 10 ** 7))
#: The figure's ε.
EPSILONS = tuple(Fraction(e) for e in ("1/4", "1/2", "1", "2", "3", "4", "5", "6", "7", "8",
                                       "10", "12", "15", "20", "25", "30"))
#: Bits of the enclosure of ``σ`` and the decimals it is rounded outward to.
SIGMA_BITS, SIGMA_DIGITS = 256, 40
#: The resolution of the first ``ε`` at which ``δ(ε)`` exceeds ``δ``.
STEP = Fraction(1, 10 ** 5)


def _label(delta: Fraction) -> str:
    """``1e-5`` for ``δ = 10^{−5}``."""
    return f"1e-{len(str(delta.denominator)) - 1}"


def _release(prng, queries, sigma):
    """One count released with Gaussian noise, ``q + N(0, σ²)``."""
    return queries[0] + prng.normal(scale=sigma)


def _sigma_ends(eps: Fraction, delta: Fraction) -> tuple[Fraction, Fraction]:
    """Rationals ``σ_low ≤ √(2 ln(1.25/δ))/ε ≤ σ_high`` (module docstring)."""
    with flint_context(SIGMA_BITS):
        sigma = (2 * (to_arb(Fraction(5, 4) / delta)).log()).sqrt() / to_arb(eps)
        lower, upper = ball_ends(sigma)
    scale = 10 ** SIGMA_DIGITS
    return (Fraction(math.floor(lower * scale), scale),
            Fraction(math.ceil(upper * scale), scale))


def _delta_ends(eps: Fraction, delta: Fraction) -> tuple[mpf, mpf]:
    """An enclosure of the exact ``δ(ε)`` of the Gaussian shift at the calibrated ``σ``: exact
    binary ends."""
    low_sigma, high_sigma = _sigma_ends(eps, delta)
    larger, = privacy_profile(program(_release, sigma=low_sigma), [0], [1], [eps], DPS)
    smaller, = privacy_profile(program(_release, sigma=high_sigma), [0], [1], [eps], DPS)
    return smaller.delta.lower, larger.delta.upper


def _exceeds(eps: Fraction, delta: Fraction) -> bool | None:
    """Whether ``δ(ε) > δ`` at the calibrated ``σ`` (``None``: undecided)."""
    return enclosed_below((delta, delta), tuple(map(exact, _delta_ends(eps, delta))))


def _first_failure(delta: Fraction, holds: Fraction, fails: Fraction) -> tuple[Fraction, Fraction]:
    """``(a, b)``: ``δ(a) ≤ δ`` and ``δ(b) > δ`` certified, ``b − a`` = :data:`STEP`, bisected on
    the multiples of :data:`STEP` from ``(holds, fails)`` (``δ(ε)`` at the calibrated scale grows
    with ``ε`` on the figure's grid; the bracket is a crossing, the first one if there is one);
    stopped early, wider, where an enclosure cannot decide."""
    while fails - holds > STEP:
        middle = round((holds + fails) / 2 / STEP) * STEP
        above = _exceeds(middle, delta)
        if above is None:
            break
        holds, fails = (holds, middle) if above else (middle, fails)
    return holds, fails


def _latex() -> tuple:
    """The calibration and Balle & Wang's exact profile of the Gaussian shift, by sympy."""
    eps, delta, d, s = sp.symbols("varepsilon delta Delta sigma", positive=True)
    phi = sp.Function("Phi")
    return (("SmartNoise's scale for sensitivity > 1000 (Dwork & Roth, Thm A.1)",
             sp.latex(sp.Eq(s, d * sp.sqrt(2 * sp.log(sp.Rational(5, 4) / delta)) / eps))),
            ("exact δ(ε) of q + N(0, σ²) (Balle & Wang, Thm 8)",
             sp.latex(phi(d / (2 * s) - eps * s / d)
                      - sp.exp(eps) * phi(-d / (2 * s) - eps * s / d))))


def _record(series: str, eps: Fraction, delta: Fraction) -> tuple[dict, bool | None, float]:
    """One JSON record (``δ(ε)`` to the digits its enclosure supports, and whether it is
    certified above ``δ``), the decision and the centre's ratio to ``δ``."""
    lower_end, upper_end = _delta_ends(eps, delta)
    lower, upper = exact(lower_end), exact(upper_end)
    above = enclosed_below((delta, delta), (lower, upper))
    centre = mpmath.ldexp(mpmath.fadd(lower_end, upper_end, exact=True), -1)
    printed = printed_number(centre, DPS, enclosure=(lower_end, upper_end))
    record = {"series": series, "eps": decimal_text(eps, DPS), **printed.fields("delta", False),
              "exceeds": None if above is None else bool(above)}
    return record, above, float((lower + upper) / 2 / delta)


def evaluate_smartnoise(progress: Callable[[], None]) -> ClaimResult:
    """``δ(ε)`` at the calibrated scale on the figure's ``ε`` for each ``δ``: the report is
    confirmed when, for every ``δ``, some ``ε`` has ``δ(ε) > δ`` certified (refuted when every
    ``δ(ε) ≤ δ`` is), and the bracket of the first failing ``ε`` is narrowed by bisection (its
    two ends are records of their own, series "…, first failing ε")."""
    points, curves, decisions, crossings = [], [], [], []
    for color, delta in enumerate(DELTAS):
        ratios, aboves, last_holding, first_failing = [], [], None, None
        for eps in EPSILONS:
            record, above, ratio = _record(f"δ = {_label(delta)}", eps, delta)
            points.append(record)
            ratios.append(ratio)
            aboves.append(above)
            if first_failing is None:
                if above:
                    first_failing = eps
                elif above is False:
                    last_holding = eps
            progress()
        decisions.append(True if True in aboves else None if None in aboves else False)
        if first_failing is not None and last_holding is not None:
            holds, fails = _first_failure(delta, last_holding, first_failing)
            crossings.append((delta, holds, fails))
            points += [_record(f"δ = {_label(delta)}, first failing ε", eps, delta)[0]
                       for eps in (holds, fails)]
        curves.append(Curve(f"δ = {_label(delta)}", tuple(map(float, EPSILONS)),
                            tuple(ratios), EXACT, color))
    decision = all_of(decisions)
    detail = ("with σ = Δ·√(2 ln(1.25/δ))/ε, the exact δ(ε) of q + N(0, σ²) exceeds δ from "
              + "; ".join(f"ε ∈ ({decimal_text(a, DPS)}, {decimal_text(b, DPS)}] "
                          f"on for δ = {_label(delta)}"
                          for delta, a, b in crossings)
              + " (certified brackets of the first failing ε, the profile's enclosures at the "
                "scale's outward-rounded ends): the calibration is not (ε, δ)-DP at large ε, "
                "as the issue reports, though it holds far beyond ε < 1 on these δ. "
                "SmartNoise itself was not run here")
    panel = Panel("Gaussian mechanism at σ = Δ√(2 ln(1.25/δ))/ε: exact δ(ε) / δ", "ε",
                  "δ(ε) / δ  (exact)",
                  tuple(curves) + (horizontal("δ(ε) = δ (the claimed guarantee)", 1.0,
                                              tuple(map(float, EPSILONS)), len(curves)),),
                  yscale="log")
    verdict, certified = certified_verdict(decision)
    return ClaimResult(verdict, detail, tuple(points),
                       FigureSpec("SmartNoise SQL's Gaussian scale for large sensitivities",
                                  (panel,)), _latex(), certified)


register_claim(Claim(
    "smartnoise-gaussian-scale", SMARTNOISE,
    "the issue reports that σ = Δ·√(2 ln(1.25/δ))/ε, which SmartNoise SQL used for "
    "sensitivity > 1000 at every ε, is (ε, δ)-DP only for ε < 1 as proven, and fails for large ε",
    "q + N(0, σ²) on q = 0 vs q = 1 (Δ = 1: the profile depends on Δ/σ alone) at "
    "δ ∈ {10⁻³, 10⁻⁵, 10⁻⁷}, ε from 1/4 to 30; exact δ(ε) by Balle & Wang's Theorem 8",
    evaluate_smartnoise, cost=2.0))
