"""A sweep keeps what it finished: a point that cannot be computed is a row saying why, the
other points are computed, the exit code is 1.  ``--max-paths`` on every command that traces a
program, and a path count beyond it refused as soon as it is proven
(``exactdp.programs.path_count``), not after the limit's runs."""

import importlib.util
import json
import math
from pathlib import Path

import pytest

from exactdp.cli import main
from exactdp.errors import InputError
from exactdp.mechanisms import entry
from exactdp.programs import path_count, tracing
from exactdp.programs.path_count import PathCounter
from exactdp.sweep import plot, sweep

PROGRAMS = Path(__file__).parent / "programs" / "statdp_algorithms.py"
SVT = f"{PROGRAMS}:svt"
SVT_PARAMS = ["--param", "epsilon=1", "--param", "N=2", "--param", "T=0"]


def _load(module: str):
    spec = importlib.util.spec_from_file_location(module, Path(__file__).parent / "programs" /
                                                  f"{module}.py")
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded


STATDP, CHECKDP, GAUSSIAN = (_load(name) for name in
                             ("statdp_algorithms", "checkdp_algorithms", "gaussian"))
SVT_ARGUMENTS = dict(epsilon=1, N=2, T=0)


def svt(*args, **kwargs):
    """StatDP's SVT with cutoff N (``tests/programs/statdp_algorithms.py``), its calls counted."""
    svt.calls += 1
    return STATDP.svt(*args, **kwargs)


def svt_paths(n: int, c: int) -> int:
    """Execution paths of a Sparse Vector loop over n queries with cutoff c: the outputs with
    fewer than c ⊤ (length n), plus those ending at the c-th ⊤, Σ_{j=c..n} C(j − 1, c − 1) =
    C(n, c) by the hockey-stick identity: Σ_{k≤c} C(n, k) in all."""
    return sum(math.comb(n, k) for k in range(c + 1))


def run(capsys, *argv):
    code = main([str(arg) for arg in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


# ----------------------------------------------------------------------------- the path counter

def svt_tree_run(n: int, c: int, prefix: list, answer: bool) -> list:
    """The decisions of one run through the tree of a Sparse Vector loop (one decision per
    query until the c-th True): ``prefix``, then ``answer`` for every new decision."""
    decisions = []
    for position in range(n):
        decisions.append(prefix[position] if position < len(prefix) else answer)
        if sum(decisions) == c:
            break
    return decisions


def count(n: int, c: int, limit: int) -> PathCounter:
    """The counter run on the Sparse Vector tree until it knows the tree or proves more than
    ``limit`` paths (as often as it asks: the trace's runs between its own do not matter)."""
    counter = PathCounter(start=0)
    while counter.due(math.inf) and counter.nodes + 1 <= limit:
        prefix, answer = counter.next_run()
        counter.record(svt_tree_run(n, c, prefix, answer), len(prefix))
    return counter


@pytest.mark.parametrize("n, c", [(1, 1), (6, 1), (8, 3), (12, 12), (15, 2)])
def test_the_counter_finds_every_path_and_no_more(n, c):
    # a tree known whole: decision nodes + 1 is its number of leaves, the closed form
    counter = count(n, c, limit=10**9)
    assert not counter.due(math.inf)
    assert counter.nodes + 1 == svt_paths(n, c)


def test_the_counter_proves_a_large_count_in_few_runs():
    # cutoff 2 over 398 queries: Σ_{k≤2} C(398, k) = 79,402 paths, more than 65,536; the
    # depth-first trace needs 65,537 runs to see it.  The first run sees 398 decisions, the
    # all-False run from the True branch at depth d then 397 − d: 398 + Σ_{d<232} (397 − d) =
    # 65,706 ≥ 65,536 nodes after 233 runs; one run in 16 tries True (short): about 250 in all
    assert svt_paths(398, 2) > tracing.PATH_LIMIT
    counter = count(398, 2, limit=tracing.PATH_LIMIT)
    assert counter.nodes + 1 > tracing.PATH_LIMIT
    assert counter.runs < 300


def test_the_trace_is_refused_early():
    # 200 queries, cutoff 2: 20,101 paths; with the limit 4,096 the trace alone runs the
    # program 4,097 times before it refuses.  The counter starts after 4,096 / 64 = 64 runs and
    # then runs after each run of the trace (while its runs see ≳ 128 new nodes): 200 nodes,
    # then 199 − d from depth d, 200 + Σ_{d<21} (199 − d) = 4,169 ≥ 4,096 after 22 runs of the
    # counter (and a few short ones): about 64 + 2·(22 + 2) calls
    svt.calls = 0
    with pytest.raises(InputError, match=r"^the program has more than 4,096 execution paths on "
                                         r"200 queries \(raise --max-paths \(Python: "
                                         r"path_limit\) or use fewer queries\)$"):
        tracing.trace(svt, [0] * 200, SVT_ARGUMENTS, limit=4096, progress=False)
    assert svt.calls < 200


@pytest.mark.parametrize("function, queries, kwargs", [
    (STATDP.svt, [0, 1, 0, 2, 1, 0], SVT_ARGUMENTS),
    (STATDP.isvt1, [1, 1, 0, 1], SVT_ARGUMENTS),       # repeated comparisons are implied
    (STATDP.isvt2, [0, 1, 2, 0], SVT_ARGUMENTS),
    (STATDP.isvt4, [0, 1, 0, 1, 0], SVT_ARGUMENTS),     # releases
    (STATDP.noisy_max_v1a, [0, 1, 2, 1], dict(epsilon=1)),  # argmax: a chain per event
    (STATDP.noisy_max_v2b, [0, 1, 2], dict(epsilon=1)),
    (CHECKDP.gap_svt, [0, 1, 0, 1, 2], SVT_ARGUMENTS),
    (CHECKDP.num_svt, [1, 0, 1, 0, 1], SVT_ARGUMENTS),
    (GAUSSIAN.gaussian_svt, [0, 1, 0, 1, 0, 1], {}),
    (GAUSSIAN.negated_threshold, [0, 1, 1], {}),
])
def test_the_counter_knows_every_traced_tree(monkeypatch, function, queries, kwargs):
    # the depth-first trace's runs are the leaves of the tree of decisions (the independent
    # count); a counter running after each of them explores the whole tree by the last one,
    # and must find exactly one decision node fewer — never more, or it would refuse a trace
    # within its limit
    def counted(*args, **kwargs):
        counted.calls += 1
        return function(*args, **kwargs)

    counted.calls = 0
    tracing.trace(counted, queries, kwargs, limit=10**9, progress=False)  # no counter
    runs = counted.calls
    counters = []

    def counter(start):
        counters.append(PathCounter(start))
        return counters[-1]

    monkeypatch.setattr(tracing, "PathCounter", counter)
    monkeypatch.setattr(tracing, "COUNT_AFTER_SHARE", 10**9)  # from the first run on
    monkeypatch.setattr(path_count, "SPACING", 1)              # after every run
    tracing.trace(counted, queries, kwargs, limit=runs, progress=False)
    (known,) = counters
    assert not known.due(math.inf) and known.nodes + 1 == runs


@pytest.mark.parametrize("limit, refused", [(svt_paths(30, 3), False),
                                            (svt_paths(30, 3) - 1, True)])
def test_the_counter_never_refuses_a_trace_within_the_limit(limit, refused):
    # 30 queries, cutoff 3: 4,526 paths (svt_paths), every one feasible; the counter starts
    # after 4,526 // 64 = 70 runs of the trace
    if refused:
        with pytest.raises(InputError, match="more than 4,525 execution paths"):
            tracing.trace(svt, [0] * 30, dict(epsilon=1, N=3, T=0), limit=limit,
                          progress=False)
    else:
        svt.calls = 0
        paths = tracing.trace(svt, [0] * 30, dict(epsilon=1, N=3, T=0), limit=limit,
                              progress=False)
        assert len(paths) == svt_paths(30, 3)
        assert svt.calls > len(paths)  # the counter did run


@pytest.mark.parametrize("limit", [0, -1, 2.5, True])
def test_the_path_limit_must_be_a_positive_integer(limit):
    with pytest.raises(InputError, match=r"^path_limit must be a positive integer, got "
                                         r"path_limit="):
        tracing.trace(svt, [0], dict(epsilon=1, N=1, T=0), limit=limit)


# ----------------------------------------------------------------------------- --max-paths

COMMANDS = {
    "prob": ["--queries", "0*5", "--output", "F*5"],
    "loss": ["--d1", "0*5", "--d2", "1*5", "--output", "F*5"],
    "maxloss": ["--d1", "0*5", "--d2", "1*5"],
    "profile": ["--d1", "0*5", "--d2", "1*5", "--eps", "1"],
    "renyi": ["--d1", "0*5", "--d2", "1*5", "--alpha", "2"],
    "search": ["--max-length", "5", "--evaluations", "2"],
    "test": ["--d1", "0*5", "--d2", "1*5", "--runs", "200"],
    "crosscheck": ["--d1", "0*5", "--d2", "1*5", "--runs", "200"],
    "sweep": ["--d1", "0*{t}", "--d2", "1*{t}", "--output", "F*{t}", "--t", "5"],
}


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_that_traces_takes_max_paths(capsys, command):
    # cutoff 2 on 5 queries: 16 paths (svt_paths), on the search's single query 2: more than 1
    code, out, err = run(capsys, command, SVT, *SVT_PARAMS, "--max-paths", "1",
                         *COMMANDS[command])
    assert "the program has more than 1 execution paths on" in out + err
    assert "(raise --max-paths (Python: path_limit) or use fewer queries)" in out + err
    assert code == {"test": 0, "crosscheck": 1, "sweep": 1}.get(command, 2)


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize("value", ["0", "-3", "1.5", "many"])
def test_max_paths_must_be_a_positive_integer(capsys, command, value):
    with pytest.raises(SystemExit) as info:
        main([command, SVT, "--max-paths", value])
    err = capsys.readouterr().err
    assert info.value.code == 2 and err.count("\n") == 1
    assert "--max-paths must be a positive integer, got --max-paths=" in err


def test_max_paths_lets_a_larger_trace_through(capsys):
    # 12 queries, cutoff 2: 79 paths; refused under 79, traced at 79
    args = ["loss", SVT, *SVT_PARAMS, "--d1", "0*12", "--d2", "1*12", "--output", "F*12",
            "--json"]
    assert run(capsys, *args, "--max-paths", "78")[0] == 2
    code, out, _ = run(capsys, *args, "--max-paths", "79")
    assert code == 0 and json.loads(out)["log_ratio"]


# ----------------------------------------------------------------------------- sweeps

def test_an_impossible_series_does_not_abort_the_others(capsys):
    # svt1 with c = 1 stops after its first ⊤: the output F^t,T,T is not one of its outputs;
    # with c = 2 it is
    code, out, err = run(capsys, "sweep", "svt1", "--param", "c=2,1", "--d1", "0*{t},0,0",
                         "--d2", "1*{t},1,1", "--output", "F*{t},T,T", "--t", "1,2", "--json")
    records = json.loads(out)
    assert code == 1
    assert [(r["params"]["c"], r["t"]) for r in records] == \
        [("2", "1"), ("2", "2"), ("1", "1"), ("1", "2")]
    for r in records[:2]:
        assert "failure" not in r and float(r["p1"]) > 0
    for r in records[2:]:
        assert set(r) == {"t", "params", "failure"}
        assert "c=1" in r["failure"] and "got 2 ⊤" in r["failure"]
        assert "\n" not in r["failure"]
    assert err.splitlines()[-1] == ("exactdp: cannot answer: 2 of 4 points failed (their rows "
                                    "say why)")


def test_a_failed_point_is_a_row_of_the_table(capsys):
    # t = 0 gives the repeat count 0*0, not a positive integer; t = 1 and 2 are computed
    code, out, err = run(capsys, "sweep", "svt1", "--d1", "0*{t}", "--d2", "1*{t}", "--output",
                         "F*{t}", "--t", "0,1,2")
    rows = [line for line in out.splitlines() if line.startswith("  t=")]
    assert code == 1 and len(rows) == 3
    assert rows[0].startswith("  t=0  failed: ") and "0*0" in rows[0]
    assert all("ln ratio" in row for row in rows[1:])
    assert err.splitlines()[-1].startswith("exactdp: cannot answer: 1 of 3 points failed")


def test_a_sweep_keeps_the_points_before_a_trace_beyond_the_limit(capsys):
    # a sweep of cutoff 2 over many t, smaller: t = 1 and 2 have 2 and 4 paths, t = 200 has
    # 20,101, more than --max-paths 4,096: refused early, the other two printed
    code, out, _ = run(capsys, "sweep", SVT, *SVT_PARAMS, "--d1", "0*{t}", "--d2", "1*{t}",
                       "--output", "F*{t}", "--t", "1,2,200", "--max-paths", "4096", "--json")
    records = json.loads(out)
    assert code == 1 and [r["t"] for r in records] == ["1", "2", "200"]
    assert all("log_ratio" in r for r in records[:2])
    assert records[2]["failure"] == ("the program has more than 4,096 execution paths on 200 "
                                     "queries (raise --max-paths (Python: path_limit) or use "
                                     "fewer queries)")


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_library_returns_failed_points(jobs):
    series = [({"c": c}, entry("svt1").make(c=c)) for c in ("2", "1")]
    points = sweep(series, "0*{t},0,0", "1*{t},1,1", [1], output="F*{t},T,T", jobs=jobs)
    assert [p.failure is None for p in points] == [True, False]
    assert points[0].loss is not None and points[1].loss is None
    assert points[1].record(6) == {"t": "1", "params": {"c": "1"}, "failure": points[1].failure}


def test_the_plot_skips_failed_points_and_says_where(tmp_path, monkeypatch):
    drawn = []
    monkeypatch.setattr("exactdp.claims.plots.draw", lambda spec, path: drawn.append(spec))
    series = [({"c": c}, entry("svt1").make(c=c)) for c in ("2", "1")]
    points = sweep(series, "0*{t},0,0", "1*{t},1,1", [1, 2], output="F*{t},T,T")
    plot(points, [None, None], tmp_path / "p.png", "svt1")
    (panel,) = drawn[0].panels
    curves = {curve.label: curve for curve in panel.curves}
    assert len(curves["c=2"].x) == 2
    assert len(curves["c=1 (failed at t = 1, 2)"].x) == 0
