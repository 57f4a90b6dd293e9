"""Interval and box events on numeric outputs: parser, exact probabilities, losses, sampler, CLI.

Independent references: scipy's Laplace CDF and ``scipy.integrate.quad`` (double precision), the
two-Laplace convolution ``(1 + |t|)e^{−|t|}/4`` worked out by hand, and mpmath quadrature of a
convolution.
"""

import json

import mpmath
import numpy as np
import pytest
from scipy import integrate, stats

import exactdp
from exactdp.cli import main
from exactdp.errors import InputError, MethodUnavailableError
from exactdp.events import Interval, view_of
from exactdp.events import parse_event as parse_on_view
from exactdp.exact.event_probability.rules import event_privacy_loss, event_probability
from exactdp.exact.event_probability.sums import laplace_sum_pdf, laplace_sum_sf


def parse_event(text):
    """Read an event on the four outputs of smart_sum (M=4) on four queries."""
    return parse_on_view(text, view_of(exactdp.mechanism("smart_sum", M=4), [0] * 4))


@pytest.mark.parametrize("text, expected", [
    ("out0<3.5", "out0 in (-inf, 3.5)"),
    ("out0 >= -1", "out0 in [-1, inf)"),
    ("out2 = 1/3", "out2 in [1/3, 1/3]"),
    ("out1 in [0,2)", "out1 in [0, 2)"),
    ("out1 in (-inf, 2]", "out1 in (-inf, 2]"),
    ("out0>0 and out0<=1; out3 in (0,inf)", "out0 in (0, 1] and out3 in (0, inf)"),
    ("out0>=0 and out0>0", "out0 in (0, inf)"),
])
def test_parse_event(text, expected):
    assert str(parse_event(text)) == expected


@pytest.mark.parametrize("text, value, problem", [
    ("", "''", "non-empty"), ("x0<1", "x0", "unknown event component"),
    ("out0 in [0 2)", "out0 in [0 2)", "looks like"),
    ("out0 << 1", "< 1", "must be a number"),
    ("out0<abc", "abc", "must be a number"),
])
def test_parse_errors_name_the_problem_and_the_value(text, value, problem):
    # One line that says what is wrong and echoes the offending text.
    with pytest.raises(InputError) as error:
        parse_event(text)
    message = str(error.value)
    assert "\n" not in message and problem in message and value in message


def test_interval_membership_is_exact():
    closed = Interval(0, 0, True, True)
    assert closed.contains(0) and not Interval(0, 1).contains(0)


@pytest.mark.parametrize("event, low, high", [
    ("out0<3.5", -np.inf, 0.5), ("out0 in [2,5)", -1, 2), ("out0 >= 10", 7, np.inf),
    ("out0 in (-1,-0.5)", -4, -3.5),
])
def test_partial_sum_intervals_match_scipy(event, low, high):
    # Σq = 3, b = 1: Pr[o ∈ (a, b)] = F(b − 3) − F(a − 3) (scipy.stats.laplace)
    p = event_probability(exactdp.mechanism("partial_sum"), [1, 2], event, method="estimate")
    expected = stats.laplace.cdf(high) - stats.laplace.cdf(low)
    assert abs(float(p.value) - expected) < 1e-15 and p.method == "closed"


def test_sum_of_laplaces_closed_form():
    with mpmath.workdps(40):
        t = mpmath.mpf("1.7")
        # k = 2 by hand: density (1 + |t|)e^{−|t|}/4, survival (2 + t)e^{−t}/4
        assert abs(laplace_sum_pdf(2, t) - (1 + t) * mpmath.exp(-t) / 4) < 1e-38
        assert abs(laplace_sum_sf(2, t) - (2 + t) * mpmath.exp(-t) / 4) < 1e-38
        # k = 3: the k = 2 density convolved with a Laplace density by mpmath quadrature
        conv = mpmath.quad(lambda y: (1 + abs(y)) * mpmath.exp(-abs(y)) / 4
                           * mpmath.exp(-abs(t - y)) / 2, [-mpmath.inf, 0, t, mpmath.inf])
        assert abs(laplace_sum_pdf(3, t) - conv) < 1e-30
        tail = mpmath.quad(lambda x: laplace_sum_pdf(3, x), [t, mpmath.inf])
        assert abs(laplace_sum_sf(3, t) - tail) < 1e-30


def test_two_coordinates_in_one_running_sum_match_scipy():
    # smart_sum, M = 3, q = 0: o0 = η0, o1 = η0 + η1 (no block end yet).
    # Pr[o0 < 1, 0 ≤ o1 < 2] = ∫_{−∞}^{1} p(x)(F(2 − x) − F(−x)) dx (scipy quad).
    p = event_probability(exactdp.mechanism("smart_sum", M=3), [0, 0], "out0<1 and out1 in [0,2)",
                          method="estimate")
    expected = integrate.quad(
        lambda x: stats.laplace.pdf(x) * (stats.laplace.cdf(2 - x) - stats.laplace.cdf(-x)),
        -60, 1, points=[0], epsabs=1e-15)[0]
    assert abs(float(p.value) - expected) < 1e-12 and p.method == "quad+gauss-legendre"


def test_three_coordinates_in_one_running_sum_are_refused():
    with pytest.raises(MethodUnavailableError, match="at most two"):
        event_probability(exactdp.mechanism("smart_sum", M=5), [0] * 4,
                          "out0<1 and out1<1 and out2<1")


@pytest.mark.parametrize("event, expected", [
    ("out1 in [0,0]", 1), ("out1 <= 0", 1), ("out1 < 0", 0), ("out1 in (0,1)", 0),
    ("out1 = 0 and out0 < 0", "half"),
])
def test_deterministic_block_end_gives_exact_zero_and_one(event, expected):
    # bad_smart_sum, M = 2, q = 0: o1 = q0 + q1 exactly (CheckDP's η1 := 0).
    p = event_probability(exactdp.mechanism("bad_smart_sum", M=2), [0, 0, 0], event)
    if expected == "half":
        assert p.value == mpmath.mpf(1) / 2
    else:
        assert p.value == expected and p.error == 0


def test_event_losses():
    # the CheckDP violation as an event with probability 1 vs 0
    bad = event_privacy_loss(exactdp.mechanism("bad_smart_sum", M=2), [0, 0, 0], [1, 0, 0],
                             "out1 in [-0.5,0.5)")
    assert (bad.p1.value, bad.p2.value, bad.log_ratio) == (1, 0, mpmath.inf)
    # a tail event attains the supremum of the density ratio: S(0)/S(1) = e^{1/b}
    for name, expected in (("partial_sum", 1), ("bad_partial_sum", 2)):
        loss = event_privacy_loss(exactdp.mechanism(name), [1], [0], "out0 >= 1")
        assert abs(loss.log_ratio - expected) < 1e-28


def test_sampler_frequencies_match_event_probabilities():
    # 5σ binomial bounds, seeded; a block end and a running sum across it.
    mech = exactdp.mechanism("smart_sum", M=2)
    q = [1, 0, 2]
    runs = 100_000
    values = exactdp.sample(mech, q, runs, np.random.default_rng(11)).values
    for event, hits in (("out1 in [0,2)", (values[:, 1] >= 0) & (values[:, 1] < 2)),
                        ("out1 > 1 and out2 < 4", (values[:, 1] > 1) & (values[:, 2] < 4))):
        p = float(event_probability(mech, q, event).value)
        assert abs(np.count_nonzero(hits) - runs * p) < 5 * np.sqrt(runs * p * (1 - p))


def test_cli_event(capsys):
    assert main(["loss", "bad_smart_sum", "--d1", "0,0,0", "--d2", "1,0,0",
                 "--event", "out1 in [0,0]", "--json"]) == 0
    record = json.loads(capsys.readouterr().out)
    assert (record["p1"], record["p2"], record["log_ratio"]) == ("1.0", "0", "inf")
    assert main(["prob", "partial_sum", "--queries", "0", "--event", "out0<0", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["probability"] == "0.5"


@pytest.mark.parametrize("argv, message", [
    (["prob", "smart_sum", "--queries", "0,0", "--event", "out2<0"],
     "unknown event component 'out2'"),
    (["prob", "smart_sum", "--queries", "0", "--event", "out0<1", "--method", "closed"],
     "--method applies to --output only"),
    (["prob", "smart_sum", "--queries", "0", "--event", "out0<1", "--output", "1"],
     "not allowed with argument"),
])
def test_cli_event_errors(argv, message, capsys):
    try:
        code = main(argv)
    except SystemExit as stop:  # argparse's own usage errors
        code = stop.code
    assert code == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
