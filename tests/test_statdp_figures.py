"""The ``statdp-figures`` claim: its records and figure pieces on a small run (the full claim is
run by ``exactdp reproduce``; it takes minutes)."""

import math

import pytest

import exactdp
from exactdp.claims import claim_ids, get_claim
from exactdp.claims import statdp_figures as figures
from exactdp.sampling.tester import detect


def test_claim_is_registered_after_the_lyu_claims():
    assert "statdp-figures" in claim_ids()
    assert claim_ids().index("statdp-figures") > claim_ids().index("svt1-tight")
    assert get_claim("statdp-figures").source.startswith("Ding et al., CCS 2018")


def test_points_and_first_rise_on_the_histogram():
    # statdp.histogram at ε0 = 0.7: every event below both inputs has exact loss 0.7 (Lap(1/ε0)
    # noise; Ding et al., CCS 2018 (arXiv:1805.10277), Alg. 9 is ε0-DP), so the p-value is tiny
    # at test ε = 0.3 and not at 2.0.
    mech = exactdp.mechanism("statdp.histogram", eps=0.7)
    results = detect(mech, [0.3, 2.0], runs=20_000, select_runs=5_000, seed=1)
    points = figures.curve_points("histogram ε0=0.7", results)
    assert [p["size"] for p in points] == [30, 200, 200]
    assert points[-1]["series"] == "histogram ε0=0.7: first p ≥ 0.05"
    assert figures.first_rise(results) is results[1]
    assert float(points[0]["p_value"]) < 0.05 <= float(points[1]["p_value"])
    # log_ratio is the exact loss ln(P1/P2) of the selected event, in the tested direction
    for point, result in zip(points, results):
        p1, p2 = float(point["p1"]), float(point["p2"])
        assert float(point["log_ratio"]) == pytest.approx(
            math.log(p1 / p2) if result.c1 >= result.c2 else math.log(p2 / p1), rel=1e-5)
        assert float(point["log_ratio"]) <= 0.7 + 1e-9  # the histogram is ε0-DP
    curves = figures._panel_curves([("histogram ε0=0.7", results)])
    assert [c.kind for c in curves] == ["exact", "statement", "statement"]
    assert curves[1].x[0] == results[1].examined_event_eps


def test_grid_is_the_papers():
    # Ding, Wang, Wang, Zhang & Kifer, "Detecting Violations of Differential Privacy", CCS 2018
    # (arXiv:1805.10277), Figures 3–5: claimed ε0 ∈ {0.2, 0.7, 1.5}, test ε on a grid over
    # [0, 2.1]; written out here (0.1 to 2.1 by 0.2, plus the claimed budgets) rather than
    # recomputed the way the module builds it.
    assert figures.EPS0 == (0.2, 0.7, 1.5)
    assert figures.TEST_EPS == (0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.1, 1.3, 1.5, 1.7, 1.9, 2.1)
