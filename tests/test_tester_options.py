"""The tester's StatDP options: ``--lengths``, ``--neighbours``, ``--reselect``,
``--log-events``."""

import csv
import json
import math

import pytest

from exactdp.cli import main
from exactdp.sampling.hypothesis import p_value
from exactdp.sampling.tester import FILTER

#: A small, fast budget (counts only need to exist, verdicts are not judged here).
BUDGET = ("--runs", "2000", "--select-runs", "1000")


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse's own errors (also one line, exit 2)
        code = exc.code
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _log(capsys, tmp_path, *options, suffix=".json"):
    path = tmp_path / f"events{suffix}"
    code, out, _ = run(capsys, "test", "statdp.SVT", "--param", "eps=0.7", *BUDGET,
                       "--log-events", str(path), *options)
    assert code == 0 and str(path) in out
    return path


def test_event_log_json_has_every_candidate_and_its_p_value(capsys, tmp_path):
    rows = json.loads(_log(capsys, tmp_path, "--test-eps", "0.5,1.5", "--lengths", "5")
                      .read_text())
    # statdp.SVT's view: false_count = 0..5 on the 8 patterns of length 5, for each test ε
    assert len(rows) == 2 * 8 * 6
    for row in rows:
        assert set(row) == {"test_eps", "d1", "d2", "event", "c1", "c2", "p_value", "selected"}
        assert len(row["d1"].split(",")) == 5
        # the filter of Ding et al., footnote 3, and the p-value of the larger count
        if row["c1"] + row["c2"] < FILTER * 1000 * math.exp(row["test_eps"]):
            assert row["p_value"] is None
        else:
            assert row["p_value"] == p_value(max(row["c1"], row["c2"]),
                                             min(row["c1"], row["c2"]), 1000, row["test_eps"])
    for eps in (0.5, 1.5):
        chosen = [r for r in rows if r["test_eps"] == eps and r["selected"]]
        candidates = [r["p_value"] for r in rows if r["test_eps"] == eps and r["p_value"]
                      is not None]
        assert len(chosen) == 1 and chosen[0]["p_value"] == min(candidates)


def test_event_log_csv(capsys, tmp_path):
    with open(_log(capsys, tmp_path, "--test-eps", "1", "--lengths", "5", suffix=".csv")) as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 8 * 6 and sum(r["selected"] == "True" for r in rows) == 1
    assert {r["event"] for r in rows} == {f"false_count={k}" for k in range(6)}


def test_one_selection_serves_every_eps_unless_reselect(capsys, tmp_path):
    def counts(*options):
        rows = json.loads(_log(capsys, tmp_path, "--test-eps", "0.5,1", "--lengths", "5",
                               *options).read_text())
        return [[(r["c1"], r["c2"]) for r in rows if r["test_eps"] == eps] for eps in (0.5, 1)]

    shared = counts()
    assert shared[0] == shared[1]
    fresh = counts("--reselect")
    assert fresh[0] != fresh[1] and fresh == counts("--reselect")


def test_lengths_and_neighbours_choose_the_patterns(capsys, tmp_path):
    rows = json.loads(_log(capsys, tmp_path, "--test-eps", "1", "--lengths", "3,4",
                           "--neighbours", "one").read_text())
    pairs = {(r["d1"], r["d2"]) for r in rows}
    # one differ: only "one above" and "one below" (Ding et al. Table 1), at lengths 3 and 4
    assert pairs == {("1,1,1", "2,1,1"), ("1,1,1", "0,1,1"), ("1,1,1,1", "2,1,1,1"),
                     ("1,1,1,1", "0,1,1,1")}


@pytest.mark.parametrize("argv, message", [
    (["--lengths", "5,x"], "lengths must be a list of whole numbers"),
    (["--lengths", "0"], "input length must be a positive integer"),
    (["--neighbours", "some"], "invalid choice: 'some'"),
    (["--log-events", "events.txt"], "the event log must be a .json or .csv file"),
    (["--neighbours", "one", "--d1", "1,1", "--d2", "2,2"], "neighbours differ in one query"),
])
def test_bad_options_are_one_line(capsys, argv, message):
    code, out, err = run(capsys, "test", "statdp.SVT", *BUDGET, *argv)
    assert code == 2 and out == "" and message in err and err.count("\n") == 1, err
