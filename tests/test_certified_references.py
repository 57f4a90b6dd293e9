"""The default (certified) enclosures contain brute-force references over the catalogue.

The references do not use exactdp's engine: each output probability is written out here as a
one-dimensional integral of the laws' own formulas (Laplace from ``tests/reference.py``; the
exponential and Gumbel laws below) and integrated by ``mpmath.quad`` (tanh-sinh) at 50 digits,
split at every kink.

* Sparse Vector family (⊤/⊥ outputs, one threshold draw): Lyu, Su & Li, PVLDB 2017
  (arXiv:1603.01699), Eq. 5 — ``∫ p_ρ(z) Π_⊥ F_ν(T + z − q_i) Π_⊤ S_ν(T + z − q_i) dz``, with ⊤
  when ``q_i + ν_i ≥ T + ρ`` (an indicator where there is no query noise);
* report noisy max: ``Pr[argmax = j] = ∫ p(x − q_j) Π_{i≠j} F(x − q_i) dx`` (Dwork & Roth 2014,
  §3.3).

The quadrature itself is good to about 45 digits here (tanh-sinh on analytic pieces at 50
digits); the enclosures (30 digits) must contain the reference up to that accuracy.
"""

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp
from exactdp.mechanisms import Release, ThresholdMechanism, catalogue
from exactdp.mechanisms.noisy_max import NoisyMaxMechanism
from exactdp.noise import Laplace

from .conftest import assert_encloses
from .reference import integrate_explicit, lap_cdf, lap_pdf, lap_sf

DPS = 30
REFERENCE_DPS = 50
#: the reference quadrature's own accuracy, relative (see the module docstring)
QUADRATURE_ACCURACY = mpmath.mpf(10) ** -45


def _mpf(number) -> mpmath.mpf:
    number = Fraction(number)
    return mpmath.mpf(number.numerator) / number.denominator


def _svt_names():
    names = []
    for item in catalogue():
        mech = item.make()
        if (isinstance(mech, ThresholdMechanism) and mech.release is Release.FLAG
                and not mech.redraw_threshold and isinstance(mech.threshold_noise, Laplace)):
            names.append(item.name)
    return names


def _svt_reference(mech, queries, output) -> mpmath.mpf:
    with mpmath.workdps(REFERENCE_DPS):
        b_rho, b_nu = _mpf(mech.threshold_scale), _mpf(mech.query_scale)
        shifts = [_mpf(q) - _mpf(mech.threshold) for q in queries[:len(output)]]

        def below(x):  # Pr[ν < x]
            return lap_cdf(x, b_nu) if b_nu else mpmath.mpf(x > 0)

        def above(x):  # Pr[ν ≥ x]
            return lap_sf(x, b_nu) if b_nu else mpmath.mpf(x <= 0)

        def integrand(z):
            value = lap_pdf(z, b_rho)
            for shift, top in zip(shifts, output):
                value *= above(z - shift) if top else below(z - shift)
            return value
        width = 40 * max(b_rho, b_nu)
        return integrate_explicit(integrand, [0, *shifts, -width, width], dps=REFERENCE_DPS)


@pytest.mark.parametrize("name", _svt_names())
@settings(max_examples=5, deadline=None)
@given(data=st.data())
def test_sparse_vector_enclosures_contain_the_brute_force_integral(name, data):
    item = exactdp.mechanisms.entry(name)
    params = {}
    for param in item.params:
        if param.kind == "budget" and not param.allow_zero:
            params[param.name] = data.draw(st.sampled_from([Fraction(1, 2), 1, 2]))
        elif param.name == "T":
            params[param.name] = data.draw(st.sampled_from([Fraction(-1, 2), 0, Fraction(3, 4)]))
    mech = item.make(**params)
    queries = data.draw(st.lists(st.integers(-8, 8).map(lambda k: Fraction(k, 4)),
                                 min_size=1, max_size=4))
    flags = data.draw(st.lists(st.booleans(), min_size=len(queries), max_size=len(queries)))
    cutoff = mech.cutoff or len(flags)
    tops = [i for i, flag in enumerate(flags) if flag]
    output = flags[:tops[cutoff - 1] + 1] if len(tops) >= cutoff else flags
    result = exactdp.probability(mech, queries, ",".join("T" if f else "F" for f in output),
                                 dps=DPS)
    reference = _svt_reference(mech, queries, output)
    if result.is_zero:  # decided exactly (no query noise: contradicting constraints)
        assert reference == 0
        return
    assert result.method.startswith("certified")
    with mpmath.workdps(REFERENCE_DPS):
        assert_encloses(result, reference, DPS, slack=QUADRATURE_ACCURACY * reference)


def _exponential(b):
    return (lambda x: mpmath.exp(-x / b) / b if x >= 0 else mpmath.mpf(0),
            lambda x: -mpmath.expm1(-x / b) if x >= 0 else mpmath.mpf(0))


def _gumbel(b):
    return (lambda x: mpmath.exp(-(x / b + mpmath.exp(-x / b))) / b,
            lambda x: mpmath.exp(-mpmath.exp(-x / b)))


LAWS = {"noisy_max_laplace": lambda b: (lambda x: lap_pdf(x, b), lambda x: lap_cdf(x, b)),
        "noisy_max_exponential": _exponential, "noisy_max_gumbel": _gumbel}


@pytest.mark.parametrize("name", sorted(LAWS))
@settings(max_examples=5, deadline=None)
@given(queries=st.lists(st.integers(-8, 8).map(lambda k: Fraction(k, 4)), min_size=2,
                        max_size=4),
       eps=st.sampled_from([Fraction(1, 2), 1, 2]), data=st.data())
def test_noisy_max_enclosures_contain_the_brute_force_integral(name, queries, eps, data):
    mech = exactdp.mechanism(name, eps=eps)
    assert isinstance(mech, NoisyMaxMechanism)
    index = data.draw(st.integers(0, len(queries) - 1))
    result = exactdp.probability(mech, queries, str(index), dps=DPS)
    assert result.method.startswith("certified")
    with mpmath.workdps(REFERENCE_DPS):
        density, cdf = LAWS[name](2 / _mpf(eps))
        q = [_mpf(value) for value in queries]

        def integrand(x):
            return density(x - q[index]) * mpmath.fprod(
                cdf(x - value) for i, value in enumerate(q) if i != index)
        if name == "noisy_max_gumbel":
            # Below L = min(q) − 200 the integrand is at most the Gumbel CDF
            # exp(−e^{(q_index − L)/b}) ≤ exp(−e^{50}) (b ≤ 4), far below the margin; mpmath
            # cannot evaluate exp(−e^{−x/b}) as x → −∞ (the exponent overflows), so stop at L.
            reference = mpmath.quad(integrand, [min(q) - 200, *sorted(set(q)), max(q) + 200,
                                                mpmath.inf])
        else:
            reference = integrate_explicit(integrand, [*q, min(q) - 200, max(q) + 200],
                                           dps=REFERENCE_DPS)
        assert_encloses(result, reference, DPS, slack=QUADRATURE_ACCURACY * reference)
