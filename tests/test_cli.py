"""The command line: outputs, JSON schema, and one-line errors with exit code 2."""

import json
import subprocess
import sys

import mpmath
import pytest

import exactdp
from exactdp.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_prob_json(capsys):
    code, out, err = run(capsys, "prob", "svt5", "--queries", "0,1", "--output", "F,T", "--json")
    assert code == 0 and err == ""
    record = json.loads(out)
    assert set(record) == {"probability", "log_probability", "error", "log_error", "method",
                           "lower", "upper", "log_lower", "log_upper"}
    # Lyu, Su & Li, PVLDB 2017 (arXiv:1603.01699), §3.2: Pr[Alg. 5(0, 1) = (⊥, ⊤)] = ½(1 − e^{−ε/2})
    # to the printed 30 digits (rounding ≤ 5e-31) plus the engine's bound 10^-30 (relative).
    with mpmath.workdps(40):
        assert abs(mpmath.mpf(record["probability"]) - (1 - mpmath.exp(-0.5)) / 2) < 1e-29


def test_loss_json_with_exact_zero(capsys):
    code, out, _ = run(capsys, "loss", "gptt", "--param", "eps2=inf", "--d1", "0,1", "--d2", "1,0",
                       "--output", "F,T", "--json")
    assert code == 0
    record = json.loads(out)
    assert record["p2"] == "0" and record["log_ratio"] == "inf"
    # Chen & Machanavajjhala, "On the Privacy Properties of Variants on the Sparse Vector
    # Technique", 2015 (arXiv:1508.07306), proof of Thm 4.7: with ε2 = ∞ (no query noise),
    # Pr[GPTT(0, 1) = (⊥, ⊤)] = Pr[0 < ρ ≤ 1] = ½(1 − e^{−ε1}) for ρ ~ Lap(1/ε1); ε1 = 1/2 here.
    # Tolerance: 30 printed significant digits of a value below 1 (rounding ≤ 5e-31) plus the
    # engine's relative error bound 10^-30 at its default 30 digits.
    with mpmath.workdps(40):
        assert abs(mpmath.mpf(record["p1"]) - (1 - mpmath.exp(-0.5)) / 2) < 1e-29
    assert record["error"] == "0" and "method" in record


def test_headline_family_matches_the_api(capsys):
    t = 1000
    code, out, _ = run(capsys, "loss", "gptt", "--param", "eps1=0.5", "--param", "eps2=0.5",
                       "--d1", f"0*{t},1*{t}", "--d2", f"1*{t},0*{t}", "--output", f"F*{t},T*{t}",
                       "--json")
    assert code == 0
    loss = exactdp.privacy_loss(exactdp.mechanism("gptt", eps1=0.5, eps2=0.5), f"0*{t},1*{t}",
                                f"1*{t},0*{t}", f"F*{t},T*{t}")
    assert json.loads(out)["log_ratio"] == exactdp.format_value(loss.log_ratio, 30)


def test_maxloss_and_list(capsys):
    code, out, _ = run(capsys, "maxloss", "svt1", "--d1", "0,0,0", "--d2", "1,1,1", "--json")
    record = json.loads(out)
    assert code == 0 and record["output"] == "F*3" and record["outputs_enumerated"] == "4"
    code, out, _ = run(capsys, "list", "--json")
    names = [row["name"] for row in json.loads(out)]
    assert code == 0 and "gptt" in names and "statdp.iSVT4" in names


def test_readable_table(capsys):
    code, out, _ = run(capsys, "loss", "svt1", "--d1", "0", "--d2", "1", "--output", "F")
    assert code == 0 and "log_ratio" in out and "method" in out


BAD_INPUTS = [
    (["prob", "svt9", "--queries", "0", "--output", "F"], "unknown mechanism 'svt9'"),
    (["prob", "svt1", "--param", "zeta=1", "--queries", "0", "--output", "F"],
     "unknown parameter for svt1: zeta"),
    (["prob", "svt1", "--param", "eps=-1", "--queries", "0", "--output", "F"], "eps=-1"),
    (["prob", "svt1", "--param", "eps=nan", "--queries", "0", "--output", "F"], "eps=nan"),
    (["prob", "svt1", "--param", "eps=0", "--queries", "0", "--output", "F"], "eps=0"),
    (["prob", "svt1", "--param", "sensitivity=0", "--queries", "0", "--output", "F"],
     "sensitivity=0"),
    (["prob", "svt1", "--param", "eps", "--queries", "0", "--output", "F"], "name=value"),
    (["prob", "svt1", "--queries", "0", "--output", "F", "--dps", "0"], "dps=0"),
    (["prob", "svt1", "--queries", "0", "--output", "F", "--dps", "nan"], "invalid int value"),
    (["prob", "svt1", "--queries", "0,inf", "--output", "F,F"], "must be finite, got 'inf'"),
    (["prob", "svt1", "--queries", "0,nan", "--output", "F,F"], "must be finite, got 'nan'"),
    (["prob", "svt1", "--queries", "0", "--output", "X"], "unknown output token"),
    (["prob", "svt1", "--queries", "0,1", "--output", "F"], "does not end with the c-th"),
    (["prob", "svt1", "--queries", "0", "--output", "F,F"], "exceeds the number of queries"),
    (["prob", "svt1", "--queries", "0", "--output", "0.5"], "outputs only T/F"),
    (["prob", "svt3", "--queries", "0", "--output", "T"], "releases a number"),
    (["prob", "svt1", "--param", "c=1", "--queries", "0,0", "--output", "T,T"], "2 ⊤ entries"),
    (["loss", "svt1", "--d1", "0,0", "--d2", "0", "--output", "F,F"], "same length"),
    (["loss", "svt1", "--d1", "0", "--d2", "5", "--output", "F"], "not neighbours"),
    (["maxloss", "gptt", "--param", "eps2=inf", "--d1", "0*13", "--d2", "0*13"],
     "at most 12 queries"),
    (["prob", "svt1", "--queries", "0*0", "--output", "F"], "positive integer"),
    (["prob", "svt1", "--queries", "0", "--output", "F", "--method", "simpson"], "invalid choice"),
]


def exit_code(argv):
    """The exit code of ``exactdp argv``: argparse's usage errors exit, the rest return."""
    try:
        return main(argv)
    except SystemExit as stop:
        return stop.code


@pytest.mark.parametrize("argv, message", BAD_INPUTS)
def test_bad_input_is_one_line_and_exit_code_2(capsys, argv, message):
    code = exit_code(argv)
    err = capsys.readouterr().err
    assert code == 2
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_console_script_exit_code_without_traceback():
    result = subprocess.run([sys.executable, "-m", "exactdp", "prob", "svt1", "--param", "eps=-2",
                             "--queries", "0", "--output", "F"], capture_output=True, text=True)
    assert result.returncode == 2
    assert result.stderr == "exactdp: error: eps must be positive, got eps=-2\n"
