"""One event system across the catalogue: exact decimal bounds, peak-aware Sparse Vector event
integrals, ``Event.contains`` against the sampled masks, and ``--event`` in ``prob``, ``loss``,
``crosscheck`` and ``test`` for every family with that output.

Independent references: a hand-written mpmath integral of Laplace CDFs at 60 digits (for the
released-value event of StatDP's iSVT4), and the law of total probability (the probabilities of
all values of a statistic sum to 1).
"""

import json
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from mpmath import mpf

import exactdp
from exactdp.cli import main
from exactdp.events import Interval, parse_event, view_of
from exactdp.exact.event_probability.rules import event_privacy_loss, event_probability
from exactdp.sampling import sample


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ----------------------------------------------------------------------------- exact decimal bounds

ISVT4 = dict(eps=2, N=2, T=0)
ISVT4_QUERIES = [Fraction("1.6"), Fraction("-2.4"), -1, 2, -2]


def _laplace_cdf(x, b):
    return mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2


def _isvt4_reference(bound: Fraction) -> mpf:
    """``Pr[false_count = 0 and last < bound]`` for StatDP's iSVT4 (Lyu, Su & Li, PVLDB 2017,
    arXiv:1603.01699, Alg. 3) with ``ρ ~ Lap(1)``, ``ν ~ Lap(2)``, ``T = 0``, cutoff 2, written out
    by hand: no ⊥ means the first two answers are ⊤ and the run stops, the last entry being
    ``v = −2.4 + ν_2``, so ``P = ∫ p_ρ(z) · Pr[1.6 + ν_1 ≥ z] · Pr[z ≤ −2.4 + ν_2 < bound] dz``."""
    with mpmath.workdps(60):
        q1, q2, c = mpf(16) / 10, -mpf(24) / 10, mpf(bound.numerator) / bound.denominator

        def integrand(z):
            top = 1 - _laplace_cdf(z - q1, 2)
            inside = _laplace_cdf(c - q2, 2) - _laplace_cdf(z - q2, 2) if z < c else mpf(0)
            return mpmath.exp(-abs(z)) / 2 * top * inside

        return mpmath.quad(integrand, [-mpf("inf")] + sorted([q2, mpf(0), c, q1]), maxdegree=12)


def test_interval_bounds_are_exact_decimals():
    # The engine at 30 digits equals the hand-written integral at 60 digits for the decimal −0.4;
    # the binary float −0.4 (its exact value, 2^-54 away) gives a probability differing from the
    # 17th digit on, which this test would see.
    mech = exactdp.mechanism("statdp.iSVT4", **ISVT4)
    assert (mech.threshold_noise.scale, mech.query_noise.scale) == (1, 2)
    p = event_probability(mech, ISVT4_QUERIES, "false_count=0 & last in (-inf, -0.4)", 30)
    reference = _isvt4_reference(Fraction("-0.4"))
    assert abs(p.value - reference) <= p.error + reference * mpf(10) ** -40
    assert p.error <= p.value * mpf(10) ** -30
    binary = _isvt4_reference(Fraction(-0.4))
    assert abs(binary - reference) > 100 * p.error


def test_interval_type():
    closed = Interval(Fraction(0), Fraction(1), True, True)
    assert closed.contains(0) and closed.contains(1) and not closed.contains(Fraction(11, 10))
    assert not Interval(Fraction(0), Fraction(1)).contains(0)
    assert not closed.contains(None)  # ⊥ is never inside
    assert str(closed.intersect(Interval(low=Fraction(1, 2)))) == " in (0.5, 1]"
    assert str(closed.shift(Fraction(1))) == " in [-1, 0]"
    assert Interval(Fraction(1), Fraction(1)).is_empty and not closed.is_empty
    mask = closed.mask(np.array([0.0, 1.0, 1.5, np.nan]))
    assert mask.tolist() == [True, True, False, False]


# ----------------------------------------------------------------------------- peak-aware integrals

HARD = [
    # Cases on which plain tanh-sinh split at the kinks raised PrecisionError (even at 6 digits).
    ("statdp.iSVT2", dict(eps=Fraction("0.001"), T=Fraction("0.1"), sensitivity=2), "2.7*6",
     "hamming", 6),
    ("statdp.iSVT3", dict(eps=Fraction("0.01"), N=2, T=Fraction("-1.25"),
                          sensitivity=Fraction("0.3")), "-2.7,-2.7,1,0", "hamming", 4),
]
TOTALS = HARD + [
    ("statdp.SVT", dict(eps=1, N=1), "1,1,0,2", "false_count", 4),
    ("svt1", dict(eps=Fraction("0.5"), c=2), "0,3,-1,1,1", "false_count", 5),
    ("gptt", dict(), "0,1,2", "true_count", 3),
    ("statdp.iSVT1", dict(eps=Fraction("0.7"), T=1), "0,2,1,1", "hamming", 4),
]


@pytest.mark.parametrize("name, params, queries, statistic, largest", TOTALS)
@pytest.mark.parametrize("dps", [6, 20])
def test_statistic_probabilities_sum_to_one(name, params, queries, statistic, largest, dps):
    # The law of total probability: Σ_k Pr[statistic = k] = 1, within the sum of the bounds.
    mech = exactdp.mechanism(name, **params)
    results = [event_probability(mech, queries, f"{statistic}={k}", dps)
               for k in range(largest + 1)]
    with mpmath.workdps(dps + 10):
        total = mpmath.fsum(p.value for p in results)
        assert abs(total - 1) <= mpmath.fsum(p.error for p in results) + mpf(10) ** -(dps + 5)
    for p in results:
        assert p.is_zero or p.error <= p.value * mpf(10) ** -dps


@pytest.mark.parametrize("name, params, queries, statistic, largest", HARD)
def test_hard_cases_agree_across_precisions(name, params, queries, statistic, largest):
    mech = exactdp.mechanism(name, **params)
    for k in range(largest + 1):
        low, high = (event_probability(mech, queries, f"{statistic}={k}", d) for d in (6, 20))
        assert abs(low.value - high.value) <= low.error + high.error


# ----------------------------------------------------------------------------- contains vs mask

@pytest.mark.parametrize("name, queries, text", [
    ("histogram", "0,1,2", "out0<1 and bin2 in [0,2)"),
    ("noisy_max_laplace_value", "0,1", "out0 >= 0.5"),
    ("noisy_max_gumbel", "0,1,3", "index=2"),
    ("smart_sum", "1,0,1,1", "out1 in (-1, 2] and out3>2"),
    ("statdp.iSVT4", "1,0,1,1", "false_count=1 and last in (0, 2)"),
    ("svt1", "1,0,1,1", "hamming=2"),
])
def test_contains_agrees_with_mask(name, queries, text):
    # Event.contains on each sampled output decides what Event.mask decides on the whole batch.
    mech = exactdp.mechanism(name)
    event = parse_event(text, view_of(mech, queries))
    draws = sample(mech, queries, 300, np.random.default_rng(5))
    mask = event.mask(draws)
    assert 0 < mask.sum() < 300
    for run in range(300):
        assert event.contains(_output(mech, draws, run)) == mask[run]


def _output(mech, draws, run):
    """Run ``run`` of a batch as one concrete output (tokens, numbers or an index)."""
    if hasattr(draws, "answers"):
        tokens = []
        for i, code in enumerate(draws.answers[run]):
            if code == -1:
                break
            value = None if draws.values is None else draws.values[run, i]
            tokens.append(False if code == 0 else
                          True if value is None or np.isnan(value) else float(value))
        return tokens
    value = draws.values[run]
    return float(value) if np.ndim(value) == 0 else [float(v) for v in value]


# ----------------------------------------------------------------------------- every command

@pytest.mark.parametrize("name, queries, event", [
    ("histogram", "0,1", "out0<1"),
    ("statdp.histogram", "0,1", "value in (-inf, 0.5)"),
    ("noisy_max_laplace_value", "0,1", "out0 in [0,1)"),
    ("noisy_max_exponential", "0,1", "index=1"),
    ("smart_sum", "0,1", "out1<1"),
    ("gap_svt", "1,0,1", "last in (0.5, 3]"),
    ("statdp.iSVT4", "1,0,1", "false_count=3 and last=F"),
])
def test_prob_and_loss_accept_events_for_every_family(capsys, name, queries, event):
    code, out, _ = run(capsys, "prob", name, "--queries", queries, "--event", event, "--json")
    assert code == 0
    record = json.loads(out)
    assert 0 < float(record["probability"]) < 1 and float(record["error"]) < 1e-29
    first, rest = queries.split(",", 1)
    d2 = f"{int(first) + 1},{rest}"
    code, out, _ = run(capsys, "loss", name, "--d1", queries, "--d2", d2, "--event", event,
                       "--any-pair", "--json")
    assert code == 0
    loss = event_privacy_loss(exactdp.mechanism(name), queries, d2, event, 30,
                              allow_any_pair=True)
    record = json.loads(out)
    assert float(record["p1"]) == pytest.approx(float(loss.p1.value), rel=1e-15)
    assert float(record["log_ratio"]) == pytest.approx(float(loss.log_ratio), rel=1e-15, abs=1e-30)


@pytest.mark.parametrize("name, event", [
    ("histogram", "out1 in (0, 2)"), ("noisy_max_gumbel", "index=0"),
    ("smart_sum", "out0<0.5 and out1 >= 1"), ("statdp.iSVT4", "false_count=1 and last in (0.5, 3]"),
    ("gap_svt", "true_count=1 and last in (-1, 0.3]"),
])
def test_crosscheck_and_test_share_the_sign_convention(capsys, name, event):
    # crosscheck: counts inside their exact 99.9% binomial intervals, and exact_event_eps =
    # ln P1 − ln P2 as the exact engine computes it.
    code, out, _ = run(capsys, "crosscheck", name, "--d1", "1,1,0", "--d2", "0,1,0", "--event",
                       event, "--runs", "4000", "--json")
    assert code == 0
    check = json.loads(out)
    loss = event_privacy_loss(exactdp.mechanism(name), "1,1,0", "0,1,0", event, 15)
    assert check["consistent"] is True
    assert float(check["exact_event_eps"]) == pytest.approx(float(loss.log_ratio), rel=1e-9)
    # test on the same pair (with its own event search): ln P1 − ln P2 of the event it selected,
    # whichever count is larger
    code, out, _ = run(capsys, "test", name, "--d1", "1,1,0", "--d2", "0,1,0", "--test-eps",
                       "0.5", "--runs", "2000", "--select-runs", "2000", "--json")
    assert code == 0
    (record,) = json.loads(out)
    selected = event_privacy_loss(exactdp.mechanism(name), "1,1,0", "0,1,0", record["event"], 15)
    assert float(record["exact_event_eps"]) == pytest.approx(float(selected.log_ratio), rel=1e-9)


def test_test_runs_on_the_sums(capsys):
    code, out, _ = run(capsys, "test", "smart_sum", "--test-eps", "0.5", "--runs", "2000",
                       "--select-runs", "2000", "--json")
    assert code == 0
    (record,) = json.loads(out)
    assert record["event"].startswith("out") and record["exact_event_eps"] is not None


def test_point_mass_query_noise_piece_between_scan_points():
    # statdp.iSVT1 (no query noise, ρ ~ Lap(2Δ/ε) = Lap(10) at ε = 0.2, T = 1) on d = (2,0,0,0,0):
    # the output is ⊤^5 for ρ ≤ −1 (Hamming distance 3 to ⊤⊤⊥⊥⊥), ⊤⊥⊥⊥⊥ for −1 < ρ ≤ 1
    # (distance 1) and ⊥^5 for ρ > 1 (distance 2).  Closed forms: Pr[−1 < ρ ≤ 1] = 1 − e^{−1/10},
    # Pr[ρ > 1] = Pr[ρ ≤ −1] = ½e^{−1/10}.  The piece (−1, 1] is narrower than the scan step, so a
    # scan that skipped it reported an exact zero.
    mech = exactdp.mechanism("statdp.iSVT1", eps=0.2, T=1)
    with mpmath.workdps(40):
        expected = {1: -mpmath.expm1(mpmath.mpf(-1) / 10), 2: mpmath.exp(mpmath.mpf(-1) / 10) / 2,
                    3: mpmath.exp(mpmath.mpf(-1) / 10) / 2, 0: mpmath.mpf(0), 4: mpmath.mpf(0)}
    for k, value in expected.items():
        p = event_probability(mech, [2, 0, 0, 0, 0], f"hamming={k}", 25)
        assert abs(p.value - value) <= p.error + mpmath.mpf(10) ** -35
        assert p.is_zero == (value == 0)
