"""``checkdp-bad`` (the bad variants of Wang, Ding, Kifer & Zhang, CCS 2020 (arXiv:2008.07485),
appendix D) against values worked out by
hand from CheckDP's code."""

import mpmath

import exactdp
from exactdp.claims import CONFIRMED

from .claims_cache import result, series


def test_noisy_sum_families():
    # PartialSum on D = 0^{t+1}, D' = (0^t, 1), a = 0: densities (ε/2)·1 and (ε/2)e^{−ε}, ratio
    # e^ε; with Lap(1/(2ε)) the ratio is e^{2ε} (CheckDP appendix D.3).
    for label, expected in (("BadPartialSum", "2.0"), ("PartialSum", "1.0"),
                            ("SmartSum", "2.0")):
        for point in series("checkdp-bad", label).values():
            assert point["log_ratio"] == expected
    # BadSmartSum: the block end releases q0 + q1 = 0 under D and 1 under D' exactly
    for size, point in series("checkdp-bad", "BadSmartSum").items():
        assert (point["p2"], point["log_ratio"]) == ("0", "inf")
        # the density of the t + 1 − ⌊(t+1)/2⌋ noisy coordinates at 0 is (1/2)^{that many}
        noisy = size + 1 - (size + 1) // 2
        assert mpmath.mpf(point["p1"]) == mpmath.mpf(2) ** -noisy


def test_released_value_families():
    # BadGapSVT (N = 1, b_ν = 4/ε), a = (⊥^t, 0): with z ≤ 0 every ⊥ factor is ½e^{(z − q)/b_ν},
    # so p1/p2 = e^{t/b_ν} = e^{tε/4} (worked out here).  BadNoisyMax (b = 2/ε), a = −1 below
    # every answer: f(v) = t·2^{−t}·b^{−1}·e^{Σ(v − q_j)/b}, so p1/p2 = e^{t/b} = e^{tε/2}.
    for label, per_query in (("BadGapSVT", mpmath.mpf(1) / 4), ("BadNoisyMax", mpmath.mpf(1) / 2)):
        for size, point in series("checkdp-bad", label).items():
            assert abs(mpmath.mpf(point["log_ratio"]) - size * per_query) < 1e-25
    # BadNoisyMax's density under D = 0^t at v = −1, by the formula above with b = 2
    for size, point in series("checkdp-bad", "BadNoisyMax").items():
        expected = size * mpmath.mpf(2) ** -size / 2 * mpmath.exp(-mpmath.mpf(size) / 2)
        assert abs(mpmath.mpf(point["p1"]) / expected - 1) < 1e-25
    # the twins stay within ε; the index of a noisy max does not move when every query moves by 1
    for point in series("checkdp-bad", "GapSVT").values():
        assert 0 < mpmath.mpf(point["log_ratio"]) <= 1
    assert {point["log_ratio"] for point in series("checkdp-bad", "NoisyMax").values()} == {"0"}


def test_search_witnesses_recheck_and_twins_stay_within_their_claims():
    searched = [p for p in result("checkdp-bad").points if p["series"].startswith("search:")]
    assert len(searched) == 7
    for point in searched:
        name = point["series"].split("(")[1].rstrip(")")
        params = {"M": 2} if "smart" in name else {}
        loss = exactdp.privacy_loss(exactdp.mechanism(name, **params), point["d1"], point["d2"],
                                    point["output"])
        assert exactdp.format_value(loss.log_ratio, 30) == point["log_ratio"]
        assert point["verdict"] == "violation" and loss.log_ratio > int(point["claimed"])
        assert abs(mpmath.mpf(point["twin_log_ratio"])) <= int(point["claimed"]) + 1e-25
    assert result("checkdp-bad").verdict == CONFIRMED


def test_noisy_sum_ratio_is_an_exact_rational_from_the_densities():
    # Independent: the Laplace densities p_b(x) = e^{−|x|/b}/(2b) of the residuals, written out
    # here at 60 digits.  PartialSum (b = 1/ε) on D = (1), D' = (2), a = 1: residuals 0 and −1,
    # ln ratio 1/b = ε; SmartSum (M = 2, b = 1/ε per coordinate) on D = (1, 1), D' = (2, 1),
    # a = (1, 2): residuals (0, 0) and (−1, −1), ln ratio 2ε — both equal to their claim, which
    # no enclosure can place on one side, so the exact rational decides "within the claim".
    from fractions import Fraction

    from exactdp.claims.checkdp import twin_within_claim
    from exactdp.exact.form.sums import log_density_ratio

    def lap(x, b):
        return mpmath.exp(-abs(x) / b) / (2 * b)

    with mpmath.workdps(60):
        for name, params, d1, d2, output, residuals1, residuals2 in (
                ("partial_sum", {}, "1", "2", "1", (0,), (-1,)),
                ("smart_sum", {"M": 2}, "1,1", "2,1", "1,2", (0, 0), (-1, -1))):
            mech = exactdp.mechanism(name, eps=1, **params)
            expected = (mpmath.log(mpmath.fprod(lap(r, 1) for r in residuals1))
                        - mpmath.log(mpmath.fprod(lap(r, 1) for r in residuals2)))
            exact_ratio = log_density_ratio(mech, d1, d2, output)
            assert isinstance(exact_ratio, Fraction)
            assert abs(mpmath.mpf(exact_ratio.numerator) / exact_ratio.denominator
                       - expected) < mpmath.mpf(10) ** -55
            enclosure = exactdp.privacy_loss(mech, d1, d2, output, method="certified")
            assert twin_within_claim(mech, d1, d2, output, enclosure) == (True, True)
    # a miss of an exactly released coordinate is an exact zero: no finite ratio
    assert log_density_ratio(exactdp.mechanism("bad_smart_sum", eps=1, M=2), "0,0", "1,0",
                             "0,0") is None
    assert result("checkdp-bad").certified
