"""The sympy derivations of ``exactdp.claims.symbolic`` against the papers' formulas."""

import mpmath
import pytest
import sympy as sp

from exactdp.claims import symbolic
from exactdp.claims.symbolic import EPS, EPS1, M, C, Z

from .reference import lap_cdf as cdf, lap_sf as sf


def same(a, b) -> bool:
    return sp.simplify(a - b) == 0


def test_no_noise_probability_is_lyu_simple_example():
    # Lyu et al. §3.2 (Thm 3.5): Pr[Alg5(D) = (⊥, ⊤)] = Pr[0 < ρ ≤ 1] = ½(1 − e^{−ε/2}).
    assert same(symbolic.no_noise_probability((0,), (1,), 2 / EPS), (1 - sp.exp(-EPS / 2)) / 2)
    # Chen & Machanavajjhala, proof of Thm 4.7: with ρ ~ Lap(1/ε1) the same event has
    # probability ½(1 − e^{−ε1}).
    assert same(symbolic.no_noise_probability((0,), (1,), 1 / EPS1), (1 - sp.exp(-EPS1)) / 2)
    # ... and on D' = (1, 0) it needs ρ > 1 and ρ ≤ 0: an empty set, probability exactly 0.
    assert symbolic.no_noise_probability((1,), (0,), 2 / EPS) == 0


def test_svt3_density_is_the_spec_closed_form():
    # Lyu, Su & Li, PVLDB 2017 (arXiv:1603.01699), Appendix 9.1, Eq. 13: 2^{−m−1} e^{−mq/b} / (1 + m
    # b_ρ/b) per
    # side, times the density p_b(0 − q_L) of the released value.
    q, q_last, b_rho, b = symbolic.Q, symbolic.Q_LAST, symbolic.B_RHO, symbolic.B_NU
    expected = (2 ** (-M - 1) * sp.exp(-M * q / b) / (1 + M * b_rho / b)
                * sp.exp(-sp.Abs(q_last) / b) / (2 * b))
    assert same(symbolic.svt3_density(q, q_last, b_rho, b), expected)


def test_svt3_log_ratios_are_lyu_appendix_9_1():
    # Lyu et al. Appendix 9.1: ratio e^{mε/2}; e^{(m−1)ε/2} (derived here from Eq. 13) when the last
    # query
    # moves from 1 (on D) to 0 (on D').
    assert same(symbolic.svt3_log_ratio(0, 0), M * EPS / 2)
    assert same(symbolic.svt3_log_ratio(1, 0), (M - 1) * EPS / 2)


def test_pair_ratio_infimum_is_lyu_appendix_9_2():
    # Lyu et al. Appendix 9.2: the integrand ratio is ≥ e^{ε/2} per (⊥, ⊤) pair (b = 2/ε).
    assert same(symbolic.pair_ratio_infimum(2 / EPS), sp.exp(EPS / 2))


@pytest.mark.parametrize("eps", [0.5, 1, 3])
def test_pair_ratio_pieces_match_the_written_out_ratio(eps):
    # κ(z) = F(z)S(z−1)/(F(z−1)S(z)) computed from the Laplace CDF written out in the test; every
    # piece divided by e^{ε/2} is ≥ 1 (Lyu et al. Appendix 9.2).
    b = mpmath.mpf(2) / eps
    functions = [symbolic.function(expr, Z, epsilon=eps)
                 for _, expr in symbolic.pair_ratio_pieces(2 / EPS)]
    for k in range(-80, 120):
        z = mpmath.mpf(k) / 10
        piece = functions[0 if z < 0 else 1 if z < 1 else 2](z)
        direct = cdf(z, b) * sf(z - 1, b) / (cdf(z - 1, b) * sf(z, b)) * mpmath.exp(-1 / b)
        assert piece == pytest.approx(direct, rel=1e-12)
        assert piece >= 1


def test_shift_limits_are_the_papers_bounds():
    # Lyu, Su & Li, PVLDB 2017 (arXiv:1603.01699), §3.2: Alg. 4 is exactly (1+6c)ε/4-DP.
    assert same(symbolic.shift_limit(4 / EPS, 4 / (3 * EPS), C), (1 + 6 * C) * EPS / 4)
    # Lyu et al. Lemma 1: all-⊥ outputs of Alg. 1 (b_ρ = 2/ε, b_ν = 4c/ε) are bounded by ε/2.
    assert same(symbolic.shift_limit(2 / EPS, 4 * C / EPS, 0), EPS / 2)
    # Lyu et al. Thm 3.3: with c ⊤'s the bound is ε.
    assert same(symbolic.shift_limit(2 / EPS, 4 * C / EPS, C), EPS)


@pytest.mark.parametrize("eps2", [0.25, 0.5, 1])
def test_copy_growth_rate_is_the_peak_ratio(eps2):
    # Laplace's method: (1/t) ln ∫ p A^t / ∫ p B^t → ln(max A / max B), with A(z) = F(z)S(z−1),
    # B(z) = F(z−1)S(z) both maximal at z = ½; maxima located here on a grid, not assumed.
    b = 1 / mpmath.mpf(eps2)
    grid = [mpmath.mpf(k) / 100 for k in range(-300, 400)]
    best_a = max(cdf(z, b) * sf(z - 1, b) for z in grid)
    best_b = max(cdf(z - 1, b) * sf(z, b) for z in grid)
    expected = mpmath.log(best_a / best_b)
    got = symbolic.numeric(symbolic.copy_growth_rate(1 / symbolic.EPS2), 20, epsilon_2=eps2)
    assert got == pytest.approx(expected, rel=1e-12)
