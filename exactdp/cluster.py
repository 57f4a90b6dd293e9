"""Jobs on an existing Dask cluster (``dask scheduler`` and ``dask worker``; Dask's
``distributed`` package): :func:`cluster_map`, the cluster back-end of
:func:`exactdp.workers.parallel_map`.

Every worker must have exactdp installed (the same version): a task names its function by module
and name, and the worker imports it.
"""

from __future__ import annotations

from typing import Callable, Iterable, Iterator

from .errors import InputError

#: Seconds to wait for the scheduler before giving up.
CONNECT_TIMEOUT = 5


def connect(address: str):
    """A ``distributed.Client`` of the scheduler at ``address`` (an :class:`InputError` naming the
    address when it cannot be reached within :data:`CONNECT_TIMEOUT` seconds)."""
    import distributed

    try:
        return distributed.Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
        raise InputError(f"cannot reach the Dask scheduler at {address!r} within "
                         f"{CONNECT_TIMEOUT} s: {reason}") from None


def cluster_map(function: Callable, items: Iterable, address: str,
                completed: bool = False) -> Iterator:
    """``function(item)`` for every item on the cluster at ``address``, yielded in the order of
    ``items`` (with ``completed``, ``(index, result)`` pairs as the tasks finish).  An interrupt,
    an exception of a task or closing the iterator early cancels the tasks not yet done."""
    import distributed

    client = connect(address)
    futures = []
    try:
        futures = client.map(function, list(items), pure=False)
        if completed:
            index = {future.key: k for k, future in enumerate(futures)}
            for future in distributed.as_completed(futures, loop=client.loop):
                yield index[future.key], future.result()
        else:
            for future in futures:
                yield future.result()
    except BaseException:
        client.cancel(futures)
        raise
    finally:
        client.close()
