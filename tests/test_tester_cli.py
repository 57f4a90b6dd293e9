"""``exactdp pvalue``, ``crosscheck`` and ``test``: outputs, JSON schema, one-line errors."""

import json
import math
from pathlib import Path

import mpmath
import numpy as np
import pytest
from scipy.stats import binom, hypergeom

import exactdp
from exactdp.cli import main
from exactdp.events import parse_event, view_of
from exactdp.exact.event_probability.rules import event_probability
from exactdp.programs import load_program
from exactdp.sampling.hypothesis import p_value


def run(capsys, *argv):
    """Exit code, stdout and stderr of ``exactdp *argv`` (argparse's usage errors exit here)."""
    try:
        code = main(list(argv))
    except SystemExit as exit_info:
        code = exit_info.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_pvalue_json_is_the_exact_expectation(capsys):
    code, out, err = run(capsys, "pvalue", "--c1", "3", "--c2", "1", "--n", "5", "--eps", "0.3",
                         "--json")
    assert code == 0 and err == ""
    # 0.45337350017181... by direct enumeration (tests/test_sampling_hypothesis.py, mpmath)
    (value,) = json.loads(out).values()
    assert float(value) == pytest.approx(0.4533735001718, rel=1e-11)


def test_pvalue_statdp_average_is_seeded(capsys):
    args = ("pvalue", "--c1", "130", "--c2", "100", "--n", "1000", "--eps", "0.1", "--samples",
            "200", "--seed", "3", "--json")
    first = float(json.loads(run(capsys, *args)[1])["p_value"])
    assert first == float(json.loads(run(capsys, *args)[1])["p_value"])
    # StatDP's p-value is the mean of K = 200 i.i.d. terms h(c̃1) = hypergeom.sf(c̃1 − 1, 2n, n,
    # c̃1 + c2) in [0, 1], c̃1 ~ Binomial(c1, e^{−ε}) (Ding et al., CCS 2018, arXiv:1805.10277,
    # §4.2); its expectation is p_value().  Tolerance: Bernstein's inequality
    # P(|mean − E| ≥ t) ≤ 2 exp(−K t² / (2σ² + 2t/3)) at tail mass 10^-6, with the variance σ² of
    # one term computed exactly by enumerating c̃1 (t ≈ 0.055 here).
    c1, c2, n, eps, k = 130, 100, 1000, 0.1, 200
    tilde = np.arange(c1 + 1)
    weights = binom.pmf(tilde, c1, math.exp(-eps))
    terms = hypergeom.sf(tilde - 1, 2 * n, n, tilde + c2)
    mean = p_value(c1, c2, n, eps)
    variance = float(weights @ (terms - mean) ** 2)
    log_tail = math.log(2 / 1e-6)
    # the positive root of K t² − log_tail·(2t/3) − 2σ²·log_tail = 0
    a, b, c = k, -2 * log_tail / 3, -2 * variance * log_tail
    bound = (-b + math.sqrt(b * b - 4 * a * c)) / (2 * a)
    assert abs(first - mean) <= bound


#: The decimal strings of ``exactdp test --json`` (the counts are JSON integers).
NUMBERS = {"test_eps", "p_value", "exact_event_eps", "exact_event_eps_lower",
           "exact_event_eps_upper"}


def test_isvt3_verdicts_with_exact_event_eps(capsys):
    # iSVT3 at ε0 = 0.7 with small run counts (true privacy (1+6N)ε0/4 = 1.225: StatDP's iSVT3 is
    # Alg. 4 of Lyu, Su & Li, PVLDB 2017, arXiv:1603.01699, which is (1+6c)ε/4-DP, §3.2).  Where the
    # test ε is well below the selected event's exact
    # loss the test rejects; well above it, it does not.
    code, out, _ = run(capsys, "test", "statdp.iSVT3", "--param", "eps=0.7", "--param", "N=1",
                       "--param", "T=1", "--test-eps", "0.3,2", "--runs", "40000",
                       "--select-runs", "10000", "--json")
    assert code == 0
    low, high = ({key: float(value) if key in NUMBERS else value for key, value in record.items()}
                 for record in json.loads(out))
    for record in (low, high):
        assert set(record) == {"test_eps", "p_value", "d1", "d2", "event", "c1", "c2",
                               "exact_event_eps", "exact_event_eps_lower",
                               "exact_event_eps_upper"}
        # the certified enclosure of the exact loss, its centre inside
        assert record["exact_event_eps_lower"] <= record["exact_event_eps"] \
            <= record["exact_event_eps_upper"]
        assert record["exact_event_eps_upper"] - record["exact_event_eps_lower"] < 1e-8
        # exact_event_eps is ln P[M(d1)∈E] − ln P[M(d2)∈E], whichever count is larger
        assert 0 < abs(record["exact_event_eps"]) <= 1.225 + 1e-9
        assert (record["exact_event_eps"] > 0) == (record["c1"] > record["c2"])
    assert low["test_eps"] == 0.3 and low["p_value"] < 0.05 < abs(low["exact_event_eps"])
    assert high["p_value"] > 0.05


def test_test_table_output(capsys):
    code, out, _ = run(capsys, "test", "statdp.SVT", "--d1", "1,1", "--d2", "2,0", "--test-eps",
                       "0.5", "--runs", "2000", "--select-runs", "1000")
    assert code == 0
    assert "p-value" in out and "ln P[M(d1)∈E] − ln P[M(d2)∈E]" in out and "false_count=" in out
    # the exact loss printed as its certified enclosure, ends rounded outward
    row = next(line for line in out.splitlines() if "false_count=" in line)
    low, high = (float(x) for x in row.split("[")[1].split("]")[0].split(","))
    assert low < high


def test_crosscheck_json(capsys):
    code, out, _ = run(capsys, "crosscheck", "statdp.histogram_eps", "--param", "eps=0.5",
                       "--d1", "1", "--d2", "2", "--event", "value in (-inf, 0.5)", "--runs",
                       "5000", "--json")
    assert code == 0
    record = json.loads(out)
    # Lap(ε) noise: ln F(−0.5)/F(−1.5) = 1/ε = 2 (Ding et al., CCS 2018, arXiv:1805.10277,
    # Alg. 10: the incorrect histogram is 1/ε0-DP)
    assert float(record["exact_event_eps"]) == pytest.approx(2.0, rel=1e-12)
    assert record["consistent"] is True and record["runs"] == 5000


@pytest.mark.parametrize("argv, message", [
    (["pvalue", "--c1", "-1", "--c2", "0", "--n", "5", "--eps", "1"],
     "c1 must be an integer from 0 to n=5, got c1=-1"),
    (["pvalue", "--c1", "1", "--c2", "0", "--n", "0", "--eps", "1"],
     "n must be a positive integer, got n=0"),
    (["pvalue", "--c1", "1", "--c2", "0", "--n", "5", "--eps", "nan"],
     "eps must be finite and non-negative, got eps=nan"),
    (["pvalue", "--c1", "1", "--c2", "0", "--n", "5", "--eps", "1", "--samples", "0"],
     "samples must be a positive integer, got samples=0"),
    (["test", "statdp.SVT", "--test-eps", "1:0:0.1"], "test eps must be a list like"),
    (["test", "statdp.SVT", "--test-eps", "-1"], "eps must be finite and non-negative"),
    (["test", "statdp.SVT", "--runs", "0"], "runs must be a positive integer, got runs=0"),
    (["test", "statdp.SVT", "--jobs", "0", "--d1", "1", "--d2", "2"],
     "--jobs must be a positive integer, got --jobs=0"),
    (["test", "statdp.SVT", "--d1", "1,1"], "give both d1 and d2, or neither"),
    (["test", "statdp.SVT", "--d1", "1,1", "--d2", "3,1"], "d1 and d2 are not neighbours"),
    (["crosscheck", "histogram", "--d1", "1,1", "--d2", "2,2"],
     "2 queries differ, but neighbours differ in one query only"),
    (["test", "statdp.SVT", "--seed", "-1"], "seed must be a non-negative integer, got seed=-1"),
    (["pvalue", "--c1", "1", "--c2", "0", "--n", "5", "--eps", "1", "--samples", "3", "--seed",
      "-2"], "seed must be a non-negative integer, got seed=-2"),
    (["test", "statdp.SVT", "--d1", "1,1", "--d2", "1"], "d1 and d2 must have the same length"),
    (["crosscheck", "statdp.SVT", "--d1", "1", "--d2", "2", "--event", "nope=1"],
     "unknown event component 'nope'"),
    (["crosscheck", "nope"], "unknown mechanism 'nope'"),
])
def test_bad_inputs_exit_2_with_one_line(capsys, argv, message):
    code, out, err = run(capsys, *argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err


def test_usage_errors_are_one_line(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["pvalue", "--c1", "x", "--c2", "0", "--n", "5", "--eps", "1"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.count("\n") == 1


PROGRAMS = Path(__file__).parent / "programs" / "statdp_algorithms.py"
#: iSVT1 (no query noise; ρ ~ T + Lap(2/ε)) returns one boolean per query: on 1,1,1 the output is
#: F,F,F or T,T,T; on 0,2,2 also F,T,T (0 < ρ ≤ 2), the event the tester selects.
ISVT1_TEST = ["test", f"{PROGRAMS}:isvt1", "--param", "epsilon=1", "--param", "N=1", "--param",
              "T=0.5", "--d1", "1,1,1", "--d2", "0,2,2", "--test-eps", "0.5", "--runs", "2000",
              "--select-runs", "2000"]


def _table_rows(out: str) -> tuple[str, list[str]]:
    """The header line of ``exactdp test``'s table and its rows."""
    lines = out.splitlines()
    header = next(index for index, line in enumerate(lines) if "p-value" in line)
    return lines[header], lines[header + 1:]


def test_a_fully_fixed_tuple_output_prints_as_the_output(capsys):
    code, out, _ = run(capsys, *ISVT1_TEST)
    assert code == 0
    _, (row,) = _table_rows(out)
    assert " output=F,T,T " in row and "out0" not in row
    code, out, _ = run(capsys, *ISVT1_TEST, "--json")
    (record,) = json.loads(out)
    assert record["event"] == "output=F,T,T"
    # F,T,T never happens on 1,1,1: ln P[M(d1)∈E] − ln P[M(d2)∈E] = −∞ exactly
    assert record["exact_event_eps"] == "-inf"


def test_an_event_printed_as_the_output_reads_back_as_the_same_event(capsys):
    losses = {}
    for event in ("output=F,T,T", "out0=F and out1=T and out2=T", "out2=1 and out1=1 and out0=0"):
        code, out, err = run(capsys, "loss", f"{PROGRAMS}:isvt1", "--param", "epsilon=1",
                             "--param", "N=1", "--param", "T=0.5", "--d1", "0,2,2", "--d2",
                             "0,1,2", "--event", event, "--json")
        assert code == 0, err
        losses[event] = json.loads(out)["log_ratio"]
    # the same event three ways, the same exact loss; with ρ = 0.5 + η, η ~ Lap(2) (CDF F),
    # F,T,T is 0 < ρ ≤ 2 on 0,2,2 and 0 < ρ ≤ 1 on 0,1,2: the closed form
    # ln (F(1.5) − F(−0.5)) / (F(0.5) − F(−0.5)) = ln (1 − e^{−3/4}/2 − e^{−1/4}/2) / (1 − e^{−1/4})
    assert len(set(losses.values())) == 1
    with mpmath.workdps(40):
        quarter = mpmath.exp(-mpmath.mpf(1) / 4)
        closed = mpmath.log((1 - quarter**3 / 2 - quarter / 2) / (1 - quarter))
        assert abs(mpmath.mpf(losses["output=F,T,T"]) - closed) < 1e-25
    code, out, err = run(capsys, "loss", f"{PROGRAMS}:isvt1", "--param", "epsilon=1", "--param",
                         "N=1", "--param", "T=0.5", "--d1", "0,2,2", "--d2", "0,1,2", "--event",
                         "output=F,T")
    assert code == 2 and err.count("\n") == 1
    assert "'output=F,T' fixes 2 entries, but the output has 3 (out0 to out2)" in err


def test_an_event_on_some_boolean_entries_spells_them_t_and_f():
    view = view_of(load_program(f"{PROGRAMS}:isvt1", epsilon=1, N=1, T=0.5), [1, 1, 1])
    assert str(parse_event("out2=1 and out0=0", view)) == "out2=T and out0=F"
    assert str(parse_event("out2=1 and out0=0 and out1=F", view)) == "output=F,F,T"


def test_the_loss_column_names_its_direction(capsys):
    # d1 = 2,0 and d2 = 1,1: the event selected is likelier on d2, so its loss from d1 to d2 is
    # negative, and the header says which way it is taken
    code, out, _ = run(capsys, "test", "statdp.SVT", "--d1", "2,0", "--d2", "1,1", "--test-eps",
                       "0.5", "--runs", "2000", "--select-runs", "1000")
    assert code == 0
    header, (row,) = _table_rows(out)
    assert "ln P[M(d1)∈E] − ln P[M(d2)∈E]" in header and "true loss" not in out
    low, high = (float(x) for x in row.split("[")[1].split("]")[0].split(","))
    event = row.split("]")[1].split("[")[0].strip()
    # the direction from the exact probabilities of the event on each input
    p1, p2 = (event_probability(exactdp.mechanism("statdp.SVT"), d, event, 15)
              for d in ("2,0", "1,1"))
    assert p1.value < p2.value and low <= high < 0
    assert low <= float(mpmath.log(p1.value) - mpmath.log(p2.value)) <= high
