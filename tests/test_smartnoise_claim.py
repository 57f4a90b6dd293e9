"""The claim ``smartnoise-gaussian-scale``: SmartNoise SQL's Gaussian scale for sensitivity > 1000,
``σ = Δ√(2 ln(1.25/δ))/ε``, is not (ε, δ)-DP at large ε.

The reference is Balle & Wang's exact profile of ``q + N(0, σ²)`` (ICML 2018, Theorem 8),
``δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)``, in mpmath at 60 digits with ``σ`` computed
there too: independent of the engine's profile, Arb and the claim's outward rounding.
"""

from fractions import Fraction

import mpmath

from exactdp.claims import get_claim


def balle_wang(eps: Fraction, delta: Fraction) -> mpmath.mpf:
    with mpmath.workdps(60):
        e = mpmath.mpf(eps.numerator) / eps.denominator
        sigma = mpmath.sqrt(2 * mpmath.log(mpmath.mpf(5) / 4 / (mpmath.mpf(delta.numerator)
                                                                  / delta.denominator))) / e
        return (mpmath.ncdf(1 / (2 * sigma) - e * sigma)
                - mpmath.exp(e) * mpmath.ncdf(-1 / (2 * sigma) - e * sigma))


def test_the_scale_fails_at_large_eps_from_a_certified_bracket():
    result = get_claim("smartnoise-gaussian-scale").evaluate(lambda: None)
    assert result.verdict == "confirmed" and result.certified
    crossings = [p for p in result.points if p["series"].endswith("first failing ε")]
    assert len(crossings) == 6
    for holds, fails in zip(crossings[::2], crossings[1::2]):
        assert holds["series"] == fails["series"]
        assert holds["exceeds"] is False and fails["exceeds"] is True
        assert 1 < Fraction(holds["eps"]) < Fraction(fails["eps"]) == \
            Fraction(holds["eps"]) + Fraction(1, 10 ** 5)
    for point in result.points:   # every record, the brackets' ends included
        delta = Fraction(1, 10 ** int(point["series"].split("1e-")[1].split(",")[0]))
        reference = balle_wang(Fraction(point["eps"]), delta)
        with mpmath.workdps(60):   # the printed ends parsed exactly enough to compare
            lower, upper = (mpmath.mpf(point[k]) for k in ("delta_lower", "delta_upper"))
            assert lower <= reference <= upper
            assert upper - lower <= reference * mpmath.mpf(10) ** -20
            assert point["exceeds"] == (reference > mpmath.mpf(delta.numerator)
                                        / delta.denominator)
