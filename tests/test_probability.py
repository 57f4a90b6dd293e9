"""Exact probabilities against independent reference values (each with its source)."""

import importlib

import mpmath
import pytest

import exactdp
from exactdp.errors import InputError, PrecisionError

from .reference import (gptt_family_probability, integrate_explicit, lap_cdf, lap_pdf, lap_sf,
                        svt4_first_tight_log_ratio)


def close(a, b, digits):
    """|a − b| ≤ 10^-digits · |b| (at high precision)."""
    with mpmath.workdps(digits + 20):
        a, b = mpmath.mpf(a), mpmath.mpf(b)
        return abs(a - b) <= mpmath.mpf(10) ** (-digits) * abs(b)


@pytest.mark.parametrize("eps", ["0.5", "1", "2"])
def test_svt5_simple_example(eps):
    # Lyu, Su & Li, PVLDB 2017 (arXiv:1603.01699), §3.2 (Thm 3.5): Pr[svt5((0,1)) = (⊥,⊤)] = ½(1 −
    # e^{−ε/2}); D' side is 0.
    mech = exactdp.mechanism("svt5", eps=eps)
    p = exactdp.probability(mech, [0, 1], "F,T")
    with mpmath.workdps(60):
        expected = (1 - mpmath.exp(-mpmath.mpf(eps) / 2)) / 2
    assert close(p.value, expected, 30)
    zero = exactdp.probability(mech, [1, 0], "F,T")
    assert zero.is_zero and zero.value == 0 and zero.log_value == mpmath.mpf("-inf")
    assert zero.error == 0 and zero.method == "exact zero"


def test_gptt_without_query_noise():
    # Chen & Machanavajjhala 2015 (arXiv:1508.07306), proof of Thm 4.7: Pr_D = Pr[0 < ρ ≤ 1] with
    # ρ ~ Lap(1/ε1) = ½(1 − e^{−ε1}); Pr_D' = 0 exactly, so the loss is +∞.
    mech = exactdp.mechanism("gptt", eps1=0.5, eps2="inf")
    loss = exactdp.privacy_loss(mech, [0, 1], [1, 0], "F,T")
    with mpmath.workdps(60):
        expected = (1 - mpmath.exp(-mpmath.mpf(1) / 2)) / 2
    assert close(loss.p1.value, expected, 30)
    assert loss.p2.is_zero and loss.log_ratio == mpmath.inf
    reverse = exactdp.privacy_loss(mech, [1, 0], [0, 1], "F,T")
    assert reverse.log_ratio == -mpmath.inf


@pytest.mark.parametrize("m", [1, 3, 10, 1000])
def test_svt3_appendix_closed_form(m):
    # Lyu, Su & Li, PVLDB 2017 (arXiv:1603.01699), Appendix 9.1: with c = 1, ε = 1 (b_ρ = b = 2), q
    # = (q^m, 0) and
    # output (⊥^m, 0.0) the density is p_b(0)·2^{−m−1}e^{−mq/b}/(1 + m·b_ρ/b) (the appendix's
    # per-side factor times the density 1/(2b) of the released 0); the ratio is e^{mε/2}.
    mech = exactdp.mechanism("svt3", eps=1, c=1)
    with mpmath.workdps(60):
        b = b_rho = mpmath.mpf(2)

        def side(q):
            return (1 / (2 * b)) * 2 ** (-m - 1) * mpmath.exp(-m * q / b) / (1 + m * b_rho / b)

        p0, p1 = side(0), side(1)
    loss = exactdp.privacy_loss(mech, f"0*{m},0", f"1*{m},0", f"F*{m},0")
    assert loss.p1.is_density
    assert close(loss.p1.value, p0, 30) and close(loss.p2.value, p1, 30)
    assert close(loss.log_ratio, mpmath.mpf(m) / 2, 29)


def test_svt4_tightness_first_value():
    # Lyu, Su & Li, PVLDB 2017 (arXiv:1603.01699), Alg. 4 with c = 1, ε = 1: q(D) = (0, 1),
    # q(D') = (1, 0), a = (⊥, ⊤); reference: the hand-integrated closed form in tests/reference.py
    # (ln ratio = 1.03256773569…, at 50 digits).  Tolerance: the engine's own error bounds —
    # the relative errors of P1 and P2 bound the absolute error of ln(P1/P2) to first order — plus
    # 10^-45 for the rounding of the 50-digit reference.
    loss = exactdp.privacy_loss(exactdp.mechanism("svt4", eps=1, c=1), [0, 1], [1, 0], "F,T")
    with mpmath.workdps(50):
        bound = loss.p1.relative_error + loss.p2.relative_error + mpmath.mpf(10) ** -45
        assert abs(loss.log_ratio - svt4_first_tight_log_ratio()) <= bound
        assert bound < mpmath.mpf(10) ** -29


@pytest.mark.parametrize("t", [100, 10_000])
def test_gptt_family_against_brute_force_integration(t):
    # Reference: explicit integrand of Chen & Machanavajjhala 2015 (arXiv:1508.07306), Thm 4.7,
    # integrated by Gauss–Legendre on 120 uniform
    # pieces at 50 digits (tests/reference.py), independent of the engine's peak finding.
    mech = exactdp.mechanism("gptt", eps1=0.5, eps2=0.5)
    p = exactdp.probability(mech, f"0*{t},1*{t}", f"F*{t},T*{t}")
    expected = gptt_family_probability(t, 0.5, 0.5)
    assert close(p.log_value, expected, 30)
    assert p.relative_error < 1e-30


def test_plain_quadrature_fails_where_the_engine_does_not():
    # Plain mpmath.quad over the kinks at 30 digits loses digits on the t = 100 GPTT case (a narrow
    # peak far from the kinks);
    # the engine agrees with the brute-force reference to 30 digits (test above).
    t = 100
    with mpmath.workdps(30):
        def integrand(z):
            return lap_pdf(z, 2) * lap_cdf(z, 2) ** t * lap_sf(z - 1, 2) ** t
        plain = mpmath.log(mpmath.quad(integrand, [-mpmath.inf, 0, 1, mpmath.inf]))
    exact = gptt_family_probability(t, 0.5, 0.5)
    assert not close(plain, exact, 7)  # wrong before the 7th significant digit of the log
    p = exactdp.probability(exactdp.mechanism("gptt", eps1=0.5, eps2=0.5), "0*100,1*100",
                            "F*100,T*100", method="quad")
    assert close(p.log_value, exact, 30)


def test_threshold_redrawn_after_each_top():
    # Lyu, Su & Li, PVLDB 2017 (arXiv:1603.01699), Alg. 2: a fresh ρ after each ⊤, so Pr[(⊥,⊤,⊤)] is
    # the product of
    # ∫p_{b_ρ}(z)F(z−q1)S(z−q2)dz and ∫p_{b_ρ}(z)S(z−q3)dz, with b_ρ = 2cΔ/ε, b_ν = 4cΔ/ε.
    mech = exactdp.mechanism("svt2", eps=1, c=2)
    q = [0.5, -1.0, 1.5]  # exact in binary, so the reference sees the same numbers
    b_rho, b_nu = 4, 8
    with mpmath.workdps(50):
        first = integrate_explicit(lambda z: lap_pdf(z, b_rho) * lap_cdf(z - q[0], b_nu)
                                   * lap_sf(z - q[1], b_nu), [0] + q[:2], dps=50)
        second = integrate_explicit(lambda z: lap_pdf(z, b_rho) * lap_sf(z - q[2], b_nu),
                                    [0, q[2]], dps=50)
        expected = first * second
    p = exactdp.probability(mech, q, "F,T,T")
    assert close(p.value, expected, 30)


def test_fresh_value_release_density():
    # Lyu, Su & Li, PVLDB 2017 (arXiv:1603.01699), Alg. 7 with ε3 > 0: the ⊤ factor S(z − q) times
    # p_{b3}(v − q), b3 = cΔ/ε3.
    mech = exactdp.mechanism("svt7", eps1=0.5, eps2=0.5, eps3=1, c=1)
    q, v = 0.25, 1.5
    b_rho, b_nu, b3 = 2, 4, 1
    with mpmath.workdps(50):
        expected = integrate_explicit(lambda z: lap_pdf(z, b_rho) * lap_cdf(z - 1, b_nu)
                                      * lap_sf(z - q, b_nu), [0, 1, q], dps=50) * lap_pdf(v - q, b3)
    p = exactdp.probability(mech, [1, q], ["F", v])
    assert p.is_density and close(p.value, expected, 30)


def test_cutoff_shapes():
    mech = exactdp.mechanism("svt1", c=1)
    short = exactdp.probability(mech, [0, 0, 0], "F,T")  # stops right after the c-th ⊤
    assert short.value > 0
    with pytest.raises(InputError, match="does not end with the c-th"):
        exactdp.probability(mech, [0, 0, 0], "F,F")
    with pytest.raises(InputError, match="got 2 ⊤ entries"):
        exactdp.probability(mech, [0, 0, 0], "T,T")
    with pytest.raises(InputError, match="releases a number"):
        exactdp.probability(exactdp.mechanism("svt3"), [0], "T")
    with pytest.raises(InputError, match="outputs only T/F"):
        exactdp.probability(mech, [0], "0.5")
    with pytest.raises(InputError, match="exceeds the number of queries"):
        exactdp.probability(mech, [0], "F,F")


def test_closed_form_refuses_huge_expansions():
    mech = exactdp.mechanism("gptt")
    with pytest.raises(exactdp.MethodUnavailableError, match="multiplications"):
        exactdp.probability(mech, "0*10000,1*10000", "F*10000,T*10000", method="closed")


def test_disagreeing_methods_raise(monkeypatch):
    # The estimate's policy: if the two methods disagree beyond 10^-dps, no value is returned.
    module = importlib.import_module("exactdp.exact.probability")

    real = module.integrate_closed_form

    def perturbed(integral, dps):
        log_scale, scaled, error = real(integral, dps)
        return log_scale, scaled * (1 + mpmath.mpf(10) ** (-12)), error

    monkeypatch.setattr(module, "integrate_closed_form", perturbed)
    with pytest.raises(PrecisionError, match="could not reach 30 significant digits"):
        exactdp.probability(exactdp.mechanism("svt1"), [0, 1], "F,T", method="estimate")
    assert exactdp.probability(exactdp.mechanism("svt1"), [0, 1], "F,T", dps=10,
                               method="estimate").value > 0


@pytest.mark.parametrize("dps", [0, -1, 1001, 2.5, True])
def test_bad_dps(dps):
    with pytest.raises(InputError, match="dps must be an integer"):
        exactdp.probability(exactdp.mechanism("svt1"), [0], "F", dps=dps)


def test_bad_method():
    with pytest.raises(InputError, match="method must be one of"):
        exactdp.probability(exactdp.mechanism("svt1"), [0], "F", method="simpson")


def test_tiny_probabilities_do_not_underflow():
    # t = 10^4 gives ~1e-4000 (below the float range): the value is an mpf, the log is finite.
    t = 10_000
    p = exactdp.probability(exactdp.mechanism("gptt"), f"1*{t},0*{t}", f"F*{t},T*{t}")
    assert 0 < p.value < mpmath.mpf("1e-4000")
    assert mpmath.isfinite(p.log_value)


def test_gap_release_density():
    # GapSVT (Wang, Ding, Kifer & Zhang, CCS 2020 (arXiv:2008.07485), appendix D): a released gap g
    # at a ⊤ contributes p_{b_ν}(g + T + z − q);
    # here b_ρ = 2Δ/ε = 2, b_ν = 4NΔ/ε = 4 (CheckDP's GapSVT scales), output (⊥, g = 0.7).
    mech = exactdp.mechanism("gap_svt", eps=1, N=1)
    with mpmath.workdps(50):
        half, q2, gap = mpmath.mpf("0.5"), mpmath.mpf("-0.3"), mpmath.mpf("0.7")
        expected = integrate_explicit(lambda z: lap_pdf(z, 2) * lap_cdf(z - half, 4)
                                      * lap_pdf(gap + z - q2, 4), [0, half, q2 - gap], dps=50)
    p = exactdp.probability(mech, ["0.5", "-0.3"], ["F", "0.7"])
    assert p.is_density and close(p.value, expected, 30)
    negative = exactdp.probability(mech, ["0.5", "-0.3"], ["F", "-0.1"])
    assert negative.is_zero  # q + ν ≥ T + ρ: a negative gap never occurs


@pytest.mark.parametrize("m, n_cutoff", [(1, 1), (5, 1), (8, 2)])
def test_bad_gap_svt_ratio(m, n_cutoff):
    # BadGapSVT (Wang, Ding, Kifer & Zhang, CCS 2020 (arXiv:2008.07485), appendix D): q(D) = (0^m,
    # 0), q(D') = (1^m, 0), output (⊥^m, 0):
    # the released value 0 forces z ≤ 0, where each ⊥ factor is ½e^{(z−q)/b_ν}, b_ν = 4NΔ/ε, so
    # the ratio is e^{m/b_ν} = e^{mε/(4N)} exactly.
    mech = exactdp.mechanism("bad_gap_svt", eps=1, N=n_cutoff)
    loss = exactdp.privacy_loss(mech, f"0*{m},0", f"1*{m},0", f"F*{m},0")
    assert close(loss.log_ratio, mpmath.mpf(m) / (4 * n_cutoff), 29)


def test_quadrature_up_to_a_constraint_bound():
    # A released value v bounds the threshold noise: z ≤ v − T.  With no other factor the
    # integral is the Laplace CDF F_{b_ρ}(v) = 1 − ½e^{−v/b_ρ} (Laplace law), times p_{b_ν}(v − q).
    mech = exactdp.mechanism("statdp.iSVT4", eps=2, N=1)  # b_ρ = 1, b_ν = 1
    p = exactdp.probability(mech, [0], ["1.1"], method="quad")
    with mpmath.workdps(50):
        v = mpmath.mpf("1.1")
        expected = (1 - mpmath.exp(-v) / 2) * mpmath.exp(-v) / 2
    assert close(p.value, expected, 30)
