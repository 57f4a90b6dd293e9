"""The fence around a user's program while exactdp runs it: no randomness but ``prng``, no output
on standard output, and no run that never ends.

:func:`sandbox` is entered by the tracer (around the exploration of every path) and by the
sampler (around a batch of runs); for its duration

* **randomness from elsewhere is refused.**  A draw that does not come from the ``prng`` handed
  to the program would be traced as a constant (the exact probabilities then wrong) and would
  make a seeded sample irreproducible.  The entry points reached by attribute — ``numpy.random``'s
  functions (``np.random.laplace``, ``np.random.default_rng``, ``np.random.RandomState``, the bit
  generators), the ``random`` module's functions and ``random.Random``'s methods, ``secrets``,
  ``os.urandom`` / ``os.getrandom`` — are replaced by guards, and so are the generators and
  drawing functions the program's module holds in its globals, or its function in its closure or
  default arguments (``rng = np.random.default_rng()`` at module level, ``from random import
  gauss``, ``def f(prng, queries, rng=np.random.default_rng())``); calling one raises
  :class:`~exactdp.errors.InputError` naming the call and the program's line (also on leaving
  the sandbox, should the program catch it and go on).  Everything is restored on exit, also on
  error; the guards refuse only in the threads that run a program.  Not caught: a generator
  held by another module (``lib.rng``), or built from a class reached otherwise than through
  these modules' attributes.  The guards are installed once for all the sandboxes open at a
  time, a ``setattr`` each: ``prng`` itself is not wrapped, and a draw from it costs nothing
  more.
* **standard output goes to standard error**, so that a program's ``print`` cannot corrupt
  ``--json``;
* **a run that does not return is reported and stopped**: a watchdog thread notes on standard
  error, after :data:`NOTICE_AFTER` seconds without a completed run (:meth:`Sandbox.tick`, or
  the caller's count of runs), the
  program's line the run is at (read from ``sys._current_frames()``, which costs the run
  nothing), and after ``timeout`` seconds raises an exception in the running thread
  (``PyThreadState_SetAsyncExc``, delivered between two bytecodes: a pure-Python loop stops at
  once, a long call into C code when it returns), which becomes one line.
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import random
import secrets
import sys
import threading
import time
import types

import numpy as np

from ..checks import check_seconds
from ..errors import InputError
from .locations import describe_location, program_location

#: Seconds without a completed run after which the watchdog reports where the run is.
NOTICE_AFTER = 5.0
#: Default seconds one run of a program (one traced path, one sampled run) may take.
TRACE_TIMEOUT = 60.0

#: Threads running a program → how many sandboxes they are in: the guards refuse in these only.
_SANDBOXED: dict[int, int] = {}
#: Thread → the first refusal in its sandbox (raised on leaving it, should the program catch it).
_REFUSED: dict[int, InputError] = {}
#: (container id, key) → [container, key, original value, number of sandboxes using it]: the
#: generators held by programs' globals, closures and default arguments, replaced while
#: sandboxed.
_PATCHES: dict = {}
_LOCK = threading.RLock()
_stdout_users = 0
_stdout_saved = None


class _TimedOut(BaseException):
    """Raised in a run that exceeded its time (a ``BaseException``: a program's ``except
    Exception`` does not swallow it)."""


def _refuse(name: str) -> InputError:
    """The refusal of the call ``name`` in the current (sandboxed) thread, remembered."""
    error = InputError(f"the program draws randomness outside prng: {name} (at "
                       f"{describe_location(program_location())}); only the prng handed to "
                       f"the program is modelled and seeded")
    _REFUSED.setdefault(threading.get_ident(), error)
    return error


def _guard(name: str, index: int):
    """The entry point ``index`` of :data:`_ENTRY_POINTS`, refusing in a sandboxed thread and
    calling the value it replaced (:data:`_REPLACED`) elsewhere."""
    def guarded(*args, **kwargs):
        if threading.get_ident() in _SANDBOXED:
            raise _refuse(f"{name}()")
        return _REPLACED[index](*args, **kwargs)
    guarded.__name__ = name.rpartition(".")[2]
    return guarded


class _Refusing:
    """Stands for a generator held by the program's module: every use is refused."""

    def __init__(self, name: str, original):
        self._name, self._original = name, original

    def __getattr__(self, attribute):
        if threading.get_ident() in _SANDBOXED:
            raise _refuse(f"{self._name}.{attribute}")
        return getattr(self._original, attribute)

    def __call__(self, *args, **kwargs):
        if threading.get_ident() in _SANDBOXED:
            raise _refuse(f"{self._name}()")
        return self._original(*args, **kwargs)


def _module_entry_points() -> list[tuple[object, str, str]]:
    """``(module or class, attribute, name in messages)`` of every randomness entry point
    reached by attribute."""
    points = [(np.random, name) for name in np.random.__all__
              if name not in {"Generator", "SeedSequence", "BitGenerator"}]
    points += [(random, name) for name in random.__all__]
    points += [(random.Random, name) for name, value in vars(random.Random).items()
               if isinstance(value, types.FunctionType) and not name.startswith("_")]
    points += [(secrets, name) for name in secrets.__all__ if name != "compare_digest"]
    points += [(os, name) for name in ("urandom", "getrandom") if hasattr(os, name)]
    return [(owner, name, f"{owner.__name__}.{name}") for owner, name in points]


_ENTRY_POINTS = _module_entry_points()
#: The guards of the entry points, made once (installing them is a ``setattr`` each).
_GUARDS = [_guard(label, index) for index, (_, _, label) in enumerate(_ENTRY_POINTS)]
#: The values the guards replaced while installed, by index.
_REPLACED: list = []
#: Sandboxes open in any thread (the guards are installed while there is one).
_guarded_sandboxes = 0
_RANDOM_TYPES = (np.random.Generator, np.random.RandomState, random.Random)
#: ids of the entry points themselves (``from random import gauss`` holds one).
_ENTRY_IDS = frozenset(id(getattr(owner, name)) for owner, name, _ in _ENTRY_POINTS)


def _is_randomness(value) -> bool:
    """A generator, a bound drawing method of one, or one of the module entry points."""
    return isinstance(value, _RANDOM_TYPES) or \
        isinstance(getattr(value, "__self__", None), _RANDOM_TYPES) or id(value) in _ENTRY_IDS


def _held_by(func, allowed) -> list[tuple[object, str, object]]:
    """``(container, key, replacement)`` for the randomness the program's module globals, its
    closure and its default arguments hold (containers: the globals dict, a closure cell, the
    function itself for ``__defaults__`` and ``__kwdefaults__``)."""
    def held(value) -> bool:  # (or already replaced by a sandbox open in another thread)
        return isinstance(value, _Refusing) or value is not allowed \
            and not isinstance(value, types.ModuleType) and _is_randomness(value)

    found = []
    module_globals = getattr(func, "__globals__", None) or {}
    for key, value in list(module_globals.items()):
        if held(value):
            found.append((module_globals, key, _Refusing(key, value)))
    code = getattr(func, "__code__", None)
    for cell, name in zip(getattr(func, "__closure__", None) or (),
                          getattr(code, "co_freevars", ())):
        try:
            value = cell.cell_contents
        except ValueError:  # an empty cell
            continue
        if held(value):
            found.append((cell, name, _Refusing(name, value)))
    defaults = getattr(func, "__defaults__", None) or ()
    if code is not None and any(held(value) for value in defaults):
        names = code.co_varnames[code.co_argcount - len(defaults):code.co_argcount]
        found.append((func, "__defaults__", tuple(
            _Refusing(name, value) if held(value) else value
            for name, value in zip(names, defaults))))
    keyword_defaults = getattr(func, "__kwdefaults__", None) or {}
    if any(held(value) for value in keyword_defaults.values()):
        found.append((func, "__kwdefaults__", {
            name: _Refusing(name, value) if held(value) else value
            for name, value in keyword_defaults.items()}))
    return found


def _get(container, key):
    """``container[key]`` (a module's globals), the cell ``container``'s value, or the attribute
    ``key`` of the function ``container``."""
    if isinstance(container, dict):
        return container[key]
    if isinstance(container, types.CellType):
        return container.cell_contents
    return getattr(container, key)


def _put(container, key, value) -> None:
    """Set what :func:`_get` reads to ``value``."""
    if isinstance(container, dict):
        container[key] = value
    elif isinstance(container, types.CellType):
        container.cell_contents = value
    else:
        setattr(container, key, value)


def _install(container, key, replacement) -> None:
    entry = _PATCHES.get((id(container), key))
    if entry is not None:
        entry[3] += 1
        return
    _PATCHES[(id(container), key)] = [container, key, _get(container, key), 1]
    _put(container, key, replacement)


def _uninstall(container, key) -> None:
    entry = _PATCHES[(id(container), key)]
    entry[3] -= 1
    if not entry[3]:
        del _PATCHES[(id(container), key)]
        _put(container, key, entry[2])


class Sandbox:
    """The running program's watchdog; :meth:`tick` after each completed run, unless the runs
    are counted by ``completed()``."""

    def __init__(self, func, timeout: float | None, what: str, completed=None):
        self.timeout, self.what = timeout, what
        self.completed = completed or (lambda: self.runs)
        self.source = getattr(getattr(func, "__code__", None), "co_filename", None)
        self.thread = threading.get_ident()
        self.runs = 0
        self.fired = False
        self.location = None
        self._done = threading.Event()
        self._lock = threading.Lock()
        self._watchdog = None
        if timeout is not None:
            self._watchdog = threading.Thread(target=self._watch, daemon=True,
                                              name="exactdp-watchdog")
            self._watchdog.start()

    def tick(self) -> None:
        """One run completed."""
        self.runs += 1

    def _where(self) -> str | None:
        """``file:line: source`` of the innermost frame of the program's file in the running
        thread (``None`` when the thread is not in the program)."""
        frame = sys._current_frames().get(self.thread)
        while frame is not None:
            if frame.f_code.co_filename == self.source:
                return describe_location((self.source, frame.f_lineno))
            frame = frame.f_back
        return None

    def _watch(self) -> None:
        """The watchdog thread: every second, whether a run completed since the last look; the
        notice, then the stop, when none did for long enough."""
        runs, since, noticed = self.completed(), time.monotonic(), False
        while not self._done.wait(min(1.0, self.timeout)):
            now = time.monotonic()
            if self.completed() != runs:
                runs, since, noticed = self.completed(), now, False
                continue
            if not noticed and now - since >= min(NOTICE_AFTER, self.timeout / 2):
                noticed, where = True, self._where()
                print(f"exactdp: {self.what} has not finished after {now - since:.0f} s ("
                      f"{f'at {where}' if where else 'in exactdp'}); it is stopped after "
                      f"{self.timeout:g} s (--trace-timeout)", file=sys.stderr, flush=True)
            if now - since >= self.timeout:
                with self._lock:
                    location = self._where()
                    if self._done.is_set() or location is None:
                        continue  # stopped only inside the program: never in exactdp's code
                    self.location, self.fired = location, True
                    ctypes.pythonapi.PyThreadState_SetAsyncExc(
                        ctypes.c_ulong(self.thread), ctypes.py_object(_TimedOut))
                return

    def stop(self) -> None:
        """End the watchdog; a stop it requested and not yet delivered is withdrawn."""
        while True:
            try:
                with self._lock:
                    self._done.set()
                    if self.fired:
                        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self.thread),
                                                                   None)
                break
            except _TimedOut:  # the stop arrived here, on the way out: withdrawn all the same
                continue
        if self._watchdog is not None:
            self._watchdog.join()  # no thread left behind (a later fork needs none)

    def timed_out(self) -> InputError:
        """The one line for a run stopped at the time limit."""
        return InputError(f"{self.what} did not finish within {self.timeout:g} s (at "
                          f"{self.location}); raise --trace-timeout (Python: trace_timeout) if "
                          f"it only needs longer")


@contextlib.contextmanager
def sandbox(func, prng=None, timeout: float | None = TRACE_TIMEOUT,
            what: str = "one run of the program", completed=None):
    """Run the program ``func`` inside the fence (see the module's description).

    Parameters
    ----------
    func : callable
        The user's function (its globals and closure are searched for generators).
    prng : object, optional
        The generator handed to the program, which stays usable.
    timeout : float or None
        Seconds a run may go without completing (:meth:`Sandbox.tick`); ``None``: no limit.
    what : str
        The run, in the messages ("the trace of one path of the program").
    completed : callable, optional
        ``completed()``: the number of runs completed so far (e.g. ``outputs.__len__``, which
        costs the runs nothing); default: the number of :meth:`Sandbox.tick` calls.

    Yields
    ------
    Sandbox
    """
    global _stdout_users, _stdout_saved, _guarded_sandboxes
    timeout = check_seconds("trace_timeout", timeout)
    held = _held_by(func, prng)
    thread = threading.get_ident()
    with _LOCK:
        if not _guarded_sandboxes:
            _REPLACED[:] = [getattr(owner, name) for owner, name, _ in _ENTRY_POINTS]
            for (owner, name, _), guarded in zip(_ENTRY_POINTS, _GUARDS):
                setattr(owner, name, guarded)
        _guarded_sandboxes += 1
        for container, key, replacement in held:
            _install(container, key, replacement)
        if not _stdout_users:
            _stdout_saved, sys.stdout = sys.stdout, sys.stderr
        _stdout_users += 1
        _SANDBOXED[thread] = _SANDBOXED.get(thread, 0) + 1
    guard = Sandbox(func, timeout, what, completed)
    try:
        yield guard
    except _TimedOut:
        raise guard.timed_out() from None
    finally:
        guard.stop()
        with _LOCK:
            _SANDBOXED[thread] -= 1
            if not _SANDBOXED[thread]:
                del _SANDBOXED[thread]
            refused = _REFUSED.pop(thread, None)
            _stdout_users -= 1
            if not _stdout_users:
                sys.stdout = _stdout_saved
            for container, key, _ in held:
                _uninstall(container, key)
            _guarded_sandboxes -= 1
            if not _guarded_sandboxes:
                for (owner, name, _), original in zip(_ENTRY_POINTS, _REPLACED):
                    setattr(owner, name, original)
    if guard.fired:  # stopped after the run had returned: the stop was withdrawn
        raise guard.timed_out()
    if refused is not None:  # the program caught the refusal and went on
        raise refused
