"""Identities over the whole catalogue (scipy's check_cdf_sf style), on random small inputs:
probabilities of all outputs sum to 1, quadrature equals closed form, Lyu's Lemma 1."""

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exactdp
from exactdp.exact.loss import possible_outputs
from exactdp.mechanisms import ThresholdMechanism, catalogue

# The Sparse Vector family; other families (noisy max, histograms, sums) test their own engines.
SVT_FAMILY = [item.name for item in catalogue() if isinstance(item.make(), ThresholdMechanism)]
FLAG_MECHANISMS = [name for name in SVT_FAMILY if not exactdp.mechanism(name).releases_numbers]
NUMERIC_MECHANISMS = [("svt3", {}), ("statdp.iSVT4", {}), ("svt7", {"eps3": "0.5"}),
                      ("gap_svt", {}), ("bad_gap_svt", {}), ("num_svt", {})]

query = st.integers(-20, 20).map(lambda k: Fraction(k, 10))
queries = st.lists(query, min_size=1, max_size=4)
budget = st.sampled_from(["0.25", "0.5", "1", "2"])
cutoff = st.integers(1, 3)


def build(name, eps, c):
    params = {p.name for p in exactdp.mechanisms.entry(name).params}
    given_params = {"eps": eps, "eps1": eps, "eps2": eps, "c": c, "N": c}
    return exactdp.mechanism(name, **{k: v for k, v in given_params.items() if k in params})


@pytest.mark.parametrize("name", FLAG_MECHANISMS)
@settings(max_examples=8)
@given(q=queries, eps=budget, c=cutoff)
def test_probabilities_of_all_outputs_sum_to_one(name, q, eps, c):
    mech = build(name, eps, c)
    with mpmath.workdps(50):
        total = mpmath.fsum(exactdp.probability(mech, q, out, dps=30, method="closed").value
                            for out in possible_outputs(mech, len(q)))
        assert abs(total - 1) < mpmath.mpf(10) ** -25


@pytest.mark.parametrize("name, params", NUMERIC_MECHANISMS)
def test_numeric_release_densities_integrate_to_one(name, params):
    # Outputs on 2 queries with c = 1: (⊥,⊥), (v) and (⊥,v) for every real v.  The densities are
    # integrated over v by tanh-sinh split where they are not smooth (v = T and v = q_i; for a
    # gap, v = q_i − T and v = q_2 − q_1).
    mech = exactdp.mechanism(name, **params)
    q = [0.5, -0.3]

    def density(prefix):
        return lambda v: exactdp.probability(mech, q, prefix + [v], dps=28, method="closed").value

    with mpmath.workdps(30):
        kinks = [-mpmath.inf, mpmath.mpf("-0.8"), mpmath.mpf("-0.3"), 0, mpmath.mpf("0.5"),
                 mpmath.mpf("0.8"), mpmath.inf]
        total = (exactdp.probability(mech, q, "F,F", dps=28).value
                 + mpmath.quad(density([]), kinks) + mpmath.quad(density(["F"]), kinks))
        assert abs(total - 1) < mpmath.mpf(10) ** -25


@pytest.mark.parametrize("name", SVT_FAMILY)
@settings(max_examples=6)
@given(q=queries, eps=budget, c=cutoff, pattern=st.lists(st.booleans(), min_size=4, max_size=4),
       value=query)
def test_quadrature_equals_closed_form(name, q, eps, c, pattern, value):
    mech = build(name, eps, c)
    outputs = list(possible_outputs(mech, len(q))) if not mech.releases_numbers else [
        [value if top else False for top in pattern[:len(q)]]]
    output = outputs[sum(pattern) % len(outputs)]
    if mech.releases_numbers and sum(1 for x in output if x is not False) > mech.cutoff:
        output = [False] * len(q)
    if mech.releases_numbers and sum(1 for x in output if x is not False) == mech.cutoff:
        last = max(i for i, x in enumerate(output) if x is not False)
        output = output[:last + 1]
    quad = exactdp.probability(mech, q, output, method="quad")
    closed = exactdp.probability(mech, q, output, method="closed")
    if closed.is_zero:
        assert quad.is_zero
        return
    with mpmath.workdps(50):
        assert abs(quad.value - closed.value) <= mpmath.mpf(10) ** -29 * closed.value


@settings(max_examples=40)
@given(d1=st.lists(query, min_size=1, max_size=8), shifts=st.lists(st.integers(-10, 10), min_size=8,
       max_size=8), eps=budget)
def test_lyu_lemma_1_all_bottom_ratio(d1, shifts, eps):
    # Lyu et al. Lemma 1 (spec §4 item 8): for svt1 the all-⊥ output has ln ratio ≤ ε/2 for every
    # pair of neighbours (each query moves by at most Δ = 1).
    d2 = [a + Fraction(s, 10) for a, s in zip(d1, shifts)]
    mech = exactdp.mechanism("svt1", eps=eps, c=2)
    loss = exactdp.privacy_loss(mech, d1, d2, ["F"] * len(d1), method="closed")
    assert abs(loss.log_ratio) <= mpmath.mpf(eps) / 2
