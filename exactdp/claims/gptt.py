"""Chen & Machanavajjhala's claims about GPTT [1]_ (``docs/mathematics.md`` §9).

* ``gptt-inf``: with ε2 = ∞ the output (⊥, ⊤) on D = (0, 1) is impossible on D' = (1, 0).
* ``gptt-copies``: with t copies the exact ratio grows without bound (Thm 4.7), so the prior-work
  claim that GPTT is 2ε1-DP (their §3.1) fails from a small t on.
* ``chenm-proof-flaw``: their proof of Thm 4.7 lets α, δ and κ depend on t (Lyu et al. [2]_,
  Appendix 9.3); applied to Alg. 1 the same argument would contradict Lemma 1.

References
----------
.. [1] Y. Chen and A. Machanavajjhala, "On the Privacy Properties of Variants on the Sparse
   Vector Technique", arXiv:1508.07306, 2015: Alg. 2 (GPTT), §3.1 (the prior-work claim
   2ε1), Thm 4.7 and its proof.
.. [2] M. Lyu, D. Su and N. Li, "Understanding the Sparse Vector Technique for Differential
   Privacy", PVLDB 10(6):637–648, 2017, arXiv:1603.01699: Lemma 1, Appendix 9.3.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from fractions import Fraction
from typing import Callable

import mpmath
from mpmath import mpf

from ..exact import PrivacyLoss
from ..formatting import format_value
from ..noise import Kind, NoiseLaw
from . import symbolic
from .certify import above, all_of, at_most, certified_loss, certified_verdict
from .families import DPS, Family, loss_point, tolerance
from .figure_spec import FUNCTION, Curve, FigureSpec, Panel, horizontal
from .patterns import LOSS_AXIS, evaluate, first_above, fmt, loss_curve, structural_zero
from .registry import Claim, ClaimResult, register_claim, verdict

CHEN_M = "Chen & Machanavajjhala 2015 (arXiv:1508.07306)"
COPIES_AXIS = r"copies $t$  ($D=(0^t,1^t)$, $D'=(1^t,0^t)$, $a=(\bot^t,\top^t)$)"


def gptt_copies(eps1, eps2) -> Family:
    """Chen & Machanavajjhala's counterexample with t copies of each query (proof of Thm 4.7)."""
    return Family(f"ε1 = {eps1}, ε2 = {eps2}", "gptt", {"eps1": eps1, "eps2": eps2},
                  "0*{t},1*{t}", "1*{t},0*{t}", "F*{t},T*{t}")


# --- gptt-inf -------------------------------------------------------------------------------

INF_BUDGETS = (0.25, 0.5, 1.0)
INF_SIZES = (1, 10, 100, 1000, 10**4)


def evaluate_gptt_inf(progress: Callable[[], None]) -> ClaimResult:
    """Pr_D = ½(1 − e^{−ε1}) and Pr_D' = 0 exactly, for every number of copies."""
    closed = symbolic.no_noise_probability((0,), (1,), 1 / symbolic.EPS1)
    series = [(gptt_copies(eps1, "inf"), symbolic.numeric(closed, DPS, epsilon_1=eps1),
               r"$\frac{1}{2}(1-e^{-\varepsilon_1})$") for eps1 in INF_BUDGETS]
    holds, detail, points, panels, decision = structural_zero(series, INF_SIZES, progress,
                                                              "½(1 − e^{−ε1})", COPIES_AXIS)
    decided, certified = certified_verdict(decision, holds)
    return ClaimResult(decided, detail + ("; certified: every enclosure of Pr[M(D)=a] lies "
                                          "above 0" if certified else ""), tuple(points),
                       FigureSpec("GPTT with ε2 = ∞ (Chen & Machanavajjhala, proof of Thm 4.7)",
                                  panels),
                       (("Pr[M(D)=a]", symbolic.latex(closed)), ("Pr[M(D′)=a]", "0")),
                       certified)


register_claim(Claim(
    "gptt-inf", f"{CHEN_M}, proof of Thm 4.7 (case ε2 = ∞)",
    "Pr[M(D′)=a] = 0 while Pr[M(D)=a] = Pr[0 < ρ ≤ 1] > 0: the loss is +∞",
    "gptt(eps1 ∈ {0.25, 0.5, 1}, eps2=inf): D = 0*t,1*t; D' = 1*t,0*t; a = F*t,T*t",
    evaluate_gptt_inf))


# --- gptt-copies ----------------------------------------------------------------------------

COPIES_BUDGETS = ((0.5, 0.5), (0.25, 0.75), (0.75, 0.25), (1.0, 1.0))
COPIES_SIZES = (10, 100, 1000, 10**4, 10**5, 10**6)
#: Give up looking for the first t above 2ε1 after this many copies.
MAX_SCAN = 1000


def scan_until_above(family: Family, bound: float, progress) -> list[tuple[int, PrivacyLoss]]:
    """Evaluate t = 1, 2, … until the ln ratio exceeds ``bound`` (at most :data:`MAX_SCAN`)."""
    evaluated = []
    for size in range(1, MAX_SCAN + 1):
        evaluated.append((size, family.loss(size)))
        progress()
        if first_above(evaluated[-1:], bound) is not None:
            break
    return evaluated


def certify_first_above(family: Family, first: int | None, bound: Fraction,
                        progress) -> bool | None:
    """Certified: ``ln ratio ≤ bound`` at ``first − 1`` and ``> bound`` at ``first`` and at every
    size of :data:`COPIES_SIZES` beyond (undecided when no ``first`` was found)."""
    if first is None:
        return None
    decisions = [at_most(certified_loss(family, first - 1), bound)] if first > 1 else []
    for size in [first] + [t for t in COPIES_SIZES if t > first]:
        decisions.append(above(certified_loss(family, size), bound))
        progress()
    return all_of(decisions)


def evaluate_gptt_copies(progress: Callable[[], None]) -> ClaimResult:
    """The exact ln ratio against t, the first t above 2ε1 and the growth per copy."""
    rate_formula = symbolic.copy_growth_rate(1 / symbolic.EPS2)
    points, curves, rate_curves, sentences, holds = [], [], [], [], True
    decisions = []
    for color, (eps1, eps2) in enumerate(COPIES_BUDGETS):
        family = gptt_copies(eps1, eps2)
        evaluated = scan_until_above(family, 2 * eps1, progress)
        done = {size for size, _ in evaluated}
        evaluated += evaluate(family, [t for t in COPIES_SIZES if t not in done], progress)
        first = first_above(evaluated, 2 * eps1)
        (t1, loss1), (t2, loss2) = evaluated[-2:]
        slope = (loss2.log_ratio - loss1.log_ratio) / (t2 - t1)
        rate = symbolic.numeric(rate_formula, DPS, epsilon_2=eps2)
        holds &= first is not None and abs(slope - rate) < mpf("1e-4")
        decisions.append(certify_first_above(family, first, Fraction(2 * eps1), progress))
        points += [loss_point(family, size, loss, claimed_bound=format_value(mpf(2 * eps1), DPS))
                   for size, loss in evaluated]
        curves.append(loss_curve(f"{family.label} (exact)", evaluated, color))
        curves.append(horizontal(f"prior-work claim 2ε1 = {2 * eps1:g}", 2 * eps1,
                                 (1, COPIES_SIZES[-1]), color))
        rate_curves.append(Curve(f"{family.label} (exact)", tuple(float(t) for t, _ in evaluated),
                                 tuple(float(loss.log_ratio / t) for t, loss in evaluated),
                                 color=color))
        rate_curves.append(horizontal(rf"limit $2\ln(2e^{{\varepsilon_2/2}}-1)$ = {fmt(rate, 5)}",
                                      float(rate), (1, COPIES_SIZES[-1]), color))
        sentences.append(f"(ε1, ε2) = ({eps1}, {eps2}) from t = {first}, then "
                         f"+{fmt(slope, 6)} nats per copy (limit {fmt(rate, 6)})")
    panels = (Panel("exact ln ratio vs copies, prior-work bound 2ε1 dashed", COPIES_AXIS,
                    LOSS_AXIS, tuple(curves), xscale="log", yscale="log"),
              Panel(r"growth per copy: (ln ratio)$/t \to 2\ln(2e^{\varepsilon_2/2}-1)$",
                    COPIES_AXIS, "ln ratio / t  (nats per copy)", tuple(rate_curves),
                    xscale="log"))
    decided, certified = certified_verdict(all_of(decisions), holds)
    return ClaimResult(decided, "the exact ratio exceeds the prior-work bound e^{2ε1} at "
                       + "; ".join(sentences) + (
                           "; certified: every enclosure of ln ratio lies above 2ε1 from that t "
                           f"on (sizes up to {COPIES_SIZES[-1]}) and at or below it just before"
                           if certified else ""),
                       tuple(points), FigureSpec("GPTT with t copies (Chen & Machanavajjhala, "
                                                 "Thm 4.7) vs the prior-work claim 2ε1", panels),
                       (("growth per copy, lim (ln ratio)/t", symbolic.latex(rate_formula)),),
                       certified)


register_claim(Claim(
    "gptt-copies", f"{CHEN_M}, Thm 4.7 (prior-work claim 2ε1: their §3.1)",
    "the ratio grows without bound in t, so GPTT is not 2ε1-DP (nor ε-DP for any finite ε)",
    "gptt(eps1, eps2) for (0.5, 0.5), (0.25, 0.75), (0.75, 0.25), (1, 1): D = 0*t,1*t; "
    "D' = 1*t,0*t; a = F*t,T*t",
    evaluate_gptt_copies))


# --- chenm-proof-flaw -----------------------------------------------------------------------

@dataclass(frozen=True)
class ArgumentStep:
    """The quantities of Chen & Machanavajjhala's proof of Thm 4.7 at one t.

    Attributes
    ----------
    alpha : mpf
        ``α(t) = Pr[M(D')=a]``.
    delta : mpf
        ``δ(t) = |F_{b_ρ}^{-1}(α/4)| = b_ρ ln(2/α)``: the tails of ``Lap(b_ρ)`` beyond ±δ have
        mass α/2.
    log_kappa : mpf
        ``ln κ(t)``, κ the minimum over ``z ∈ [−δ, δ]`` of the per-copy integrand ratio.
    log_bound : mpf
        ``ln(κ(t)^t / 2)``: the argument's lower bound on the ln ratio.
    """

    alpha: mpf
    delta: mpf
    log_kappa: mpf
    log_bound: mpf


def log_copy_ratio(copy, z: mpf, query_noise: NoiseLaw) -> mpf:
    """``ln κ(z)``: the log ratio of one copy's factors on D and D' at threshold noise z.

    ``copy`` lists ``(q_D, q_D', is_top)``; ⊥ contributes ``F_{b_ν}(z − q)``, ⊤ ``S_{b_ν}(z − q)``
    (the master integral with T = 0, ``docs/mathematics.md`` §4.1).
    """
    total = mpf(0)
    for q_d, q_d2, is_top in copy:
        kind = Kind.SF if is_top else Kind.CDF
        total += query_noise.log(kind, z - q_d) - query_noise.log(kind, z - q_d2)
    return total


def argument_step(family: Family, copy, size: int, loss: PrivacyLoss) -> ArgumentStep:
    """α(t), δ(t), κ(t) and the bound κ(t)^t/2 of Chen & Machanavajjhala's proof of Thm 4.7.

    Notes
    -----
    κ(z) is quasi-concave for both families (for GPTT it is symmetric about z = ½ and increases
    up to ½; for Alg. 1's ``F(z)/F(z−1)`` it decreases, F being log-concave), so its minimum over
    ``[−δ, δ]`` is at an end point.  For a fixed t each step of the argument is valid, so
    ``ln ratio ≥ ln(κ(t)^t/2)``; the flaw is only the conclusion that this grows with t.
    """
    mech = family.build()
    with mpmath.workdps(DPS + 10):
        delta = mech.threshold_noise.b * (mpmath.ln2 - loss.p2.log_value)
        noise = mech.query_noise
        log_kappa = min(log_copy_ratio(copy, -delta, noise), log_copy_ratio(copy, delta, noise))
        return ArgumentStep(loss.p2.value, delta, log_kappa, size * log_kappa - mpmath.ln2)


FLAW_SIZES = (1, 2, 5, 10, 100, 1000, 10**4, 10**5, 10**6)
#: (family, one copy's (q_D, q_D', ⊤?) entries, reference line label and value, y scale).
FLAW_FAMILIES = (
    (replace(gptt_copies(0.5, 0.5), label="GPTT, ε1 = ε2 = 0.5"), ((0, 1, False), (1, 0, True)),
     "prior-work claim 2ε1", 1.0, "symlog"),
    (Family("Alg. 1 (svt1), ε = 1", "svt1", {"eps": 1}, "0*{t}", "1*{t}", "F*{t}"),
     ((0, 1, False),), "Lemma 1 bound ε/2", 0.5, "linear"),
)


def _flaw_panels(family, rows, reference_label, reference, color, yscale):
    sizes = tuple(float(size) for size, _, _ in rows)
    top = Panel(f"{family.label}: exact ratio vs the argument's bound", "t (copies)",
                LOSS_AXIS, (
                    Curve("exact ln ratio", sizes,
                          tuple(float(loss.log_ratio) for _, loss, _ in rows), color=color),
                    Curve(r"argument's bound $\ln(\kappa(t)^t/2)$", sizes,
                          tuple(float(step.log_bound) for _, _, step in rows), color=color + 2),
                    horizontal(f"{reference_label} = {reference:g}", reference, sizes, -1)),
                xscale="log", yscale=yscale, ylim=(-1, None) if yscale == "symlog" else None)
    bottom = Panel(f"{family.label}: the quantities depend on t", "t (copies)",
                   "value (log scale): δ in threshold units, logs in nats", (
                       Curve(r"$\delta(t) = b_\rho\ln(2/\alpha(t))$", sizes,
                             tuple(float(step.delta) for _, _, step in rows), FUNCTION, 0),
                       Curve(r"$-\ln\alpha(t)$,  $\alpha(t) = \Pr[M(D')=a]$", sizes,
                             tuple(float(-loss.p2.log_value) for _, loss, _ in rows),
                             FUNCTION, 1),
                       Curve(r"$\ln\kappa(t)$", sizes,
                             tuple(float(step.log_kappa) for _, _, step in rows), FUNCTION, 2),
                       Curve(r"$t\,\ln\kappa(t) = \ln\kappa(t)^t$", sizes,
                             tuple(float(size * step.log_kappa) for size, _, step in rows),
                             FUNCTION, 3)),
                   xscale="log", yscale="log")
    return top, bottom


def evaluate_proof_flaw(progress: Callable[[], None]) -> ClaimResult:
    """The argument's quantities and bound next to the exact ratio, for GPTT and Alg. 1."""
    points, tops, bottoms, columns = [], [], [], []
    for color, (family, copy, label, reference, yscale) in enumerate(FLAW_FAMILIES):
        rows = [(size, loss, argument_step(family, copy, size, loss))
                for size, loss in evaluate(family, FLAW_SIZES, progress)]
        points += [loss_point(family, size, loss, alpha=format_value(step.alpha, 12),
                              delta=format_value(step.delta, 12),
                              kappa=format_value(mpmath.exp(step.log_kappa), 12),
                              log_kappa_power=format_value(size * step.log_kappa, 12),
                              log_argument_bound=format_value(step.log_bound, 12))
                   for size, loss, step in rows]
        top, bottom = _flaw_panels(family, rows, label, reference, color, yscale)
        tops.append(top)
        bottoms.append(bottom)
        columns.append(rows)
    gptt_rows, svt1_rows = columns
    valid = all(step.log_bound < loss.log_ratio for rows in columns for _, loss, step in rows)
    svt1_bound = max(step.log_bound for _, _, step in svt1_rows)
    svt1_ratio = max(loss.log_ratio for _, loss, _ in svt1_rows)
    holds = valid and svt1_bound <= svt1_ratio and svt1_ratio - mpf(1) / 2 <= tolerance()
    last_power = svt1_rows[-1][2].log_bound + mpmath.ln2
    lowest = min(step.log_bound for _, _, step in svt1_rows)
    detail = (f"for Alg. 1, ln(κ(t)^t/2) stays between {fmt(lowest, 4)} and {fmt(svt1_bound, 4)} "
              f"for t = 1 … 10^6 (κ(t)^t → {fmt(mpmath.exp(last_power), 4)}, bounded), so the "
              f"argument proves no violation, and the exact ln ratio never goes above ε/2 = 0.5 "
              f"(Lemma 1; it reaches 0.5 to {DPS} digits); for GPTT κ(t) ≥ e^(ε2) and the bound "
              f"grows with t (ln(κ^t/2) = {fmt(gptt_rows[-1][2].log_bound, 7)} vs exact "
              f"{fmt(gptt_rows[-1][1].log_ratio, 7)} at t = 10^6)")
    return ClaimResult(verdict(holds), detail, tuple(points),
                       FigureSpec("The flaw in Chen & Machanavajjhala's proof of Thm 4.7 "
                                  "(Lyu et al., Appendix 9.3)", (*tops, *bottoms)),
                       (("inf_z κ(z) for GPTT (Chen & M.'s κ(z))",
                         symbolic.latex(symbolic.pair_ratio_infimum(1 / symbolic.EPS2))),))


register_claim(Claim(
    "chenm-proof-flaw", "Lyu, Su & Li, PVLDB 10(6) 2017 (arXiv:1603.01699), Appendix 9.3 (on "
    "Chen & Machanavajjhala's proof of Thm 4.7)",
    "Chen & M.'s argument (ratio > κ(t)^t/2 with α, δ, κ depending on t) proves nothing: applied "
    "to Alg. 1 (q = 0^t vs 1^t, a = ⊥^t) its bound stays bounded, while Lemma 1 caps the ratio "
    "at e^(ε/2)",
    "gptt(eps1=0.5, eps2=0.5) with D = 0*t,1*t; D' = 1*t,0*t; a = F*t,T*t and "
    "svt1(eps=1) with D = 0*t; D' = 1*t; a = F*t",
    evaluate_proof_flaw))
