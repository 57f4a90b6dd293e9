"""A Dask scheduler address is checked when it is given: an unknown scheme at once, and a port
that does not answer as a Dask scheduler within :data:`exactdp.cluster.CONNECT_TIMEOUT` seconds
(the handshake included); either is one line on stderr and exit status 2, with no traceback."""

import socket
import subprocess
import sys
import threading

import pytest

from exactdp.errors import InputError
from exactdp.workers import current_scheduler, parallel_map, use_scheduler
from tests.test_cli_errors import ROOT

distributed = pytest.importorskip("distributed")

TEST = ["test", "statdp.SVT", "--d1", "1,1,1,1,1", "--d2", "2,1,1,1,1", "--runs", "150000",
        "--select-runs", "120000", "--test-eps", "0.7", "--seed", "4"]


class SilentServer:
    """A TCP server on the loopback that accepts every connection and never says a word."""

    def __init__(self):
        self.socket = socket.create_server(("127.0.0.1", 0))
        self.address = f"tcp://127.0.0.1:{self.socket.getsockname()[1]}"
        self.accepted = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self):
        while True:
            try:
                self.accepted.append(self.socket.accept()[0])
            except OSError:  # closed
                return

    def close(self):
        self.socket.shutdown(socket.SHUT_RDWR)
        self.socket.close()
        self.thread.join()
        for connection in self.accepted:
            connection.close()


@pytest.fixture
def silent_server():
    server = SilentServer()
    yield server
    server.close()


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  host="127.0.0.1", protocol="tcp", dashboard_address=None) \
            as local:
        yield local


def run_command(address: str) -> subprocess.CompletedProcess:
    """``exactdp test … --scheduler address`` in a fresh process (its exit at the end is part of
    what is checked); the timeout is a hang guard."""
    return subprocess.run([sys.executable, "-m", "exactdp", *TEST, "--scheduler", address],
                          cwd=ROOT, capture_output=True, text=True, timeout=120, check=False)


def assert_one_line_error(finished: subprocess.CompletedProcess) -> str:
    assert finished.returncode == 2, finished.stderr
    assert finished.stdout == ""
    assert finished.stderr.count("\n") == 1 and "Traceback" not in finished.stderr, \
        finished.stderr
    assert finished.stderr.startswith("exactdp: error: ")
    return finished.stderr


def test_an_http_address_is_refused_before_any_work(silent_server):
    address = silent_server.address.replace("tcp://", "http://")
    err = assert_one_line_error(run_command(address))
    assert f"{address!r}" in err and "scheme 'http'" in err and "tcp://HOST:PORT" in err
    assert silent_server.accepted == []  # refused without connecting


def test_a_port_that_is_no_dask_scheduler_is_one_line_and_exit_2(silent_server):
    # the server accepts the connection and never answers Dask's handshake
    err = assert_one_line_error(run_command(silent_server.address))
    assert f"cannot reach the Dask scheduler at {silent_server.address!r} within" in err
    assert silent_server.accepted  # it was the handshake that went unanswered


def test_a_dask_worker_is_no_scheduler(cluster):
    worker = next(iter(cluster.scheduler.workers))
    with pytest.raises(InputError, match=f"{worker!r} is a Dask Worker, not a scheduler"):
        use_scheduler(worker)
    assert current_scheduler() is None


@pytest.mark.parametrize("address, problem", [
    ("http://127.0.0.1:8786", "scheme 'http'"),
    ("tcp://127.0.0.1", "missing port number"),
    ("tcp://127.0.0.1:port", "'tcp://127.0.0.1:port'"),
    ("tcp://127.0.0.1:65536", "the port 65536 is not between 1 and 65535"),
])
def test_malformed_addresses_are_refused_without_connecting(address, problem):
    with pytest.raises(InputError, match="tcp://HOST:PORT") as refused:
        use_scheduler(address)
    assert problem in str(refused.value) and current_scheduler() is None


def test_a_bare_host_and_port_is_tcp_as_for_dask(cluster):
    # Dask reads an address without a scheme with its default scheme, tcp
    bare = cluster.scheduler_address.removeprefix("tcp://")
    assert list(parallel_map(abs, [-1, -2, 3], 1, scheduler=bare)) == [1, 2, 3]
    use_scheduler(bare)
    try:
        assert current_scheduler() == bare
    finally:
        use_scheduler(None)


def test_tasks_of_one_worker_process_run_one_at_a_time():
    # a Dask worker with several threads runs its tasks in one process, whose FLINT and mpmath
    # precisions are shared: cluster.OneAtATime lets one task in at a time
    import time
    from concurrent.futures import ThreadPoolExecutor

    from exactdp.cluster import OneAtATime

    running, most = [0], [0]

    def task(item):
        running[0] += 1
        most[0] = max(most[0], running[0])
        time.sleep(0.02)
        running[0] -= 1
        return item * 2

    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(OneAtATime(task), range(8))) == list(range(0, 16, 2))
    assert most[0] == 1
