"""``exactdp sweep``: templates, the ``--t`` syntax, the JSON schema, the plot, one-line errors."""

import json
from fractions import Fraction

import pytest

from exactdp.cli import main
from exactdp.errors import InputError
from exactdp.sweep import check_templates, fill, parameter_series, parse_t_values


def run(capsys, *argv):
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_t_lists_ranges_and_log_ranges():
    assert parse_t_values("1, 2,5") == [1, 2, 5]
    assert parse_t_values("0:1:0.25") == [Fraction(k, 4) for k in range(5)]
    assert parse_t_values("1:2:0.3") == [1, Fraction(13, 10), Fraction(16, 10), Fraction(19, 10)]
    values = parse_t_values("1:1000:log")
    assert values[0] == 1 and values[-1] == 1000 and values == sorted(set(values))
    assert all(v.denominator == 1 for v in values)
    # ten points per decade: ratios of consecutive values at most 10^(1/10) once they exceed
    # the rounding to integers (beyond ~20)
    big = [v for v in values if v >= 20]
    assert max(b / a for a, b in zip(big, big[1:])) < 10 ** 0.1 * 1.05
    assert 25 <= len(values) <= 31


@pytest.mark.parametrize("text, message", [
    ("1:2", "must be a list like 1,2,5"),
    ("5:1:1", "is below the start"),
    ("1:2:0", "the step must be positive"),
    ("0:10:log", "a log range needs whole numbers a ≥ 1"),
    ("1.5:10:log", "a log range needs whole numbers"),
    ("1,x", "the t value 'x'"),
    ("1,1", "repeats a value"),
    ("0:100000:1", "at most 2,000"),
])
def test_bad_t_values(text, message):
    with pytest.raises(InputError, match=message):
        parse_t_values(text)


def test_templates():
    assert fill("0*{t},1*{t}", Fraction(3)) == "0*3,1*3"
    assert fill("out0<{t}", Fraction(1, 2)) == "out0<0.5"
    check_templates({"d1": "0*{t}", "d2": "1", "output": None})
    with pytest.raises(InputError, match="no template contains"):
        check_templates({"d1": "0", "d2": "1", "output": "F"})
    with pytest.raises(InputError, match="only the placeholder"):
        check_templates({"d1": "0*{n}", "d2": "1*{t}"})


def test_series_are_every_combination():
    assert parameter_series({"a": ["1", "2"], "b": ["x"]}) == [{"a": "1", "b": "x"},
                                                               {"a": "2", "b": "x"}]
    assert parameter_series({}) == [{}]
    with pytest.raises(InputError, match="repeats a value"):
        parameter_series({"a": ["1", "1"]})


def test_json_schema_and_values(capsys):
    # the Laplace mechanism of scale 1/ε releasing t on D1 = 0, D2 = 1 has the privacy loss
    # ε(|t − 1| − |t|) (Dwork & Roth, Thm 3.6's proof), one series per ε
    code, out, err = run(capsys, "sweep", "histogram", "--param", "eps=0.5,2", "--d1", "0",
                         "--d2", "1", "--output", "{t}", "--t", "-1:2:0.75", "--json")
    assert code == 0
    records = json.loads(out)
    assert [(r["params"]["eps"], r["t"]) for r in records] == \
        [(eps, t) for eps in ("0.5", "2") for t in ("-1", "-0.25", "0.5", "1.25", "2")]
    for r in records:
        # certified by default: the enclosure's ends are printed beside the value
        assert set(r) == {"t", "params", "p1", "p2", "log_ratio", "log_ratio_lower",
                          "log_ratio_upper", "error"}
        assert all(isinstance(r[key], str) for key in ("t", "p1", "p2", "log_ratio", "error"))
        assert float(r["log_ratio_lower"]) <= float(r["log_ratio"]) <= float(r["log_ratio_upper"])
        eps, t = float(r["params"]["eps"]), float(r["t"])
        assert float(r["log_ratio"]) == pytest.approx(eps * (abs(t - 1) - abs(t)), abs=1e-13)
        assert float(r["error"]) < 1e-13


def test_event_templates_and_the_table(capsys):
    # statdp.SVT with N = 1 answers ⊥ everywhere iff every noisy query is below the threshold;
    # the event false_count = t on t queries is that output, so its loss equals the output's
    code, out, _ = run(capsys, "sweep", "statdp.SVT", "--param", "eps=1", "--d1", "0*{t}",
                       "--d2", "1*{t}", "--event", "false_count={t}", "--t", "1,3", "--json")
    events = json.loads(out)
    code2, out2, _ = run(capsys, "sweep", "statdp.SVT", "--param", "eps=1", "--d1", "0*{t}",
                         "--d2", "1*{t}", "--output", "F*{t}", "--t", "1,3", "--json",
                         "--dps", "12")
    outputs = json.loads(out2)
    assert code == code2 == 0
    for event, output in zip(events, outputs):
        assert float(event["log_ratio"]) == pytest.approx(float(output["log_ratio"]), rel=1e-10)
    code, out, _ = run(capsys, "sweep", "statdp.SVT", "--d1", "0*{t}", "--d2", "1*{t}",
                       "--output", "F*{t}", "--t", "2")
    assert code == 0 and "t=2" in out and "ln ratio" in out


def test_plot_is_written(tmp_path, capsys):
    path = tmp_path / "sweep.png"
    code, out, _ = run(capsys, "sweep", "svt1", "--param", "eps=0.5,1", "--d1", "0*{t}",
                       "--d2", "1*{t}", "--output", "F*{t}", "--t", "1:10:log", "--plot",
                       str(path))
    assert code == 0 and f"plot: {path}" in out
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_infinite_points_still_plot(tmp_path, capsys):
    # GPTT with ε2 = ∞: the output F^t T^t has probability exactly 0 on D2 (Chen &
    # Machanavajjhala, Thm 4.7), so every point is +∞
    path = tmp_path / "infinite.png"
    code, out, _ = run(capsys, "sweep", "gptt", "--param", "eps1=0.5", "--param", "eps2=inf",
                       "--d1", "0*{t},1*{t}", "--d2", "1*{t},0*{t}", "--output", "F*{t},T*{t}",
                       "--t", "1,2", "--plot", str(path), "--json")
    assert code == 0 and all(r["log_ratio"] == "inf" for r in json.loads(out))
    assert path.stat().st_size > 0


def test_jobs_do_not_change_the_points(capsys):
    args = ("sweep", "svt1", "--d1", "0*{t}", "--d2", "1*{t}", "--output", "F*{t}", "--t",
            "1,2,3", "--json")
    assert run(capsys, *args)[1] == run(capsys, *args, "--jobs", "2")[1]


@pytest.mark.parametrize("argv, message", [
    (["--t", "1:2"], "--t must be a list"),
    (["--t", "1", "--d1", "0", "--d2", "1", "--output", "F"], "no template contains {t}"),
    (["--t", "1", "--plot", "out.pdf"], "--plot must be a .png file"),
    (["--t", "1", "--param", "nope=1"], "nope"),
])
def test_bad_input_is_one_line_and_exit_2(capsys, argv, message):
    base = {"--d1": "0*{t}", "--d2": "1*{t}", "--output": "F*{t}"}
    for key, value in zip(argv[::2], argv[1::2]):
        base[key] = value
    code, out, err = run(capsys, "sweep", "svt1", *[x for kv in base.items() for x in kv])
    assert code == 2 and out == ""
    # stderr: the progress lines (when the sweep started), then the one error line
    errors = [line for line in err.splitlines() if line.startswith("exactdp")]
    assert len(errors) == 1 and message in errors[0] and err.endswith(errors[0] + "\n"), err
