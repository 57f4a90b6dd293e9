"""zCDP of a pair, ``ρ = sup_{α>1} D_α/α`` (``exactdp zcdp``, ``search --rho``), and the claim
``opendp-noisy-max-zcdp``.

References, each computed here independently of the engine:

* a Gaussian location shift has ``D_α = αΔ²/(2σ²)`` (Mironov, "Rényi Differential Privacy",
  IEEE CSF 2017, Prop. 7), so ``ρ = Δ²/(2σ²)``;
* a Laplace shift by ``ε`` scales: ``D_α`` in closed form (Mironov 2017, Prop. 6), maximised over
  ``α`` with mpmath (its supremum is the limit at ``α → 1⁺``, the Kullback–Leibler divergence
  ``e^{−ε} + ε − 1``, as Harrison & Manurangsi, "Exact zCDP Characterizations for Fundamental
  Differentially Private Mechanisms", FORC 2026, arXiv:2510.25746, prove for the ε-DP Laplace
  mechanism);
* report noisy max on two scores ``q0 ≥ q1`` at noise scale ``s``: with exponential noise
  (permute-and-flip) ``Pr[index 1] = ½e^{−(q0−q1)/s}`` (the difference of two exponential noises
  is Laplace), with Gumbel noise (the exponential mechanism) ``e^{q1/s}/(e^{q0/s} + e^{q1/s})``;
  ``D_α`` of the two-outcome distributions, maximised over ``α`` by mpmath's ``findroot`` of the
  derivative.
"""

import json
from fractions import Fraction

import mpmath
import pytest

import exactdp
from exactdp.claims import get_claim
from exactdp.cli import main
from exactdp.errors import InputError
from exactdp.exact.divergences.renyi import renyi_divergence
from exactdp.exact.divergences.zcdp import zcdp, zcdp_both_ways
from exactdp.renyi_search import search_zcdp
from tests.conftest import assert_encloses


def gaussian_release(prng, queries, sigma=2):
    return queries[0] + prng.normal(scale=sigma)


def laplace_release(prng, queries, b=1):
    return queries[0] + prng.laplace(scale=b)


@pytest.mark.parametrize("sigma, shift, rho", [(2, 3, Fraction(9, 8)), (3, 1, Fraction(1, 18))])
def test_gaussian_shift_is_delta_squared_over_two_sigma_squared(sigma, shift, rho):
    result = zcdp(exactdp.program(gaussian_release, sigma=sigma), [0], [shift],
                  allow_any_pair=True)
    assert_encloses(result.rho, rho, 30)
    assert result.alpha.value == mpmath.inf          # every order reaches it
    if rho.denominator & (rho.denominator - 1) == 0:  # a binary fraction: exact
        assert result.rho.lower == result.rho.upper == mpmath.mpf(rho.numerator) / rho.denominator


def _laplace_divergence(alpha, eps):
    """Mironov 2017, Prop. 6."""
    return mpmath.log(alpha / (2 * alpha - 1) * mpmath.exp((alpha - 1) * eps)
                      + (alpha - 1) / (2 * alpha - 1) * mpmath.exp(-alpha * eps)) / (alpha - 1)


@pytest.mark.parametrize("b", [1, 2])
def test_laplace_shift_against_mpmath_supremum(b):
    eps = mpmath.mpf(1) / b
    with mpmath.workdps(50):
        kl = mpmath.exp(-eps) + eps - 1
        # the supremum is the limit at α → 1⁺: every order of a fine grid stays below it
        grid = [1 + mpmath.mpf(2) ** (k / 4) / 1000 for k in range(60)]
        assert max(_laplace_divergence(a, eps) / a for a in grid) < kl
        limit = mpmath.limit(lambda a: _laplace_divergence(a, eps) / a, 1, direction=1)
        assert abs(limit - kl) < mpmath.mpf(10) ** -25
    result = zcdp(exactdp.program(laplace_release, b=b), [0], [1], dps=20)
    assert_encloses(result.rho, kl, 20)
    assert result.alpha.lower == 1                    # approached as α → 1⁺


def _two_outcomes(p1, p2):
    """``(D_α, ρ)`` of two two-outcome distributions ``(1 − p, p)``, by mpmath: ``D_α`` in
    closed form, ``ρ`` where the derivative of ``D_α/α`` vanishes."""
    def divergence(alpha):
        return mpmath.log((1 - p1) ** alpha * (1 - p2) ** (1 - alpha)
                          + p1 ** alpha * p2 ** (1 - alpha)) / (alpha - 1)

    def f(alpha):
        return divergence(alpha) / alpha

    peak = mpmath.findroot(lambda a: mpmath.diff(f, a), 1.45)
    return divergence, f(peak), peak


@pytest.mark.parametrize("name, index_one, d2_reference, rho_reference", [
    ("noisy_max_exponential", lambda: mpmath.exp(-2) / 2, "1.37691873960033610075", "0.72753"),
    ("noisy_max_gumbel", lambda: 1 / (1 + mpmath.exp(2)), "0.86756166096605437405", "0.44939")])
def test_opendp_pair_against_closed_forms(name, index_one, d2_reference, rho_reference):
    mech = exactdp.mechanism(name, eps=2)
    with mpmath.workdps(60):
        divergence, rho, peak = _two_outcomes(mpmath.mpf(1) / 2, index_one())
        assert mpmath.nstr(divergence(2), 21).startswith(d2_reference)
        assert mpmath.nstr(rho, 5) == rho_reference
        d2 = renyi_divergence(mech, [0, 0], [1, -1], [2])[0].divergence
        assert_encloses(d2, divergence(2), 30)
        result = zcdp(mech, [0, 0], [1, -1], dps=25)
        assert_encloses(result.rho, rho, 25)
        assert result.alpha.lower <= peak <= result.alpha.upper


def test_both_ways_agree_with_each_direction_alone():
    mech = exactdp.mechanism("noisy_max_exponential", eps=2)
    forward, backward = zcdp_both_ways(mech, [0, 0], [1, -1], dps=15)
    assert forward == zcdp(mech, [0, 0], [1, -1], dps=15)
    assert backward == zcdp(mech, [1, -1], [0, 0], dps=15)


def test_equal_distributions_give_rho_zero_within_an_absolute_width():
    # every score moved by the same amount: the index has the same distribution (ρ = 0), which
    # the balls of the two inputs' probabilities cannot prove; ρ is then in [0, D_∞]
    result = zcdp(exactdp.mechanism("noisy_max_laplace"), [0, 0], [1, 1])
    assert result.rho.lower == 0
    assert_encloses(result.rho, 0, 30, absolute=True)


def test_claimed_rho_must_be_positive():
    with pytest.raises(InputError, match="rho must be greater than 0, got rho=0"):
        search_zcdp(exactdp.mechanism("noisy_max_gumbel"), 0)


def test_search_finds_the_permute_and_flip_violation():
    result = search_zcdp(exactdp.mechanism("noisy_max_exponential", eps=2), "1/2",
                         max_length=2, max_evaluations=20, dps=5)
    assert result.verdict == "violation"
    assert result.witness.divergence.lower > 0.5
    record = result.record(5)
    assert record["recheck"].startswith("exactdp zcdp noisy_max_exponential")


def test_cli_json_keys(capsys):
    assert main(["zcdp", "noisy_max_exponential", "--param", "eps=2", "--d1=0,0", "--d2=1,-1",
                 "--dps", "10", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert list(record) == ["rho", "rho_lower", "rho_upper", "alpha"]
    assert float(record["rho_lower"]) <= float(record["rho"]) <= float(record["rho_upper"])
    assert record["rho"].startswith("0.72753")


@pytest.mark.parametrize("argv, message", [
    (["zcdp", "noisy_max_laplace_value", "--d1=0,0", "--d2=1,-1"], "alpha=inf only"),
    (["zcdp", "noisy_max_laplace", "--d1=0,0", "--d2=1,-1", "--dps", "0"], "dps=0"),
    (["zcdp", "nope", "--d1=0", "--d2=1"], "nope"),
    (["search", "noisy_max_gumbel", "--rho", "0"], "rho=0"),
    (["search", "noisy_max_gumbel", "--rho", "-1/2"], "rho=-0.5"),
    (["search", "noisy_max_gumbel", "--rho", "1", "--alpha", "2"], "--rho")])
def test_cli_bad_input_is_one_line_exit_2(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_opendp_claim_is_confirmed_and_certified():
    result = get_claim("opendp-noisy-max-zcdp").evaluate(lambda: None)
    assert result.verdict == "confirmed" and result.certified
    by_series = {point["series"]: point for point in result.points}
    assert float(by_series["permute-and-flip, Q → Q′"]["rho_lower"]) > 0.5
    assert all(float(by_series[f"exponential mechanism, {d}"]["rho_upper"]) <= 0.5
               for d in ("Q → Q′", "Q′ → Q"))
