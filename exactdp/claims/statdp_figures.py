"""Claim ``statdp-figures``: StatDP's p-value curves [1]_ (§5: Figure 3, histogram; Figure 4,
Sparse Vector; the noisy max experiments), recomputed with the tester and annotated with the exact
loss of each selected event (``docs/mathematics.md`` §9).

For every benchmark mechanism and claimed ε0 ∈ {0.2, 0.7, 1.5} (N = 1; T = 0.5 for SVT, 1 for
iSVT*), ``exactdp.sampling.tester.detect`` gives the p-value at each test ε and the exact loss
ε_E of the event it selected.  The paper reads its figures as: *at test ε = ε0 the tester finds a
violation exactly for the mechanisms whose true privacy exceeds ε0* (true privacy from the
catalogue, ``docs/mathematics.md`` §4.3–§6, and StatDP §5: histogram ε0, Lap(ε) histogram 1/ε0,
SVT ε0, iSVT3 (1+6N)ε0/4 = 7ε0/4, noisy max index ε0, noisy max value with n = 10 queries nε0/2,
the other iSVTs and the exponential noisy max value not private).  It is judged on the exact
numbers: the event selected at ε0 must have exact loss ε_E > ε0 exactly for those mechanisms,
decided on the certified enclosures of ε_E (``claims/certify.py``: above ε0, below it, or equal
to it within 10^−10, the tester's digits; an enclosure straddling ε0 leaves it undecided).  The
sampled verdicts (p < 0.05) are reported beside it; with the smaller run counts they can miss a
violation that exceeds ε0 by little.  The run counts are smaller than StatDP's (``SELECT_RUNS``,
``TEST_RUNS``) to keep ``exactdp reproduce`` to a few minutes.

Points: one per (mechanism, ε0, test ε) — ``size`` is 100 × test ε, ``log_ratio`` the exact ε_E,
``p1``/``p2`` the exact event probabilities — and one per curve (series ending "first p ≥ 0.05")
at the first test ε where the p-value reaches 0.05, next to its exact ε_E.

References
----------
.. [1] Z. Ding, Y. Wang, G. Wang, D. Zhang and D. Kifer, "Detecting Violations of Differential
   Privacy", ACM CCS 2018, doi:10.1145/3243734.3243818, arXiv:1805.10277: §5, Algorithms 9–15,
   Figures 3–4.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Callable

from ..exact.losses.privacy_loss import CertifiedPrivacyLoss, loss_from_probabilities
from ..mechanisms import mechanism
from ..sampling.tester import EXACT_DPS, TestResult, detect
from .certify import above, all_of, below, certified_verdict, equals
from .figure_spec import EXACT, STATEMENT, Curve, FigureSpec, Panel, horizontal
from .patterns import fmt
from .registry import Claim, ClaimResult, register_claim

SOURCE = ("Ding et al., CCS 2018 (StatDP, arXiv:1805.10277), §5: Figures 3–4 and the noisy max "
          "experiments")
#: The claimed budgets of the paper's figures.
EPS0 = (0.2, 0.7, 1.5)
#: Test budgets: 0.1 to 2.1 by 0.2, and the claimed ones.
TEST_EPS = tuple(sorted({round(0.1 + 0.2 * k, 1) for k in range(11)} | set(EPS0)))
SELECT_RUNS = 20_000
TEST_RUNS = 100_000
LEVEL = 0.05
#: (panel, catalogue name, parameters, true privacy as a function of ε0)
MECHANISMS = (
    ("Histogram (Fig. 3)", "statdp.histogram", {}, lambda e: e),
    ("Histogram (Fig. 3)", "statdp.histogram_eps", {}, lambda e: 1 / e),
    ("SVT, iSVT1, iSVT2 (Fig. 4)", "statdp.SVT", {"N": 1, "T": 0.5}, lambda e: e),
    ("SVT, iSVT1, iSVT2 (Fig. 4)", "statdp.iSVT1", {"T": 1}, lambda e: math.inf),
    ("SVT, iSVT1, iSVT2 (Fig. 4)", "statdp.iSVT2", {"T": 1}, lambda e: math.inf),
    ("iSVT3, iSVT4 (Fig. 4)", "statdp.iSVT3", {"N": 1, "T": 1}, lambda e: 7 * e / 4),
    ("iSVT3, iSVT4 (Fig. 4)", "statdp.iSVT4", {"N": 1, "T": 1}, lambda e: math.inf),
    ("Noisy max", "statdp.noisy_max_v1a", {}, lambda e: e),
    ("Noisy max", "statdp.noisy_max_v1b", {}, lambda e: 5 * e),
    ("Noisy max", "statdp.noisy_max_v2a", {}, lambda e: e),
    ("Noisy max", "statdp.noisy_max_v2b", {}, lambda e: math.inf),
)


def _number(value) -> str:
    return "n/a" if value is None else fmt(value, 6)


def curve_points(label: str, results: list[TestResult]) -> list[dict]:
    """The JSON records of one curve, then its "first p ≥ 0.05" record (if it rises)."""
    points = [{"series": label, "size": round(100 * r.test_eps), "log_ratio":
               _number(r.examined_event_eps), "p1": _number(r.exact.p1 and r.exact.p1.value),
               "p2": _number(r.exact.p2 and r.exact.p2.value), "p_value": f"{r.p_value:.3g}",
               "event": str(r.event)} for r in results]
    rise = first_rise(results)
    if rise is not None:
        points.append({**points[results.index(rise)], "series": f"{label}: first p ≥ {LEVEL}"})
    return points


def first_rise(results: list[TestResult]) -> TestResult | None:
    """The result at the smallest test ε whose p-value reaches ``LEVEL`` (None if none)."""
    return next((r for r in results if r.p_value >= LEVEL), None)


def _panel_curves(entries) -> tuple:
    """The p-value curves of one panel, each with a dashed marker at the exact ε_E of the event
    selected where it first reaches 0.05."""
    curves = []
    for color, (label, results) in enumerate(entries):
        curves.append(Curve(label, tuple(r.test_eps for r in results),
                            tuple(r.p_value for r in results), EXACT, color))
        rise = first_rise(results)
        if rise is not None and rise.examined_event_eps is not None \
                and math.isfinite(rise.examined_event_eps):
            x = rise.examined_event_eps
            curves.append(Curve(f"ε_E = {x:.3f}", (x, x), (0.0, 1.0), STATEMENT, color))
    curves.append(horizontal(f"p = {LEVEL}", LEVEL, TEST_EPS, -1))
    return tuple(curves)


def evaluate_statdp(progress: Callable[[], None]) -> ClaimResult:
    """Every curve of the figures, the verdicts at ε0 and the exact losses behind them."""
    panels: dict = {}
    points, mismatches, missed, undecided, decisions, violating = [], [], [], [], [], 0
    for panel, name, params, truth in MECHANISMS:
        for eps0 in EPS0:
            results = detect(mechanism(name, eps=eps0, **params), TEST_EPS, runs=TEST_RUNS,
                             select_runs=SELECT_RUNS, seed=0)
            progress()
            label = f"{name.removeprefix('statdp.')} ε0={eps0}"
            panels.setdefault(panel, []).append((label, results))
            points += curve_points(label, results)
            at_claim = next(r for r in results if r.test_eps == eps0)
            violates = truth(eps0) > eps0
            violating += violates
            shown = f"{label} (p = {at_claim.p_value:.3g}, exact ε_E = " \
                    f"{_number(at_claim.examined_event_eps)})"
            found = exceeds_claim(at_claim, Fraction(str(eps0)))
            decisions.append(None if found is None else found == violates)
            if found is None:
                undecided.append(shown)
            elif found != violates:
                mismatches.append(shown)
            if (at_claim.p_value < LEVEL) != violates:
                missed.append(shown)
    if mismatches:
        detail = "selected events contradicting the true privacy: " + "; ".join(mismatches)
    elif undecided:
        detail = "undecided by the certified enclosures: " + "; ".join(undecided)
    else:
        detail = (f"the exact loss of the event selected at ε0 exceeds ε0 exactly for the "
                  f"{violating} curves whose true privacy exceeds ε0 (certified enclosures)")
    detail += ("; every sampled verdict agrees" if not missed else
               "; sampled verdicts that disagree: " + "; ".join(missed))
    figure = FigureSpec("StatDP: p-value against test ε (dashed: exact ε_E of the event "
                        "selected where p first reaches 0.05)",
                        tuple(Panel(title, "test ε", "p-value", _panel_curves(entries),
                                    ylim=(-0.02, 1.02))
                              for title, entries in panels.items()))
    decided, certified = certified_verdict(all_of(decisions))
    return ClaimResult(decided, detail, tuple(points), figure, certified=certified)


def exceeds_claim(result: TestResult, eps0: Fraction) -> bool | None:
    """Whether the exact loss of the tested event, in the direction the p-value examines,
    exceeds ``eps0``, decided on the certified enclosure of ``ln P1 − ln P2``: true when it lies
    above ``eps0``, false when below or when it equals ``eps0`` (the enclosure contains it and
    is at most ``10^{−EXACT_DPS}`` wide: ``certify.equals``); ``None`` when the enclosure
    straddles ``eps0`` or the loss is not certified."""
    exact = result.exact
    if exact.p1 is None or (exact.p1.is_zero and exact.p2.is_zero):
        return None
    loss = loss_from_probabilities(exact.p1, exact.p2)
    if not isinstance(loss, CertifiedPrivacyLoss):
        return None
    sign = 1 if result.c1 >= result.c2 else -1
    found = above(loss, eps0) if sign > 0 else below(loss, -eps0)
    if found is None and equals(loss, sign * eps0, EXACT_DPS):
        return False
    return found


register_claim(Claim(
    "statdp-figures", SOURCE,
    "at test ε = ε0 the tester finds a violation (an event with exact loss above ε0) exactly for "
    "the mechanisms whose true privacy exceeds ε0",
    "histogram, histogram_eps, SVT (T=0.5), iSVT1–4 (T=1, N=1), noisy max v1a/v1b/v2a/v2b; "
    "ε0 ∈ {0.2, 0.7, 1.5}; StatDP's input patterns; size = 100 × test ε",
    evaluate_statdp, cost=180))
