"""Jobs on an existing Dask cluster (``dask scheduler`` and ``dask worker``; Dask's
``distributed`` package): :func:`cluster_map`, the cluster back-end of
:func:`exactdp.workers.parallel_map`, and :func:`check_scheduler`, which refuses an address that
is no Dask scheduler's before any work starts.

Every worker must have exactdp installed (the same version): a task names its function by module
and name, and the worker imports it.  The precisions of FLINT (``flint.ctx``) and mpmath
(``mpmath.mp``) are process-wide settings that every computation changes and restores, so two
tasks in two threads of one worker process would change each other's: each task runs under a
per-process lock (:class:`OneAtATime`), and a worker started with several threads computes one
task at a time, correctly (one thread per worker process is still the configuration to use).
"""

from __future__ import annotations

import asyncio
import functools
import threading
from typing import Callable, Iterable, Iterator

from .errors import InputError

#: Seconds a scheduler has to accept the connection, answer Dask's handshake and say what it is
#: (and again for the client to connect) before the address is refused.
CONNECT_TIMEOUT = 5

#: The largest TCP port number.
MAX_PORT = 65535


def check_address(address: str) -> None:
    """Refuse, without connecting, an ``address`` Dask cannot connect to: a scheme Dask has no
    transport for (it has ``tcp``, ``tls``, ``inproc``, ``ucx``, ``ws``, ``wss`` and those that
    installed packages add), or a location a host-and-port transport cannot read (no port, a
    port that is not a number, or not a port number).  Without a scheme, ``HOST:PORT`` is read
    as Dask reads it: with Dask's default scheme, ``tcp`` unless configured otherwise.

    Raises
    ------
    InputError
        Naming the address and what is wrong with it.
    """
    from distributed.comm import parse_address, registry

    scheme, location = parse_address(address)
    try:
        transport = registry.get_backend(scheme)
    except ValueError:
        raise InputError(f"a Dask scheduler address looks like tcp://HOST:PORT, got {address!r}: "
                         f"Dask knows no scheme {scheme!r} (it knows "
                         f"{', '.join(sorted(registry.backends))})") from None
    try:
        _, port = transport.get_address_host_port(location)
    except NotImplementedError:  # a transport not addressed by host and port (inproc, ucx)
        return
    except ValueError as exc:
        raise InputError(f"a Dask scheduler address looks like tcp://HOST:PORT, got {address!r}: "
                         f"{exc}") from None
    if not 1 <= port <= MAX_PORT:
        raise InputError(f"a Dask scheduler address looks like tcp://HOST:PORT, got {address!r}: "
                         f"the port {port} is not between 1 and {MAX_PORT}")


def check_scheduler(address: str) -> None:
    """Refuse an ``address`` that is no Dask scheduler's: :func:`check_address`, then a
    connection of its own on which the server must answer Dask's handshake and its ``identity``
    request as a ``Scheduler``, all within :data:`CONNECT_TIMEOUT` seconds.

    Dask's own connection bounds the connecting only: a port that accepts the connection and
    never answers its handshake would hold it for as long as the connection stays open.

    Raises
    ------
    InputError
        Naming the address and why it was refused: malformed, unreachable, silent, or another
        kind of Dask server (a worker or a nanny).
    """
    check_address(address)
    try:
        answer = _identity(address)
    except asyncio.TimeoutError:
        raise _unreachable(address, "no connection, or no answer to Dask's handshake") from None
    except Exception as exc:  # noqa: BLE001 - refused, unreachable, or an answer Dask cannot read
        raise _unreachable(address, _first_line(exc)) from None
    kind = answer.get("type") if isinstance(answer, dict) else None
    if kind != "Scheduler":
        what = f"a Dask {kind}" if isinstance(kind, str) else "no Dask server"
        raise InputError(f"{address!r} is {what}, not a scheduler")


def _identity(address: str):
    """The answer of the server at ``address`` to Dask's ``identity`` request, asked on a
    connection of its own that is closed afterwards; the connection, the handshake and the answer
    together take at most :data:`CONNECT_TIMEOUT` seconds (else ``asyncio.TimeoutError``).  It
    runs its event loop in a thread of its own, since the caller's thread may be running one (a
    notebook's)."""
    import distributed
    from distributed.core import send_recv

    async def ask():
        comm = await distributed.comm.connect(address, timeout=CONNECT_TIMEOUT)
        try:
            return await send_recv(comm, op="identity")
        finally:
            comm.abort()

    outcome = {}

    def run():
        try:
            outcome["answer"] = asyncio.run(asyncio.wait_for(ask(), CONNECT_TIMEOUT))
        except BaseException as exc:  # noqa: BLE001 - raised again in the caller's thread
            outcome["error"] = exc

    thread = threading.Thread(target=run, name="exactdp-scheduler-check", daemon=True)
    thread.start()
    thread.join()
    if "error" in outcome:
        raise outcome["error"]
    return outcome["answer"]


def connect(address: str):
    """A ``distributed.Client`` of the scheduler at ``address``, once :func:`check_scheduler`
    has accepted it (an :class:`InputError` naming the address when it cannot be reached within
    :data:`CONNECT_TIMEOUT` seconds)."""
    import distributed

    check_scheduler(address)
    try:
        return distributed.Client(address, timeout=CONNECT_TIMEOUT, set_as_default=False)
    except (OSError, TimeoutError, ValueError, TypeError) as exc:
        raise _unreachable(address, _first_line(exc)) from None


def _unreachable(address: str, reason: str) -> InputError:
    """The error of a scheduler that did not answer in time, or answered with an error."""
    return InputError(f"cannot reach the Dask scheduler at {address!r} within {CONNECT_TIMEOUT} "
                      f"s: {reason}")


def _first_line(exc: BaseException) -> str:
    """The first line of ``exc``'s message, or its type's name if it has none."""
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


#: Held by the task that runs in this process (:class:`OneAtATime`).
_TASK_LOCK = threading.Lock()


class OneAtATime:
    """``function`` called under this process's task lock (module docstring), picklable when
    ``function`` is, so that it travels to the workers as the task."""

    def __init__(self, function: Callable):
        self.function = function
        functools.update_wrapper(self, function)   # Dask names the tasks after the function

    def __call__(self, item):
        with _TASK_LOCK:
            return self.function(item)


def cluster_map(function: Callable, items: Iterable, address: str,
                completed: bool = False) -> Iterator:
    """``function(item)`` for every item on the cluster at ``address``, yielded in the order of
    ``items`` (with ``completed``, ``(index, result)`` pairs as the tasks finish).  An interrupt,
    an exception of a task or closing the iterator early cancels the tasks not yet done."""
    import distributed

    client = connect(address)
    futures = []
    try:
        futures = client.map(OneAtATime(function), list(items), pure=False)
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
