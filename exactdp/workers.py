"""The executor layer: every embarrassingly parallel job goes through :func:`parallel_map`.

``parallel_map(function, items, jobs)`` runs ``function(item)`` for every item and yields the
results in the order of the items, on one of two back-ends:

* local worker processes (the default; no server needed), started when the call starts and ended
  when it ends, or when this process dies however it dies (on Linux, the parent-death signal:
  :func:`_die_with_parent`) — "fork"ed from this process when it runs a single thread, so a
  worker starts in milliseconds with the modules already imported, "spawn"ed (fresh
  interpreters) otherwise, since forking a process that holds threads is unsafe;
* an existing Dask cluster (``exactdp.cluster``), when a scheduler address is given — to the
  call, or process-wide with :func:`use_scheduler` (the command line's ``--scheduler``, which
  defaults to the environment variable ``EXACTDP_SCHEDULER``).

The results do not depend on the back-end or the number of workers as long as each item carries
its own seed (the tester's chunks seed from spawn keys).

:func:`forked_map` serves work whose function does not pickle (the utility's quadrature, closures
over Arb balls): local workers forked from this process, which inherit the function.
"""

from __future__ import annotations

import ctypes
import multiprocessing
import os
import signal
import sys
import threading
import warnings
from concurrent.futures import ProcessPoolExecutor, as_completed
from typing import Callable, Iterable, Iterator

#: The environment variable the command line reads the default scheduler address from.
SCHEDULER_VARIABLE = "EXACTDP_SCHEDULER"

_scheduler: str | None = None
_local_jobs = 1
_forked: Callable | None = None  # the function forked_map's workers run


def use_scheduler(address: str | None) -> None:
    """Send every later :func:`parallel_map` of this process to the Dask scheduler at
    ``address`` (``None``: back to local worker processes), once
    :func:`exactdp.cluster.check_scheduler` has found a Dask scheduler there (an
    :class:`~exactdp.errors.InputError` otherwise, within seconds)."""
    global _scheduler
    if address:
        from .cluster import check_scheduler  # distributed is imported only when a cluster is used

        check_scheduler(address)
    _scheduler = address or None


def current_scheduler() -> str | None:
    """The address set by :func:`use_scheduler` (``None``: local worker processes)."""
    return _scheduler


def use_local_jobs(jobs: int) -> None:
    """Let the computations of this process that fork workers of their own
    (:func:`forked_map`: the utility's quadrature) use ``jobs`` of them wherever their caller
    names no number (``exactdp reproduce`` sets its ``--jobs`` in each claim's worker)."""
    global _local_jobs
    _local_jobs = jobs


def local_jobs() -> int:
    """The number set by :func:`use_local_jobs` (1: none)."""
    return _local_jobs


def scheduler_from_environment() -> str | None:
    """The address in ``EXACTDP_SCHEDULER``, if set and not empty."""
    return os.environ.get(SCHEDULER_VARIABLE, "").strip() or None


def parallel_map(function: Callable, items: Iterable, jobs: int,
                 scheduler: str | None = None, completed: bool = False) -> Iterator:
    """``function(item)`` for every item, in the order of ``items`` (or, with ``completed``,
    ``(index, result)`` pairs in the order the tasks finish: to report long tasks as they end).

    Parameters
    ----------
    function : callable
        A module-level function (it is pickled by reference).
    items : iterable
    jobs : int
        Local worker processes (ignored on a Dask cluster, which has its own workers).
    scheduler : str, optional
        A Dask scheduler address such as ``tcp://host:8786``; default: the one set by
        :func:`use_scheduler`, else local processes.
    completed : bool
        Yield ``(index of the item, result)`` as each task finishes.

    Local workers have SIGINT blocked, so Ctrl-C on a terminal, which signals the whole process
    group, interrupts only this process, and SIGTERM at its default.  Its ``KeyboardInterrupt``
    (the command line's SIGTERM is one too) — or an exception of a task, or
    closing the iterator early — ends the workers (or cancels the cluster's tasks) at once
    instead of waiting for their running tasks, and is raised again.
    """
    address = scheduler or _scheduler
    if address is not None:
        from .cluster import cluster_map  # distributed is imported only when a cluster is used
        return cluster_map(function, items, address, completed)
    return _local_map(function, items, jobs, completed)


def forked_map(function: Callable, items: Iterable, jobs: int) -> Iterator:
    """``function(item)`` for every item, in the order of the items, in ``jobs`` worker
    processes forked from this one: ``function`` may be any callable (a closure over objects
    that do not pickle), since the workers inherit it; only the items and results are pickled.
    With ``jobs`` 1, or where this process cannot fork safely (it runs other threads, or the
    platform has no fork: a ``RuntimeWarning`` says so), the calls run here, one by one — the
    same results.  Interrupts and errors end the workers as in :func:`parallel_map`; a Dask
    scheduler is never used."""
    global _forked
    if not will_fork(jobs):
        if jobs > 1:
            warnings.warn(f"jobs={jobs} not used: this process runs other threads (or cannot "
                          f"fork), so worker processes cannot be forked from it safely; "
                          f"computing in this process", RuntimeWarning, stacklevel=3)
        yield from map(function, items)
        return
    _forked = function
    try:
        yield from _local_map(_call_forked, items, jobs, False, multiprocessing.get_context("fork"))
    finally:
        _forked = None


def will_fork(jobs: int) -> bool:
    """Whether :func:`forked_map` with ``jobs`` workers forks them (else it runs here)."""
    return jobs > 1 and _can_fork()


def _call_forked(item):
    """Run the function :func:`forked_map` left for the forked workers."""
    return _forked(item)


def _can_fork() -> bool:
    """Whether a fork copies no lock held by another thread: this process runs one thread, and
    the platform forks."""
    return threading.active_count() == 1 and "fork" in multiprocessing.get_all_start_methods()


def _context():
    """The start method of local workers: ``fork`` when this process runs one thread (a fork
    then copies no lock held by another thread), ``spawn`` otherwise."""
    return multiprocessing.get_context("fork" if _can_fork() else "spawn")


#: The signal a local worker receives when its parent dies: it cannot be caught or ignored, and a
#: worker has nothing to save (its results have nowhere to go).
PARENT_DEATH_SIGNAL = signal.SIGKILL

#: ``prctl``'s option that sets the parent-death signal (``<linux/prctl.h>``).
_PR_SET_PDEATHSIG = 1


def _start_worker(parent_pid: int) -> None:
    """Prepare a local worker started by the process ``parent_pid``: it dies with its parent
    (:func:`_die_with_parent`), and of SIGTERM at once (a forked one inherits the command line's
    handler)."""
    _die_with_parent(parent_pid)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _die_with_parent(parent_pid: int) -> None:
    """Have the kernel send this process :data:`PARENT_DEATH_SIGNAL` when its parent dies,
    however it dies (``kill -9`` included, which leaves the parent no chance to end its workers):
    Linux's ``prctl(PR_SET_PDEATHSIG)``; elsewhere nothing.

    The parent may have died between the fork and this call, sending nothing: this process then
    has another parent than ``parent_pid`` (the one recorded before the fork) and ends at once.
    Linux sends the signal when the *thread* that started this process ends; the workers of
    :func:`parallel_map` and :func:`forked_map` are started by the thread that asks for their
    first result.
    """
    if not sys.platform.startswith("linux"):
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, int(PARENT_DEATH_SIGNAL), 0, 0, 0) != 0:
        errno = ctypes.get_errno()
        raise OSError(errno, f"prctl(PR_SET_PDEATHSIG) failed: {os.strerror(errno)}")
    if os.getppid() != parent_pid:
        os.kill(os.getpid(), PARENT_DEATH_SIGNAL)


def _local_map(function: Callable, items: Iterable, jobs: int, completed: bool,
               context=None) -> Iterator:
    pool = ProcessPoolExecutor(jobs, mp_context=context or _context(),
                               initializer=_start_worker, initargs=(os.getpid(),))
    try:
        # the pool starts its workers and threads while tasks are submitted: they inherit the
        # blocked signal; an interrupt meanwhile is delivered once it is unblocked
        previous = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            futures = [pool.submit(function, item) for item in items]
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, previous)
        if completed:
            index = {future: k for k, future in enumerate(futures)}
            for future in as_completed(futures):
                yield index[future], future.result()
        else:
            for future in futures:
                yield future.result()
    except BaseException:
        # ProcessPoolExecutor has no public way to stop running tasks (before Python 3.14)
        for process in list((pool._processes or {}).values()):
            process.terminate()
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
