"""Exact probabilities of post-processed events (StatDP's outputs: number of ⊥'s, Hamming distance,
(⊥ count, last entry)) against independent sums.

The reference for ⊤/⊥ mechanisms is the sum of ``exactdp.probability`` over every raw output
vector (``possible_outputs``) whose statistic matches: the same integrals, but no generating
polynomial and no dynamic programme.
"""

from itertools import zip_longest

import mpmath
import pytest

import exactdp
from exactdp.exact.event_probability import threshold as threshold_events
from exactdp.exact.event_probability.rules import event_probability
from exactdp.exact.losses.privacy_loss import possible_outputs
from exactdp.events import parse_event, view_of

Q = [1, 0, 2, 1]
N_QUERIES = len(Q)


def enumerated(mech, queries, statistic, value):
    """Σ Pr[M(queries) = a] over raw outputs a with statistic(a) = value."""
    return mpmath.fsum(exactdp.probability(mech, queries, out, dps=20, method="closed").value
                       for out in possible_outputs(mech, len(queries)) if statistic(out) == value)


def hamming_to_pattern(out, n=N_QUERIES):
    # StatDP's iSVT1–3: zip_longest Hamming distance to (True × ⌊n/2⌋, False × rest).
    return sum(a != b for a, b in zip_longest([i < n // 2 for i in range(n)], out))


CASES = [
    ("statdp.SVT", dict(eps=0.7, N=1, T=0.5), "false_count", lambda out: out.count(False)),
    ("statdp.SVT", dict(eps=0.7, N=2, T=0.5), "false_count", lambda out: out.count(False)),
    ("statdp.iSVT1", dict(eps=0.7, T=1), "hamming", hamming_to_pattern),
    ("statdp.iSVT2", dict(eps=0.7, T=1), "hamming", hamming_to_pattern),
    ("statdp.iSVT3", dict(eps=0.7, N=2, T=1), "hamming", hamming_to_pattern),
    ("svt1", dict(eps=1, c=2), "length", len),
    ("svt4", dict(eps=1, c=1), "true_count", lambda out: out.count(True)),
    ("gptt", dict(eps1=0.5, eps2=1), "false_count", lambda out: out.count(False)),
]


@pytest.fixture(params=["generating polynomial", "summed outputs"])
def engine(request, monkeypatch):
    """Both engines of a fixed-threshold event: with no output summed (``MAX_SUMMED_OUTPUTS``
    0), every event goes through the generating polynomial's quadrature; by default an event
    with few outputs is the ball-arithmetic sum of its outputs' closed forms."""
    if request.param == "generating polynomial":
        monkeypatch.setattr(threshold_events, "MAX_SUMMED_OUTPUTS", 0)
    return request.param


@pytest.mark.parametrize("name, params, component, statistic", CASES)
def test_generating_polynomial_matches_enumeration(name, params, component, statistic, engine):
    mech = exactdp.mechanism(name, **params)
    view = view_of(mech, Q)
    total = mpmath.mpf(0)
    for value in range(len(Q) + 1):
        p = event_probability(mech, Q, parse_event(f"{component}={value}", view), dps=12)
        if p.value > 0 and threshold_events.output_tree.applies(mech):
            assert ("summed" in p.method) == (engine == "summed outputs")
        with mpmath.workdps(30):
            assert abs(p.value - enumerated(mech, Q, statistic, value)) <= 1e-13
            total += p.value
    assert abs(total - 1) < 1e-12


def test_hamming_to_noise_free_output_matches_enumeration(engine):
    mech = exactdp.mechanism("svt6", eps=1)
    view = view_of(mech, Q)
    reference = [q >= 0 for q in Q]  # svt6: no cutoff, T = 0
    for value in (0, 2):
        p = event_probability(mech, Q, parse_event(f"hamming={value}", view), dps=12)
        expected = enumerated(mech, Q, lambda out: sum(a != b for a, b in zip(out, reference)),
                              value)
        assert abs(p.value - expected) <= 1e-13


def test_redrawn_threshold_is_enumerated_and_sums_to_one():
    mech = exactdp.mechanism("svt2", eps=1, c=2)
    view = view_of(mech, Q)
    values = [event_probability(mech, Q, parse_event(f"false_count={k}", view)).value
              for k in range(len(Q) + 1)]
    assert abs(mpmath.fsum(values) - 1) < 1e-12
    expected = enumerated(mech, Q, lambda out: out.count(False), 1)
    assert abs(values[1] - expected) < 1e-13


def test_isvt4_last_entry_interval_matches_integrated_densities():
    # Pr[#⊥ = 1 and last ∈ (0.5, 2)] with N = 1 is the density of the output (⊥, v) integrated
    # over v ∈ (0.5, 2): exactdp.probability's densities integrated by mpmath.quad.
    mech = exactdp.mechanism("statdp.iSVT4", eps=0.7, N=1, T=1)
    view = view_of(mech, Q)
    p = event_probability(mech, Q, parse_event("false_count=1 & last in (0.5, 2)", view))
    with mpmath.workdps(20):
        expected = mpmath.quad(
            lambda v: exactdp.probability(mech, Q, ["F", v], dps=15, method="closed").value,
            [0.5, 1, 2])
    assert abs(p.value - expected) < 1e-12
    bottom = event_probability(mech, Q, parse_event("false_count=4 & last=F", view))
    assert abs(bottom.value - exactdp.probability(mech, Q, "F,F,F,F").value) < 1e-13


def test_raw_output_event_is_the_output_probability():
    mech = exactdp.mechanism("svt1", eps=1, c=1)
    view = view_of(mech, Q)
    p = event_probability(mech, Q, parse_event("output=F,T", view))
    assert abs(p.value - exactdp.probability(mech, Q, "F,T").value) < 1e-15
