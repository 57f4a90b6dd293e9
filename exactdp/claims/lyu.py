"""Lyu, Su & Li's claims about the Sparse Vector variants [1]_ (``docs/mathematics.md`` §9).

* ``svt5-simple``: Alg. 5's output (⊥, ⊤) on (0, 1) is impossible on (1, 0) (§3.2, Thm 3.5).
* ``svt3-appendix``: Alg. 3's ratio is exactly e^{mε/2} (Appendix 9.1).
* ``svt6-appendix``: Alg. 6's ratio is at least e^{mε/2} (Appendix 9.2).
* ``svt4-tight``: Alg. 4's ln ratio tends to (1+6c)ε/4 (§3.2).
* ``svt1-tight``: Alg. 1's all-⊥ outputs stay below ε/2 (Lemma 1), mixed outputs below ε
  (Thm 3.3), and both bounds are approached.

All with ε = 1, sensitivity 1 and threshold 0.

References
----------
.. [1] M. Lyu, D. Su and N. Li, "Understanding the Sparse Vector Technique for Differential
   Privacy", PVLDB 10(6):637–648, 2017, arXiv:1603.01699: Algorithms 1, 3–6, Lemma 1,
   Thm 3.3, §3.2 (Thm 3.5), Appendix 9.1 (Thm 9.11) and 9.2 (Thm 9.13).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable

from mpmath import mpf

from . import symbolic
from .certify import all_of, at_least, below, certified_loss, certified_verdict, equals
from .families import DPS, Family, loss_point
from .figure_spec import FUNCTION, STATEMENT, Curve, FigureSpec, Panel, horizontal
from .gptt import COPIES_AXIS
from .patterns import (LOSS_AXIS, approach_limit, closed_form_match, evaluate, first_above, fmt,
                       loss_curve, structural_zero)
from .registry import Claim, ClaimResult, register_claim

LYU = "Lyu, Su & Li, PVLDB 10(6) 2017 (arXiv:1603.01699)"
#: The claimed budget of every family below.
EPS = 1
M_AXIS = "m (number of ⊥ answers)"

# --- svt5-simple ----------------------------------------------------------------------------

SVT5_BUDGETS = (0.5, 1.0, 2.0)
SVT5_SIZES = (1, 10, 100, 1000, 10**4)


def evaluate_svt5(progress: Callable[[], None]) -> ClaimResult:
    """Pr_D = ½(1 − e^{−ε/2}), Pr_D' = 0, for the paper's t = 1 and for t copies."""
    closed = symbolic.no_noise_probability((0,), (1,), 2 / symbolic.EPS)
    series = [(Family(f"ε = {eps}", "svt5", {"eps": eps}, "0*{t},1*{t}", "1*{t},0*{t}",
                      "F*{t},T*{t}"),
               symbolic.numeric(closed, DPS, epsilon=eps), r"$\frac{1}{2}(1-e^{-\varepsilon/2})$")
              for eps in SVT5_BUDGETS]
    holds, detail, points, panels, decision = structural_zero(
        series, SVT5_SIZES, progress, "½(1 − e^{−ε/2})",
        COPIES_AXIS + "; the paper's example: t = 1")
    decided, certified = certified_verdict(decision, holds)
    if certified:
        detail += "; certified: every enclosure of Pr[M(D)=a] lies above 0"
    return ClaimResult(decided, detail, tuple(points),
                       FigureSpec("Alg. 5 (Stoddard et al.): Lyu et al. §3.2, Thm 3.5", panels),
                       (("Pr[M(D)=a]", symbolic.latex(closed)), ("Pr[M(D′)=a]", "0")), certified)


register_claim(Claim(
    "svt5-simple", f"{LYU}, §3.2 (Thm 3.5, simple example)",
    "Pr[M(D)=a] = ½(1 − e^{−ε/2}) and Pr[M(D′)=a] = 0: Alg. 5 is not ε-DP for any finite ε",
    "svt5(eps ∈ {0.5, 1, 2}): D = 0*t,1*t; D' = 1*t,0*t; a = F*t,T*t (t = 1 in the paper)",
    evaluate_svt5))

# --- svt3-appendix --------------------------------------------------------------------------

SVT3_SIZES = (1, 2, 3, 4, 5, 10, 100, 1000, 10**4)


def evaluate_svt3(progress: Callable[[], None]) -> ClaimResult:
    """The exact ln ratio against Lyu's closed forms mε/2 (fixed last query) and (m−1)ε/2."""
    fixed, moving = symbolic.svt3_log_ratio(0, 0), symbolic.svt3_log_ratio(1, 0)
    series = [(Family(label, "svt3", {"eps": EPS, "c": 1}, d1, "1*{t},0", "F*{t},0"),
               symbolic.function(expr, symbolic.M, epsilon=EPS), formula)
              for label, d1, expr, formula in (
                  ("last query fixed: D = (0,…,0, 0)", "0*{t},0", fixed, r"$m\varepsilon/2$"),
                  ("last query moving: D = (0,…,0, 1)", "0*{t},1", moving,
                   r"$(m-1)\varepsilon/2$"))]
    holds, worst, points, curves, evaluated = closed_form_match(series, SVT3_SIZES, progress)
    # certified at one more digit, so that the enclosure of the ln ratio (the sum of two
    # relative widths) is at most 10^-DPS wide
    decided, certified = certified_verdict(all_of(
        equals(certified_loss(family, m, DPS + 1), Fraction((m - shift) * EPS, 2))
        for (family, _, _), shift in zip(series, (0, 1)) for m in SVT3_SIZES))
    starts = [first_above(values, EPS) for values in evaluated.values()]
    detail = (f"the exact ln ratio equals mε/2 (fixed) and (m−1)ε/2 (moving) for m = 1 … 10^4 "
              f"(largest deviation {fmt(worst, 2)}); the ratio exceeds the claimed e^ε from "
              f"m = {starts[0]} (fixed) and m = {starts[1]} (moving)")
    curves.append(horizontal(f"claimed ε = {EPS}", EPS, SVT3_SIZES, -1))
    panel = Panel(r"Alg. 3: $D'=(1^m,0)$, $a=(\bot^m$, released value 0)", M_AXIS,
                  LOSS_AXIS, tuple(curves), xscale="log", yscale="log",
                  note="moving variant at m = 1: ln ratio = 0 (not drawn on the log axis)")
    density = symbolic.svt3_density(symbolic.Q, symbolic.Q_LAST, symbolic.B_RHO, symbolic.B_NU)
    if certified:
        detail += (f"; certified: every enclosure contains mε/2 (resp. (m−1)ε/2) and is at most "
                   f"1e-{DPS} wide")
    return ClaimResult(decided, detail, tuple(points),
                       FigureSpec("Alg. 3 (Roth's notes): Lyu et al. Appendix 9.1", (panel,)),
                       (("density of a on (q^m, q_L), q ≥ 0", symbolic.latex(density)),
                        ("ln ratio, last query fixed", symbolic.latex(fixed)),
                        ("ln ratio, last query moving", symbolic.latex(moving))), certified)


register_claim(Claim(
    "svt3-appendix", f"{LYU}, Appendix 9.1 (Thm 9.11)",
    "ratio = e^{mε/2} exactly (last query fixed), e^{(m−1)ε/2} (last query moving 1 vs 0): "
    "Alg. 3 is not ε-DP for any finite ε",
    "svt3(eps=1, c=1): D = 0*m,0 (or 0*m,1); D' = 1*m,0; a = F*m,0 (0 a released value)",
    evaluate_svt3))

# --- svt6-appendix --------------------------------------------------------------------------

SVT6_SIZES = (1, 2, 3, 4, 5, 10, 100, 1000, 10**4)
SVT6_FAMILY = Family("Alg. 6, ε = 1", "svt6", {"eps": EPS}, "0*{t},1*{t}", "1*{t},0*{t}",
                     "F*{t},T*{t}")


def _pair_ratio_panel(pieces, infimum) -> Panel:
    functions = [symbolic.function(expr, symbolic.Z, epsilon=EPS) for _, expr in pieces]
    bound = float(symbolic.numeric(infimum, DPS, epsilon=EPS))
    grid = [mpf(-8) + mpf(k) / 10 for k in range(171)]
    values = tuple(bound * float(functions[0 if z < 0 else 1 if z < 1 else 2](z)) for z in grid)
    return Panel(r"per-pair integrand ratio $\kappa(z) \geq e^{\varepsilon/2}$",
                 "threshold noise z  (query units)", r"$\kappa(z) = F(z)S(z-1)\,/\,(F(z-1)S(z))$",
                 (Curve(r"$\kappa(z)$, query noise Lap$(2/\varepsilon)$",
                        tuple(float(z) for z in grid), values, FUNCTION, 0),
                  horizontal(rf"$\inf\,\kappa = e^{{\varepsilon/2}}$ = {bound:.5f}", bound,
                             (-8, 9), -1)))


def evaluate_svt6(progress: Callable[[], None]) -> ClaimResult:
    """The exact ln ratio against the paper's lower bound mε/2, and κ(z) against e^{ε/2}."""
    pieces = symbolic.pair_ratio_pieces(2 / symbolic.EPS)
    infimum = symbolic.pair_ratio_infimum(2 / symbolic.EPS)
    evaluated = evaluate(SVT6_FAMILY, SVT6_SIZES, progress)
    excess = [(size, loss.log_ratio - mpf(size) * EPS / 2) for size, loss in evaluated]
    decided, certified = certified_verdict(all_of(
        at_least(certified_loss(SVT6_FAMILY, size), Fraction(size * EPS, 2))
        for size in SVT6_SIZES))
    (t1, loss1), (t2, loss2) = evaluated[-2:]
    slope = (loss2.log_ratio - loss1.log_ratio) / (t2 - t1)
    rate = symbolic.numeric(symbolic.copy_growth_rate(2 / symbolic.EPS), DPS, epsilon=EPS)
    detail = (f"ln ratio − mε/2 ≥ {fmt(min(value for _, value in excess), 4)} at every m = 1 … "
              f"10^4 (so ratio ≥ e^(mε/2)); the ratio exceeds the claimed e^ε from m = "
              f"{first_above(evaluated, EPS)} and grows by {fmt(slope, 6)} nats per pair "
              f"(limit 2 ln(2e^(ε/4) − 1) = {fmt(rate, 6)})"
              + ("; certified: every enclosure lies at or above mε/2" if certified else ""))
    grid = tuple(float(size) for size in SVT6_SIZES)
    ratio_panel = Panel("Alg. 6: exact ln ratio vs the paper's lower bound", M_AXIS.replace(
        "⊥ answers", "(⊥, ⊤) pairs"), LOSS_AXIS,
        (loss_curve(f"{SVT6_FAMILY.label} (exact)", evaluated, 0),
         Curve(r"$m\varepsilon/2$ (Lyu et al. lower bound)", grid,
               tuple(size * EPS / 2 for size in grid), STATEMENT, 0),
         horizontal(f"claimed ε = {EPS}", EPS, grid, -1)), xscale="log", yscale="log")
    return ClaimResult(decided, detail,
                       tuple(loss_point(SVT6_FAMILY, size, loss,
                                        lower_bound=fmt(mpf(size) * EPS / 2, DPS))
                             for size, loss in evaluated),
                       FigureSpec("Alg. 6 (Chen et al.): Lyu et al. Appendix 9.2",
                                  (ratio_panel, _pair_ratio_panel(pieces, infimum))),
                       tuple((f"κ(z)·e^(−ε/2) on {where}", symbolic.latex(expr))
                             for where, expr in pieces)
                       + (("inf_z κ(z)", symbolic.latex(infimum)),), certified)


register_claim(Claim(
    "svt6-appendix", f"{LYU}, Appendix 9.2 (Thm 9.13)",
    "ratio ≥ e^{mε/2} (the integrand ratio is ≥ e^{ε/2} per (⊥, ⊤) pair at every z): Alg. 6 "
    "is not ε-DP for any finite ε",
    "svt6(eps=1): D = 0*m,1*m; D' = 1*m,0*m; a = F*m,T*m",
    evaluate_svt6))

def certify_below(bounded, sizes, others: bool) -> tuple[str, bool]:
    """Certified verdict of "the ln ratio of every ``(family, bound)`` stays below ``bound``" at
    every size (``others``: the claim's uncertified parts)."""
    return certified_verdict(all_of(below(certified_loss(family, size), bound)
                                    for family, bound in bounded for size in sizes), others)


# --- svt4-tight -----------------------------------------------------------------------------

SVT4_CUTOFFS = (1, 2, 3)
SVT4_SIZES = (1, 2, 3, 5, 10, 20, 50, 100, 200)


def evaluate_svt4(progress: Callable[[], None]) -> ClaimResult:
    """ln ratio of (⊥^k, ⊤^c) against the limit (1+6c)ε/4 as k grows."""
    limit = symbolic.shift_limit(4 / symbolic.EPS, 4 / (3 * symbolic.EPS), symbolic.C)
    series = [(Family(f"c = {c}", "svt4", {"eps": EPS, "c": c}, f"0*{{t}},1*{c}",
                      f"1*{{t}},0*{c}", f"F*{{t}},T*{c}"),
               symbolic.numeric(limit, DPS, epsilon=EPS, c=c), f"(1+6c)ε/4 = {1 + 6 * c}/4")
              for c in SVT4_CUTOFFS]
    holds, detail, points, panels = approach_limit(
        series, SVT4_SIZES, progress, EPS, "k (number of ⊥ answers before the c ⊤'s)")
    decided, certified = certify_below(
        [(family, Fraction((1 + 6 * c) * EPS, 4)) for (family, _, _), c in zip(series,
                                                                                SVT4_CUTOFFS)],
        SVT4_SIZES, holds)
    if certified:
        detail += "; certified: every enclosure lies below (1+6c)ε/4"
    return ClaimResult(decided, detail, tuple(points),
                       FigureSpec(r"Alg. 4 (Lee & Clifton): $D=(0^k,1^c)$, $D'=(1^k,0^c)$, "
                                  r"$a=(\bot^k,\top^c)$", panels),
                       (("lim_k ln ratio", symbolic.latex(limit)),), certified)


register_claim(Claim(
    "svt4-tight", f"{LYU}, §3.2 (Alg. 4 is (1+6c)ε/4-DP, tight)",
    "ln ratio → (1+6c)ε/4 as k grows (1.0326 at k = 1, c = 1) and never exceeds it",
    "svt4(eps=1, c ∈ {1, 2, 3}): D = 0*k,1*c; D' = 1*k,0*c; a = F*k,T*c",
    evaluate_svt4))

# --- svt1-tight -----------------------------------------------------------------------------

SVT1_SIZES = (1, 2, 3, 5, 10, 20, 50)


def evaluate_svt1(progress: Callable[[], None]) -> ClaimResult:
    """All-⊥ outputs against ε/2 (Lemma 1) and (⊥^t, ⊤) against ε (Thm 3.3)."""
    b_rho, b_nu = 2 / symbolic.EPS, 4 / symbolic.EPS
    limits = (symbolic.shift_limit(b_rho, b_nu, 0), symbolic.shift_limit(b_rho, b_nu, 1))
    series = [(Family(label, "svt1", {"eps": EPS, "c": 1}, d1, d2, output),
               symbolic.numeric(limit, DPS, epsilon=EPS), formula)
              for (label, d1, d2, output, formula), limit in zip((
                  ("all ⊥: D = (0,…,0), D′ = (1,…,1)", "0*{t}", "1*{t}", "F*{t}", "ε/2"),
                  ("mixed (⊥,…,⊥, ⊤): D = (0,…,0, 1), D′ = (1,…,1, 0)", "0*{t},1", "1*{t},0",
                   "F*{t},T", "ε")), limits)]
    holds, detail, points, panels = approach_limit(series, SVT1_SIZES, progress, EPS,
                                                   "t (number of ⊥ answers)")
    decided, certified = certify_below(
        [(family, bound) for (family, _, _), bound in zip(series, (Fraction(EPS, 2), EPS))],
        SVT1_SIZES, holds)
    if certified:
        detail += "; certified: every enclosure lies below ε/2 (all ⊥), resp. ε (mixed)"
    return ClaimResult(decided, detail, tuple(points),
                       FigureSpec("Alg. 1 (c = 1): Lemma 1 and Thm 3.3 are tight", panels),
                       (("lim ln ratio, all ⊥", symbolic.latex(limits[0])),
                        ("lim ln ratio, (⊥^t, ⊤)", symbolic.latex(limits[1]))), certified)


register_claim(Claim(
    "svt1-tight", f"{LYU}, Lemma 1 and Thm 3.3",
    "all-⊥ outputs have ln ratio < ε/2 for every length and approach it; mixed outputs approach "
    "ε and never exceed it",
    "svt1(eps=1, c=1): D = 0*t; D' = 1*t; a = F*t, and D = 0*t,1; D' = 1*t,0; a = F*t,T",
    evaluate_svt1))
