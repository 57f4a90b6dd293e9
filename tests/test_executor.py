"""The executor layer: local worker processes and a Dask cluster give the same results.

The cluster is a ``distributed.LocalCluster`` on the loopback interface (one in-process worker:
light, no server left behind)."""

import json
import os
import time

import pytest

from exactdp.cli import main
from exactdp.errors import InputError
from exactdp.workers import SCHEDULER_VARIABLE, current_scheduler, parallel_map, use_scheduler

TEST = ["test", "statdp.SVT", "--d1", "1,1,1,1,1", "--d2", "2,1,1,1,1", "--runs", "150000",
        "--select-runs", "120000", "--test-eps", "0.2,0.7", "--seed", "4", "--json"]


def square(x):
    return x * x


def wait_for(path: str) -> str:
    """Return ``path`` once that file exists (at once for an empty path; at most a minute)."""
    deadline = time.monotonic() + 60
    while path and not os.path.exists(path):
        if time.monotonic() > deadline:
            raise TimeoutError(path)
        time.sleep(0.01)
    return path


@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=1, threads_per_worker=2, processes=False,
                                  host="127.0.0.1", protocol="tcp", dashboard_address=None) \
            as local:
        yield local


def _json(capsys, argv):
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


def test_local_workers_keep_the_order_of_the_items():
    assert list(parallel_map(square, range(7), 2)) == [x * x for x in range(7)]


def test_local_workers_report_each_item_as_it_finishes(tmp_path):
    # the first item waits until this process has received a result, which another worker
    # must therefore have produced: it cannot come first
    flag = tmp_path / "first-result-received"
    pairs = []
    for pair in parallel_map(wait_for, [str(flag), "", "", ""], 2, completed=True):
        pairs.append(pair)
        flag.touch()
    assert pairs[0][0] != 0 and sorted(pairs) == [(0, str(flag)), (1, ""), (2, ""), (3, "")]


def test_cluster_reports_each_item_as_it_finishes(cluster):
    pairs = list(parallel_map(square, range(7), 1, scheduler=cluster.scheduler_address,
                              completed=True))
    assert sorted(pairs) == [(x, x * x) for x in range(7)]


def test_cluster_keeps_the_order_of_the_items(cluster):
    assert list(parallel_map(square, range(7), 1, scheduler=cluster.scheduler_address)) == \
        [x * x for x in range(7)]


def test_tester_on_the_cluster_returns_what_two_local_workers_return(cluster, capsys):
    local = _json(capsys, TEST + ["--jobs", "2"])
    remote = _json(capsys, TEST + ["--scheduler", cluster.scheduler_address])
    assert remote == local
    assert "count_chunk" in cluster.scheduler.task_prefixes  # the chunks ran on the cluster
    assert current_scheduler() is None  # the command's scheduler does not outlive it


def test_scheduler_from_the_environment(cluster, capsys, monkeypatch):
    local = _json(capsys, TEST)
    monkeypatch.setenv(SCHEDULER_VARIABLE, cluster.scheduler_address)
    assert _json(capsys, TEST) == local


def _one_line_error(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("exactdp: error: ")
    return err[-1]


def test_unreachable_scheduler_is_one_line_and_exit_2(capsys):
    # port 1 on the loopback: nothing listens there
    err = _one_line_error(capsys, TEST + ["--scheduler", "tcp://127.0.0.1:1"])
    assert "cannot reach the Dask scheduler at 'tcp://127.0.0.1:1'" in err


def test_malformed_scheduler_address_is_one_line_and_exit_2(capsys):
    err = _one_line_error(capsys, TEST + ["--scheduler", "localhost"])
    assert "tcp://HOST:PORT" in err and "'localhost'" in err


def test_use_scheduler_checks_the_address():
    with pytest.raises(InputError, match="tcp://HOST:PORT"):
        use_scheduler("8786")
    assert current_scheduler() is None


FORKED_SCRIPT = """
import json, os, pickle
from flint import arb
from exactdp.workers import forked_map, will_fork
third = arb(1) / 3
try:
    pickle.dumps(third)
    pickles = True
except TypeError:
    pickles = False
results = list(forked_map(lambda k: (str(third * k), os.getpid()), range(6), 2))
print(json.dumps(dict(pickles=pickles, forks=[will_fork(2), will_fork(1)], parent=os.getpid(),
                      results=results, expected=[str(third * k) for k in range(6)])))
"""


def test_forked_workers_run_closures_that_do_not_pickle():
    # a closure over an Arb ball (no pickling): run in two forked workers, the results in the
    # order of the items, each from a process other than the parent; in a fresh interpreter,
    # since earlier tests (a Dask cluster) leave threads behind, and then nothing forks
    import subprocess
    import sys

    finished = subprocess.run([sys.executable, "-c", FORKED_SCRIPT], capture_output=True,
                              text=True, timeout=120, check=True)
    report = json.loads(finished.stdout)
    assert not report["pickles"] and report["forks"] == [True, False]
    assert [text for text, _ in report["results"]] == report["expected"]
    assert all(pid != report["parent"] for _, pid in report["results"])


def test_forked_map_runs_here_while_another_thread_runs():
    # forking while another thread may hold a lock is unsafe: the same calls, in this process,
    # and a warning that the workers asked for were not used
    import threading

    from exactdp.workers import forked_map, will_fork

    stop = threading.Event()
    thread = threading.Thread(target=stop.wait)
    thread.start()
    try:
        assert not will_fork(2)
        with pytest.warns(RuntimeWarning, match="jobs=2 not used: this process runs other"):
            results = list(forked_map(lambda k: (k * k, os.getpid()), range(4), 2))
        assert results == [(k * k, os.getpid()) for k in range(4)]
    finally:
        stop.set()
        thread.join()
