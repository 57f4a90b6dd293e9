"""CheckDP's incorrect variants [1]_ (appendix D; ``docs/mathematics.md`` §9): ``checkdp-bad``.

1. The noisy sums, as families of size ``t`` (ε = 1, CheckDP's counterexample at ``t = 4``):

   * BadPartialSum, ``D = 0^{t+1}``, ``D′ = (0^t, 1)``, ``a = 0``: ln ratio ``2ε`` exactly
     (``Lap(1/(2ε))``), its twin PartialSum ``ε``;
   * BadSmartSum (M = 2), ``D = 0^{t+1}``, ``D′ = (1, 0^t)``, ``a = 0^{t+1}``: ``+∞`` (the block
     end ``q0 + q1`` is released exactly, so ``Pr[M(D′)=a] = 0``), its twin SmartSum ``2ε`` (its
     claim).

2. Sparse Vector and noisy max with released values, as families of size ``t``:

   * BadGapSVT (N = 1), ``D = (0^t, 0)``, ``D′ = (1^t, 0)``, ``a = (⊥^t, 0)``:
     ln ratio ``tε/(4N)`` exactly — the released value 0 bounds the threshold noise by
     ``z ≤ 0``, where every ⊥ factor is ``½e^{(z − q_i)/b_ν}``, so the ratio of the integrals is
     ``e^{t/b_ν}`` with ``b_ν = 4N/ε``; its twin GapSVT releases the gap 0 and stays within ε;
   * BadNoisyMax (Laplace, returns the largest value), ``D = 0^t``, ``D′ = 1^t``, ``a = −1``:
     below every answer the density is ``t·2^{−t}b^{−1}e^{Σ_j (v − q_j)/b}``, so the ln ratio is
     ``t/b = tε/2`` exactly (``b = 2/ε``); its twin (the index) has ln ratio 0 on these inputs.

3. ``exactdp search`` (seed 0, inputs of length ≤ 5) on each bad variant — BadSVT1–3 (= ``svt5``,
   ``svt6``, ``svt4``), BadPartialSum, BadSmartSum, BadGapSVT, BadNoisyMax — with its witness's
   exact ln ratio, and the correct twin's worst output on the same inputs.

References
----------
.. [1] Y. Wang, Z. Ding, D. Kifer and D. Zhang, "CheckDP: An Automated and Integrated Approach
   for Proving Differential Privacy or Finding Precise Counterexamples", ACM CCS 2020,
   doi:10.1145/3372297.3417282, arXiv:2008.07485: appendix D (BadGapSVT, Figure 15;
   PartialSum, §D.3; SmartSum, §D.4).
.. [2] T.-H. H. Chan, E. Shi and D. Song, "Private and Continual Release of Statistics", ACM
   TISSEC 14(3), 2011, doi:10.1145/2043621.2043626: the counter behind SmartSum.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable

import mpmath
from mpmath import mpf

from ..exact import privacy_loss
from ..exact.form.sums import log_density_ratio
from ..precision import to_mpf
from ..formatting import format_value
from ..mechanisms import mechanism
from ..mechanisms.sums import NoisySum
from ..exact.losses.worst_output import worst_output
from ..search import search
from ..sequences import format_number
from .certify import (all_of, certified_loss, certified_verdict, equals, exceeds, loss_ends,
                      within)
from .families import DPS, Family, loss_point, tolerance
from .figure_spec import EXACT, STATEMENT, Curve, FigureSpec, Panel, horizontal
from .patterns import LOSS_AXIS, evaluate, fmt, loss_curve
from .registry import Claim, ClaimResult, register_claim

CHECKDP = "Wang, Ding, Kifer & Zhang (CheckDP), ACM CCS 2020 (arXiv:2008.07485)"
EPS = 1
SIZES = (1, 2, 4, 10, 100, 1000)


def _constant(value):
    return lambda t: value


#: (family, exact ln ratio as a function of t (a Fraction, or ``math.inf``), claimed ε of the
#: mechanism)
SUM_SERIES = (
    (Family("BadPartialSum", "bad_partial_sum", {"eps": EPS}, "0*{t},0", "0*{t},1", "0"),
     _constant(2 * EPS), EPS),
    (Family("PartialSum (twin)", "partial_sum", {"eps": EPS}, "0*{t},0", "0*{t},1", "0"),
     _constant(EPS), EPS),
    (Family("BadSmartSum, M = 2", "bad_smart_sum", {"eps": EPS, "M": 2}, "0,0*{t}", "1,0*{t}",
            "0,0*{t}"), _constant(math.inf), 2 * EPS),
    (Family("SmartSum, M = 2 (twin)", "smart_sum", {"eps": EPS, "M": 2}, "0,0*{t}", "1,0*{t}",
            "0,0*{t}"), _constant(2 * EPS), 2 * EPS),
)
#: The same for the released-value variants (part 2); ``None``: no closed form, only the claim.
VALUE_SERIES = (
    (Family("BadGapSVT, N = 1", "bad_gap_svt", {"eps": EPS}, "0*{t},0", "1*{t},0", "F*{t},0"),
     lambda t: Fraction(t * EPS, 4), EPS),
    (Family("GapSVT, N = 1 (twin)", "gap_svt", {"eps": EPS}, "0*{t},0", "1*{t},0", "F*{t},0"),
     None, EPS),
    (Family("BadNoisyMax", "noisy_max_laplace_value", {"eps": EPS}, "0*{t}", "1*{t}", "-1"),
     lambda t: Fraction(t * EPS, 2), EPS),
    (Family("NoisyMax (twin)", "noisy_max_laplace", {"eps": EPS}, "0*{t}", "1*{t}", "0"),
     _constant(0), EPS),
)
#: (CheckDP's name, catalogue name and parameters, correct twin)
SEARCHED = (
    ("BadSVT1", "svt5", {}, "svt1"),
    ("BadSVT2", "svt6", {}, "svt1"),
    ("BadSVT3", "svt4", {}, "svt1"),
    ("BadPartialSum", "bad_partial_sum", {}, "partial_sum"),
    ("BadSmartSum", "bad_smart_sum", {"M": 2}, "smart_sum"),
    ("BadGapSVT", "bad_gap_svt", {}, "gap_svt"),
    ("BadNoisyMax", "noisy_max_laplace_value", {}, "noisy_max_laplace"),
)
SEARCH_LENGTH = 5
SEARCH_EVALUATIONS = 60


def closed_form_ratio(mech, d1, d2, output, enclosure) -> Fraction | None:
    """The exact ln ratio of a noisy-sum output (``exact.sums.log_density_ratio``, an exact
    rational), checked to lie in the certified ``enclosure``; None for other mechanisms, an exact
    zero, or (an internal inconsistency, never observed) a value outside the enclosure."""
    if not isinstance(mech, NoisySum):
        return None
    value = log_density_ratio(mech, d1, d2, output)
    if value is None:
        return None
    lower, upper = loss_ends(enclosure)
    return value if lower <= value <= upper else None


def _equal_to(family: Family, size: int, enclosure, value) -> bool | None:
    """``ln ratio = value``: decided exactly by the noisy sums' closed form where there is one,
    else on the enclosure (:func:`~exactdp.claims.certify.equals`)."""
    exact_ratio = closed_form_ratio(family.build(), family.d1.format(t=size),
                                    family.d2.format(t=size), family.output.format(t=size),
                                    enclosure)
    if exact_ratio is not None:
        return exact_ratio == value
    return equals(enclosure, value)


def twin_within_claim(twin, d1, d2, output, enclosure) -> tuple[bool | None, bool]:
    """``|ln ratio| ≤ claimed ε`` of a correct twin, and whether the noisy sums' closed form
    decided it: on the enclosure when it lies within the claim, else (the bound attained
    exactly, as by PartialSum's ε) from the exact rational ln ratio."""
    claimed = Fraction(twin.claimed_eps)
    decided = within(enclosure, claimed)
    if decided is not None:
        return decided, False
    exact_ratio = closed_form_ratio(twin, d1, d2, output, enclosure)
    if exact_ratio is None:
        return None, False
    return abs(exact_ratio) <= claimed, True


def _families(series, progress: Callable[[], None]):
    """Points, curves, whether every ln ratio equals its exact value (``+∞`` an exact zero),
    or, without one, stays within the claim, and the same decided on certified enclosures."""
    points, curves, holds, decisions = [], [], True, []
    for color, (family, expected, claimed) in enumerate(series):
        evaluated = evaluate(family, SIZES, progress)
        for size, loss in evaluated:
            exact_value = None if expected is None else expected(size)
            value = (None if exact_value is None else mpf(exact_value)
                     if math.isinf(exact_value) else to_mpf(exact_value))
            # equalities are certified at one more digit: the enclosure of the ln ratio (two
            # relative widths) is then at most 10^-DPS wide
            enclosure = certified_loss(family, size, DPS + (value is not None))
            if value is None:
                holds &= abs(loss.log_ratio) <= claimed + tolerance(scale=claimed)
                decisions.append(within(enclosure, Fraction(claimed)))
            elif mpmath.isinf(value):
                holds &= loss.p2.is_zero and loss.log_ratio == value
                decisions.append(equals(enclosure, exact_value))
            else:
                holds &= abs(loss.log_ratio - value) <= tolerance(scale=value)
                decisions.append(_equal_to(family, size, enclosure, exact_value))
            points.append(loss_point(family, size, loss, claimed=str(claimed),
                                     expected="none" if value is None
                                     else format_value(value, DPS)))
        if all(mpmath.isfinite(loss.log_ratio) for _, loss in evaluated):
            curves.append(loss_curve(f"{family.label} (exact)", evaluated, color))
    return holds, points, curves, all_of(decisions)


def _sum_panel(curves) -> Panel:
    curves = (*curves, horizontal(f"claimed ε = {EPS} (PartialSum)", EPS, SIZES, -1),
              horizontal(f"claimed 2ε = {2 * EPS} (SmartSum)", 2 * EPS, SIZES, -2))
    return Panel("noisy sums: exact ln ratio against the family size", "t (queries − 1)",
                 LOSS_AXIS, curves, xscale="log",
                 note="BadPartialSum and SmartSum coincide at 2ε;\nBadSmartSum: +∞ at every t "
                      "(Pr[M(D′)=a] = 0 exactly; not drawn)")


def _value_panel(curves) -> Panel:
    xs = tuple(float(t) for t in SIZES)
    curves = (*curves,
              Curve("tε/(4N) (BadGapSVT, closed form)", xs, tuple(t * EPS / 4 for t in xs),
                    STATEMENT, 0),
              Curve("tε/2 (BadNoisyMax, closed form)", xs, tuple(t * EPS / 2 for t in xs),
                    STATEMENT, 2),
              horizontal(f"claimed ε = {EPS}", EPS, SIZES, -1))
    return Panel("released values: exact ln ratio against the family size",
                 "t (queries that move)", LOSS_AXIS, curves, xscale="log", yscale="symlog",
                 ylim=(0, 1000),
                 note="BadGapSVT: D = (0^t,0), D′ = (1^t,0), a = (⊥^t,0)\n"
                      "BadNoisyMax: D = 0^t, D′ = 1^t, a = −1")


def _searched(progress: Callable[[], None]):
    """Each bad variant's search witness and the twin's worst output on the same inputs (and
    whether certified enclosures prove the violation)."""
    points, holds, rows, decisions, by_closed_form = [], True, [], [], []
    for index, (label, name, params, twin_name) in enumerate(SEARCHED, start=1):
        bad = mechanism(name, eps=EPS, **params)
        twin = mechanism(twin_name, eps=EPS, **params)
        # no wall-clock budget: the witness depends on the seed only, not on the machine's speed
        result = search(bad, max_length=SEARCH_LENGTH, seed=0, max_evaluations=SEARCH_EVALUATIONS,
                        dps=DPS)
        w = result.witness
        twin_witness = worst_output(twin, w.d1, w.d2, DPS)
        twin_loss = privacy_loss(twin, w.d1, w.d2, str(twin_witness.output), dps=DPS)
        claimed = to_mpf(twin.claimed_eps)
        twin_ok = abs(twin_loss.log_ratio) <= claimed + tolerance(scale=claimed)
        holds &= result.verdict == "violation" and twin_ok
        decisions.append(exceeds(privacy_loss(bad, w.d1, w.d2, w.output, dps=DPS,
                                              method="certified"), bad.claimed_eps))
        twin_enclosure = privacy_loss(twin, w.d1, w.d2, str(twin_witness.output), dps=DPS,
                                      method="certified")
        decided, closed = twin_within_claim(twin, w.d1, w.d2, str(twin_witness.output),
                                            twin_enclosure)
        decisions.append(decided)
        if closed:
            by_closed_form.append(twin_name)
        rows.append((index, label, w.loss.log_ratio, abs(twin_loss.log_ratio), bad.claimed_eps))
        points.append({"series": f"search: {label} ({name})", "size": len(w.d1),
                       "d1": str(w.d1), "d2": str(w.d2), "output": str(w.output),
                       "log_ratio": format_value(w.loss.log_ratio, DPS),
                       "p1": format_value(w.loss.p1.value, DPS),
                       "p2": format_value(w.loss.p2.value, DPS),
                       "claimed": format_number(bad.claimed_eps), "verdict": result.verdict,
                       "twin": twin_name, "twin_output": str(twin_witness.output),
                       "twin_log_ratio": format_value(twin_loss.log_ratio, DPS)})
        progress()
    return holds, points, rows, all_of(decisions), by_closed_form


def _search_panel(rows) -> Panel:
    finite = [row for row in rows if not mpmath.isinf(row[2])]
    infinite = ", ".join(label for _, label, loss, _, _ in rows if mpmath.isinf(loss))
    xs = tuple(float(index) for index, *_ in rows)
    curves = (Curve("bad variant: search witness (exact)", tuple(float(r[0]) for r in finite),
                    tuple(float(r[2]) for r in finite), EXACT, 0),
              Curve("correct twin on the same inputs (exact)", xs,
                    tuple(float(r[3]) for r in rows), EXACT, 1),
              Curve("claimed budget", xs, tuple(float(r[4]) for r in rows), STATEMENT, -1))
    names = [f"{index} {label}" for index, label, *_ in rows]
    half = (len(names) + 1) // 2
    axis = ", ".join(names[:half]) + ",\n" + ", ".join(names[half:])
    return Panel(f"exactdp search witnesses (length ≤ {SEARCH_LENGTH}, seed 0)", axis, LOSS_AXIS,
                 curves, note=f"+∞ (not drawn): {infinite}")


def evaluate_checkdp(progress: Callable[[], None]) -> ClaimResult:
    """All three parts of the module docstring; confirmed when every value is as stated."""
    sums_hold, sum_points, sum_curves, sums_decided = _families(SUM_SERIES, progress)
    values_hold, value_points, value_curves, values_decided = _families(VALUE_SERIES, progress)
    search_holds, search_points, rows, search_decided, by_closed_form = _searched(progress)
    decided, certified = certified_verdict(
        all_of((sums_decided, values_decided, search_decided)),
        sums_hold and values_hold and search_holds)
    finite = [f"{label} {fmt(loss, 6)}" for _, label, loss, _, _ in rows if not mpmath.isinf(loss)]
    detail = (f"BadPartialSum's ln ratio is 2ε and PartialSum's ε exactly, BadSmartSum's +∞ "
              f"(an exact zero) and SmartSum's 2ε, BadGapSVT's tε/4 and BadNoisyMax's tε/2 "
              f"(GapSVT and NoisyMax within ε), for t = {SIZES[0]} … {SIZES[-1]}; the search "
              f"finds a violation for all {len(rows)} bad variants ({'; '.join(finite)}; the "
              f"rest +∞), and every correct twin stays within its claim on the same inputs"
              + ("; certified: the noisy sums' ln ratios equal their values exactly (the "
                 "exact rational ln ratio of their Laplace densities, inside the enclosure), "
                 "every other family's enclosure contains its exact value (at most 1e-30 wide) "
                 "or lies within the claim, every witness's enclosure lies beyond the claimed "
                 "ε, and every twin's enclosure on the same inputs lies within its claim"
                 + (f" — except {', '.join(by_closed_form)}, whose ln ratio equals its claim "
                    f"exactly (the same exact rational)" if by_closed_form else "")
                 if certified else ""))
    return ClaimResult(decided, detail,
                       tuple(sum_points + value_points + search_points),
                       FigureSpec("CheckDP's incorrect variants (Wang et al. CCS 2020, "
                                  "appendix D)", (_sum_panel(sum_curves),
                                                  _value_panel(value_curves),
                                                  _search_panel(rows))), certified=certified)


register_claim(Claim(
    "checkdp-bad", f"{CHECKDP}, appendix D",
    "BadPartialSum is 2ε-DP, not ε-DP; BadSmartSum has an output with probability 1 vs 0; "
    "BadGapSVT's and BadNoisyMax's ln ratios grow like tε/4 and tε/2; BadSVT1–3 violate ε-DP; "
    "the correct twins satisfy their claims",
    "bad_partial_sum / partial_sum: D = 0*t,0; D' = 0*t,1; a = 0 — bad_smart_sum / smart_sum "
    "(M=2): D = 0,0*t; D' = 1,0*t; a = 0,0*t — bad_gap_svt / gap_svt: D = 0*t,0; D' = 1*t,0; "
    "a = F*t,0 — noisy_max_laplace_value: D = 0*t; D' = 1*t; a = -1 (noisy_max_laplace: a = 0) "
    "— plus exactdp search witnesses (length ≤ 5)",
    evaluate_checkdp))
