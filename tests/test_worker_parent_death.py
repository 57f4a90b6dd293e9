"""Local worker processes end when the process that started them dies, however it dies (on
Linux, the parent-death signal), instead of running on as orphans."""

import os
import signal
import subprocess
import sys
import time

import pytest

from tests.test_cli_errors import ROOT, _children, _command_line, _running

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="the parent-death signal is Linux's")


def _workers(pid: int, count: int) -> list[int]:
    """The ``count`` forked workers of the process ``pid`` (they keep its command line), once
    they have started (at most a minute)."""
    for _ in range(600):
        workers = [child for child in _children(pid) if _command_line(child) == _command_line(pid)]
        if len(workers) >= count:
            return workers
        time.sleep(0.1)
    raise AssertionError("the worker processes did not start")


def _still_running(pids: list[int], seconds: float) -> list[int]:
    """The processes among ``pids`` still running after at most ``seconds`` (a hang guard)."""
    deadline = time.monotonic() + seconds
    while any(_running(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.1)
    return [pid for pid in pids if _running(pid)]


def test_workers_end_when_their_parent_is_killed():
    # SIGKILL leaves the parent no chance to end its workers: only the kernel can
    process = subprocess.Popen([sys.executable, "-m", "exactdp", "test", "statdp.SVT",
                                "--select-runs", "2000000", "--jobs", "2"], cwd=ROOT,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    workers = []
    try:
        workers = _workers(process.pid, 2)
        process.kill()
        process.wait(timeout=60)
        assert _still_running(workers, 60) == []
    finally:
        process.kill()
        process.wait(timeout=60)
        for pid in workers:  # a worker that outlived the test must not go on computing
            if _running(pid):
                os.kill(pid, signal.SIGKILL)


CHECK_SCRIPT = """
import os, sys
from exactdp.workers import _die_with_parent
_die_with_parent(os.getppid() + int(sys.argv[1]))
print("alive")
"""


@pytest.mark.parametrize("offset, alive", [(0, True), (1, False)])
def test_a_worker_ends_at_once_if_its_parent_is_not_the_one_that_started_it(offset, alive):
    # a parent that died between the fork and the prctl call would send no signal: the worker
    # finds another parent than the one recorded (an offset of 1 plays that) and ends at once
    finished = subprocess.run([sys.executable, "-c", CHECK_SCRIPT, str(offset)],
                              capture_output=True, text=True, timeout=120, check=False)
    if alive:
        assert (finished.returncode, finished.stdout) == (0, "alive\n")
    else:
        assert (finished.returncode, finished.stdout) == (-signal.SIGKILL, "")
