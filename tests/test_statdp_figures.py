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
    # noise, seed 000), so the p-value is tiny at test ε = 0.3 and not at 2.0.
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
    assert curves[1].x[0] == results[1].exact_event_eps


def test_grid_contains_the_claimed_budgets():
    assert set(figures.EPS0) <= set(figures.TEST_EPS)
    assert figures.TEST_EPS == tuple(sorted(figures.TEST_EPS))
