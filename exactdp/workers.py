"""Worker processes that never outlive the command: :func:`parallel_map`."""

from __future__ import annotations

import multiprocessing
import signal
from concurrent.futures import ProcessPoolExecutor
from typing import Callable, Iterable, Iterator


def parallel_map(function: Callable, items: Iterable, jobs: int) -> Iterator:
    """``function(item)`` for every item, in the order of ``items``, on ``jobs`` worker processes.

    The workers are started with "spawn" (fresh interpreters: forking a process that may hold
    threads is unsafe) and with SIGINT blocked, so Ctrl-C on a terminal, which signals the whole
    process group, interrupts only this process.  Its ``KeyboardInterrupt`` — or an exception of a
    task, or closing the iterator early — terminates the workers at once instead of waiting for
    their running tasks, and is raised again.
    """
    pool = ProcessPoolExecutor(jobs, mp_context=multiprocessing.get_context("spawn"))
    try:
        # the pool starts its workers and threads while tasks are submitted: they inherit the
        # blocked signal; an interrupt meanwhile is delivered once it is unblocked
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            futures = [pool.submit(function, item) for item in items]
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        for future in futures:
            yield future.result()
    except BaseException:
        # ProcessPoolExecutor has no public way to stop running tasks (before Python 3.14)
        for process in list((pool._processes or {}).values()):
            process.terminate()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
