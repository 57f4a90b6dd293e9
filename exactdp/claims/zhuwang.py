"""Zhu & Wang's Rényi-DP bound for the Gaussian Sparse Vector with cutoff 1 [1]_
(``docs/mathematics.md`` §9): ``zhuwang-gaussian-svt``.

The paper's text could not be consulted; its bound is taken from the authors' library autodp
[2]_, whose function ``RDP_gaussian_svt_c1`` (``autodp/rdp_bank.py``) says it implements
Theorem 8 and, when its conditions hold, Proposition 10 of [1]_.  exactdp checks the bound as
autodp states it.  With threshold noise ``ρ ~ N(0, σ1²)``, query noise ``ν_i ~ N(0, σ2²)``,
sensitivity ``Δ``, threshold ``T`` (autodp's ``margin``) and at most ``k`` queries:

* Theorem 8: ``ε(α) = ln(k)/(α − 1) + αΔ²/σ1² + 2αΔ²/σ2²``;
* Proposition 10 (``σ2 ≥ sqrt(γ + 1)·σ1``, non-negative queries, no ``k``):
  ``ε(α) = αΔ²/σ1² + 2αΔ²/σ2² + ln(1 + sqrt(1 + γ)(2π)^{γ/2}((T(1 + γ)/σ1)^γ + 1)
  e^{γT²/(2σ1²)}) / (γ(α − 1))``.

The exact ``D_α(M(d1) ‖ M(d2))`` of ``svt_gaussian`` with ``c = 1`` is computed for every
neighbouring pair of a grid (:func:`exactdp.renyi_search.grid_pairs`), both directions, and the
largest is compared with the bounds in ball arithmetic.

References
----------
.. [1] Y. Zhu and Y.-X. Wang, "Improving Sparse Vector Technique with Rényi Differential
   Privacy", Advances in Neural Information Processing Systems 33 (NeurIPS 2020): Theorem 8,
   Proposition 10.
.. [2] Y.-X. Wang et al., autodp (github.com/yuxiangw/autodp, Apache-2.0),
   ``autodp/rdp_bank.py``, function ``RDP_gaussian_svt_c1``.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

import sympy as sp
from flint import arb

from ..errors import InputError
from ..exact.backends.piece_series import flint_context
from ..formatting import printed_ball, printed_number
from ..mechanisms import mechanism
from ..precision import (COMBINE_GUARD_DIGITS, PART_GUARD_DIGITS, exact_mpf, to_arb,
                         working_bits)
from ..renyi_search import grid_pairs, score_pairs, worst
from .certify import (all_of, ball_ends, certified_verdict, enclosed_below,
                      exact)
from .families import DPS
from .figure_spec import EXACT, STATEMENT, Curve, FigureSpec, Panel
from .patterns import fmt
from .registry import Claim, ClaimResult, register_claim

#: The setting: σ2 = 2 ≥ sqrt(3)·σ1, so Proposition 10 applies with autodp's γ = 2.
SIGMA1, SIGMA2, THRESHOLD, SENSITIVITY, GAMMA = Fraction(1), Fraction(2), Fraction(0), \
    Fraction(1), Fraction(2)
#: Number of queries k.
QUERIES = 3
ALPHAS = (2, 3, 5, 10, 20)
#: The grid: d1_i ∈ T + {0, Δ}, d2_i = d1_i ± Δ (on k = 3 queries, moves of 0 never gave the
#: largest D_α on the grid d1 ∈ {0, Δ}^3, d2 − d1 ∈ {−Δ, 0, Δ}^3).
LEVELS, MOVES = (0, 1), (-1, 1)
ZHU_WANG = "Zhu & Wang, NeurIPS 2020"


def theorem8_bound(alpha, queries: int, sigma1, sigma2, sensitivity) -> arb:
    """``ln(k)/(α − 1) + αΔ²/σ1² + 2αΔ²/σ2²`` as a ball at flint's precision: Theorem 8 of
    Zhu & Wang (NeurIPS 2020) as autodp's ``RDP_gaussian_svt_c1`` implements it."""
    alpha = Fraction(alpha)
    return (arb(queries).log() / to_arb(alpha - 1)
            + to_arb(_gaussian_terms(alpha, sigma1, sigma2, sensitivity)))


def proposition10_bound(alpha, sigma1, sigma2, threshold, sensitivity, gamma=GAMMA) -> arb:
    """``αΔ²/σ1² + 2αΔ²/σ2² + ln(1 + sqrt(1+γ)(2π)^{γ/2}((T(1+γ)/σ1)^γ + 1)e^{γT²/(2σ1²)})
    / (γ(α − 1))`` as a ball at flint's precision: Proposition 10 of Zhu & Wang (NeurIPS 2020)
    as autodp's ``RDP_gaussian_svt_c1`` implements it; it requires ``σ2 ≥ sqrt(γ + 1)·σ1``
    (an :class:`~exactdp.errors.InputError` otherwise), ``γ > 0`` and ``T ≥ 0``."""
    alpha, sigma1, sigma2 = Fraction(alpha), Fraction(sigma1), Fraction(sigma2)
    threshold, gamma = Fraction(threshold), Fraction(gamma)
    if not gamma > 0 or threshold < 0:
        raise InputError(f"Proposition 10 needs gamma > 0 and T ≥ 0, got gamma={gamma}, "
                         f"T={threshold}")
    if sigma2 ** 2 < (gamma + 1) * sigma1 ** 2:
        raise InputError(f"Proposition 10 needs sigma2 ≥ sqrt(gamma + 1)·sigma1, got "
                         f"sigma1={sigma1}, sigma2={sigma2}, gamma={gamma}")
    g = to_arb(gamma)
    moment = (1 + g).sqrt() * (2 * arb.pi()) ** (g / 2) \
        * (to_arb(threshold * (1 + gamma) / sigma1) ** g + 1) \
        * to_arb(gamma * threshold ** 2 / (2 * sigma1 ** 2)).exp()
    return (to_arb(_gaussian_terms(alpha, sigma1, sigma2, sensitivity))
            + (1 + moment).log() / to_arb(gamma * (alpha - 1)))


def _gaussian_terms(alpha: Fraction, sigma1, sigma2, sensitivity) -> Fraction:
    """``αΔ²/σ1² + 2αΔ²/σ2²``, exactly."""
    square = Fraction(sensitivity) ** 2
    return alpha * square / Fraction(sigma1) ** 2 + 2 * alpha * square / Fraction(sigma2) ** 2


def _latex_bounds() -> tuple:
    """The two bounds in LaTeX (typeset by sympy)."""
    a, k, d, s1, s2, t, g = sp.symbols(r"alpha k Delta sigma_1 sigma_2 T gamma", positive=True)
    gaussian = a * d ** 2 / s1 ** 2 + 2 * a * d ** 2 / s2 ** 2
    moment = sp.log(1 + sp.sqrt(1 + g) * (2 * sp.pi) ** (g / 2) * ((t * (1 + g) / s1) ** g + 1)
                    * sp.exp(g * t ** 2 / (2 * s1 ** 2))) / (g * (a - 1))
    return (("Theorem 8 (autodp's RDP_gaussian_svt_c1)",
             sp.latex(sp.log(k) / (a - 1) + gaussian, order="none")),
            ("Proposition 10 (autodp's RDP_gaussian_svt_c1; σ2 ≥ sqrt(γ+1)σ1, queries ≥ 0)",
             sp.latex(gaussian + moment, order="none")))


def _point(series: str, alpha: int, pair, index: int, bound: arb) -> dict:
    """One JSON record: the worst pair of ``series`` at ``alpha``, its certified ``D_α``, the
    bound and the margin ``bound − D_α`` (each printed to the digits its enclosure supports,
    with a bound on the printed decimal's error)."""
    divergence = pair.at(index)
    printed = printed_number(divergence.value, DPS, enclosure=(divergence.lower,
                                                                divergence.upper))
    bound_printed, margin_printed = (printed_ball(ball, DPS)
                                     for ball in (bound, bound - _ball(divergence)))
    return {"series": series, "alpha": str(alpha), "d1": str(pair.d1), "d2": str(pair.d2),
            **printed.fields("divergence", False),
            "bound": bound_printed.value, "bound_error": bound_printed.error,
            "margin": margin_printed.value, "margin_error": margin_printed.error}


def _ends(enclosed) -> tuple:
    """The enclosure ``(lower, upper)`` of a divergence as exact numbers."""
    return exact(enclosed.lower), exact(enclosed.upper)


def _ball(enclosed) -> arb:
    """The enclosure of a divergence as a ball."""
    lower, upper = _ends(enclosed)
    return to_arb(lower).union(to_arb(upper))


def _listed(values) -> str:
    """Numbers in a sentence, 4 significant digits each."""
    return ", ".join(fmt(value, 4) for value in values)


def evaluate_zhuwang(progress: Callable[[], None]) -> ClaimResult:
    """The largest exact ``D_α`` on the grid against Theorem 8 (every pair) and Proposition 10
    (the pairs with non-negative queries)."""
    mech = mechanism("svt_gaussian", sigma1=SIGMA1, sigma2=SIGMA2, T=THRESHOLD, c=1,
                     sensitivity=SENSITIVITY)
    pairs = grid_pairs(mech, QUERIES, LEVELS, MOVES)
    scored = score_pairs(mech, ALPHAS, pairs, DPS, progress)
    non_negative = [pair for pair in scored if min(pair.d1.expand() + pair.d2.expand()) >= 0]
    with flint_context(working_bits(DPS + PART_GUARD_DIGITS, guard=COMBINE_GUARD_DIGITS)):
        theorem8 = [theorem8_bound(a, QUERIES, SIGMA1, SIGMA2, SENSITIVITY) for a in ALPHAS]
        proposition10 = [proposition10_bound(a, SIGMA1, SIGMA2, THRESHOLD, SENSITIVITY)
                         for a in ALPHAS]
        series = (("every grid pair vs Theorem 8", scored, theorem8),
                  ("non-negative pairs vs Proposition 10", non_negative, proposition10))
        decision = all_of(enclosed_below(_ends(pair.at(i)), ball_ends(bounds[i]))
                          for _, group, bounds in series for pair in group
                          for i in range(len(ALPHAS)))
        points = [_point(label, a, worst(group, i), i, bounds[i])
                  for label, group, bounds in series for i, a in enumerate(ALPHAS)]
    decided, certified = certified_verdict(decision)
    largest = {label: [float(p["divergence"]) for p in points if p["series"] == label]
               for label, _, _ in series}
    margins = {label: min(float(p["margin"]) for p in points if p["series"] == label)
               for label, _, _ in series}
    (all_pairs, _, _), (nonneg_pairs, _, _) = series
    detail = (f"on the {len(pairs)} neighbouring pairs of the grid (k = {QUERIES}, d1 ∈ {{0, 1}}^"
              f"{QUERIES}, d2 = d1 ± 1, both directions) the largest exact D_α at α = "
              f"{', '.join(map(str, ALPHAS))} is {_listed(largest[all_pairs])} (Theorem 8's "
              f"bound minus it: at least {fmt(margins[all_pairs], 4)}); on the "
              f"{len(non_negative) // 2} pairs with non-negative queries it is "
              f"{_listed(largest[nonneg_pairs])} (Proposition 10's bound minus it: at least "
              f"{fmt(margins[nonneg_pairs], 4)}); the bounds are autodp's implementation of "
              f"Theorem 8 and Proposition 10 (the paper's text could not be consulted), checked "
              f"as autodp states them")
    if certified:
        detail += ("; certified: every enclosure of D_α lies below the enclosure of its bound"
                   if decision else "; certified: an enclosure of D_α lies above its bound")
    x = tuple(float(a) for a in ALPHAS)
    curves = []
    for color, (label, _, bounds) in enumerate(series):
        pairs_label = label.split(" vs ")[0]
        curves += [Curve(f"exact max D_α, {pairs_label}", x, tuple(largest[label]), EXACT, color),
                   Curve(f"{label.split(' vs ')[1]} (autodp)", x,
                         tuple(float(exact_mpf(b.mid())) for b in bounds), STATEMENT, color)]
    panel = Panel(rf"svt_gaussian ($\sigma_1$ = 1, $\sigma_2$ = 2, T = 0, c = 1, k = {QUERIES})",
                  "order α", "Rényi divergence D_α(M(D) ‖ M(D′))  (nats)", tuple(curves),
                  yscale="log")
    return ClaimResult(decided, detail, tuple(points),
                       FigureSpec("Gaussian Sparse Vector (Zhu & Wang): exact D_α vs the RDP "
                                  "bounds", (panel,)), _latex_bounds(), certified)


register_claim(Claim(
    "zhuwang-gaussian-svt",
    f"{ZHU_WANG}, Theorem 8 and Proposition 10, as implemented in the authors' autodp "
    "(RDP_gaussian_svt_c1; the paper's text could not be consulted)",
    "with c = 1, D_α(M(D) ‖ M(D′)) ≤ ln(k)/(α−1) + αΔ²/σ1² + 2αΔ²/σ2² (Theorem 8) and, for "
    "σ2 ≥ sqrt(3)σ1 and non-negative queries, ≤ αΔ²/σ1² + 2αΔ²/σ2² + "
    "ln(1 + sqrt(3)·2π·((3T/σ1)² + 1)e^{T²/σ1²})/(2(α−1)) (Proposition 10, γ = 2)",
    f"svt_gaussian(sigma1=1, sigma2=2, T=0, c=1, sensitivity=1), k = {QUERIES}: every D ∈ "
    f"{{0, 1}}^{QUERIES}, D′ = D ± 1 (both directions); α ∈ {{{', '.join(map(str, ALPHAS))}}}",
    evaluate_zhuwang, cost=8.0))
