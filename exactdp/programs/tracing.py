"""The forking executor: every execution path of a program in StatDP's convention, with its
constraints on the noises and its return value.

The function is called with a symbolic ``prng`` (``linear.py``) whose draws are noise symbols;
the numbers it receives are exact (``exact_numbers.py``).  A comparison between expressions that
contain noises is a *branch*: it answers ``True`` or ``False`` according to a recorded sequence
of decisions, and the function is re-run depth first until every sequence has been explored
(:func:`trace`); the comparisons a run shares with the previous one are replayed from their
recorded answers (:class:`Run`), and one run draws and compares at most ``step_limit`` times.
More paths than the limit are refused as soon as proven: by the runs of the trace, or by the
decision nodes seen by runs that ``path_count.py`` chooses, one of which can prove as many paths
as it takes decisions.
Each complete run is a :class:`Path`: the intervals its decisions put on linear forms of the
noises, the laws of its noises and its return value, flattened into entries (booleans, exact
numbers, or expressions — released numbers, whose probability is a density).
``.max()``/``.argmax()`` of an array of symbols branch once per candidate winner, with the
winner's constraints against every other entry.

Operations outside this model (a product of two noises, ``int()`` or ``float()`` of a noise, a
noise in a ``while`` condition, an unsupported numpy function or random law) raise
:class:`TracingError`, one line naming the operation and the program's source line.
"""

from __future__ import annotations

import gc
import os
import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from flint import fmpq

from ..checks import check_positive
from ..errors import InputError
from ..progress import Progress
from .exact_numbers import ONE, ZERO, Exact, as_fraction, as_rational, exact_argument, \
    rational, to_fraction
from .linear import RUNS, Linear, Noise, SymbolicPRNG, draw_scale, numpy_of_symbols
from .locations import TracingError, describe_location, in_while_condition, is_user_code, \
    program_line, program_location, unsupported
from .path_count import PathCounter
from .sandbox import TRACE_TIMEOUT, sandbox

#: Default largest number of execution paths explored for one input.
PATH_LIMIT = 65_536
#: The path counter (:func:`_count_ahead`) starts after ``limit // COUNT_AFTER_SHARE`` runs of
#: the trace: a program with fewer paths is traced without it.
COUNT_AFTER_SHARE = 64
#: Default bound on the noise draws and comparisons of one execution path: this many per query
#: plus :data:`STEPS_BASE` (:func:`step_limit`).
STEPS_PER_QUERY = 100
STEPS_BASE = 1000
#: Seconds of exploration after which progress is reported on standard error.
PROGRESS_AFTER = 2.0


def _run_key(coeffs: dict) -> tuple[tuple, fmpq]:
    """:func:`linear_key` of FLINT coefficients, the key's coefficients as integer pairs
    ``(numerator, denominator)`` (hashing a FLINT rational builds a ``Fraction``)."""
    items = sorted(coeffs.items())
    factor = items[0][1]
    key = []
    for k, v in items:
        ratio = v / factor
        key.append((k, int(ratio.p), int(ratio.q)))
    return tuple(key), factor


@dataclass
class Path:
    """One complete execution.

    Attributes
    ----------
    noises : tuple of Noise
        The draws, in order (symbol ``k`` is ``noises[k]``).
    intervals : dict
        ``key → (low, high)``: the run's decisions say ``low < Σ key·η < high`` (``None`` for
        an infinite end), ``key`` a tuple of ``(noise index, coefficient)`` with first
        coefficient 1.
    result : tuple
        The return value's entries: ``bool``, ``Fraction`` or :class:`Linear`.
    """

    noises: tuple
    intervals: dict
    result: tuple


class _Infeasible(Exception):
    """The decisions of a run contradict each other: the path has probability 0."""


class Run:
    """The state of the exploration: noises drawn, decisions taken, intervals implied.

    One ``Run`` serves every execution of a trace.  A new decision sequence shares all but its
    last decision with the previous run, and the program is deterministic given the answers to
    its comparisons: every *event* (a comparison with noises, implied or decided, or a
    ``max``/``argmax``) before the one that took the flipped decision gets the same answer, so
    it is *replayed* — its recorded answer returned without building its constraint — and the
    intervals, noises and decisions are rolled back to the state before that event (an undo log
    of the intervals).  A run thus costs the program's own arithmetic plus the constraints of
    its new events only.

    ``step_limit`` bounds the noise draws and comparisons of one run (a loop that only a noise
    ends, ``while True: … break``, has paths of every length).
    """

    #: Whether a comparison met while replaying whose two sides' coefficients differ is an event
    #: (``Linear._compare`` then answers it without building its difference): false for a run
    #: where a coefficient may stand for something that is not a noise (``templates.py``).
    replays_by_coefficients = True

    def __init__(self, step_limit: int):
        self.step_limit = step_limit
        self.decisions: list = []
        self.decision_events: list = []   # decision position → index of the event taking it
        self.position = 0
        self.noises: list[Noise] = []
        self.symbols: list[Linear] = []
        self.drawn = 0
        self.steps = 0
        self.intervals: dict = {}          # run key → (low, high), FLINT rationals
        self.fractions: dict = {}          # the same as Path.intervals (Fraction)
        self.undo: list = []               # (run key, fraction key, previous, previous)
        self.events: list = []             # (answer, position, drawn, len(undo)) at its start
        self.event = 0
        self.replay_until = 0
        self.replaying = False
        self.empty_index = None            # (file, line) of an indexing that left no entry
        self.new_decision = True           # the answer of a decision not taken before
        self.frontier = None               # the breadth-first exploration's hooks (frontier.py)
        self.installs: dict = {}           # decision → constraints taken in place of the own

    # -- restarting

    def restart(self, decisions: list, shared: int | None = None) -> None:
        """Prepare the execution of ``decisions``, whose first ``shared`` entries are the
        previous run's (default: all but the last, the previous run's flipped)."""
        shared = len(decisions) - 1 if shared is None else shared
        first = self.decision_events[shared] if decisions else 0
        if first < len(self.events):
            _, position, drawn, undo = self.events[first]
        else:
            position, drawn, undo = 0, 0, 0
        del self.events[first:]
        del self.decision_events[position:]
        del self.noises[drawn:]
        del self.symbols[drawn:]
        while len(self.undo) > undo:
            key, fraction_key, previous, previous_fractions = self.undo.pop()
            if previous is None:
                del self.intervals[key]
                del self.fractions[fraction_key]
            else:
                self.intervals[key] = previous
                self.fractions[fraction_key] = previous_fractions
        self.decisions = decisions
        self.position = position          # the replayed events took the decisions before it
        self.drawn = self.steps = self.event = 0
        self.replay_until = first
        self.replaying = first > 0
        self.empty_index = None

    def replayed(self):
        """The recorded answer of the next event (during the replayed prefix)."""
        self.steps += 1
        if self.steps > self.step_limit:
            self._too_many_steps()
        answer = self.events[self.event][0]
        self.event += 1
        self.replaying = self.event < self.replay_until
        return answer

    def _start_event(self) -> int:
        self.events.append((None, self.position, self.drawn, len(self.undo)))
        return len(self.events) - 1

    def _answer(self, index: int, answer) -> None:
        self.events[index] = (answer,) + self.events[index][1:]
        self.event += 1

    def _too_many_steps(self) -> None:
        raise TracingError(f"one execution path drew or compared noises more than "
                           f"{self.step_limit:,} times (at {program_line()}): a loop "
                           f"that only a noise ends has no bound")

    # -- noises

    def draw(self, law_name: str, make_law, scale, loc):
        """A draw ``loc + η`` with ``η ~ make_law(scale)`` (``loc`` when the scale is 0)."""
        value = scale.value if type(scale) is Exact else as_rational(scale)
        if value is None:
            value = rational(draw_scale(scale, law_name))
        if value == 0:
            return loc
        self.steps += 1
        if self.steps > self.step_limit:
            self._too_many_steps()
        index = self.drawn
        self.drawn += 1
        if index < len(self.symbols):
            symbol = self.symbols[index]
        else:
            if value < 0:
                raise TracingError(f"a {law_name} scale must not be negative, got "
                                   f"{to_fraction(value)} (at {program_line()})")
            self.noises.append(Noise(make_law(to_fraction(value)), program_location()))
            symbol = Linear({index: ONE})
            self.symbols.append(symbol)
        return symbol if type(loc) in (int, float) and loc == 0 else symbol + loc

    # -- decisions and intervals

    def _decide(self, event: int) -> bool:
        if self.position == len(self.decisions):
            self.decisions.append(self.new_decision)
        self.decision_events.append(event)
        decision = self.decisions[self.position]
        self.position += 1
        return decision

    def _implied(self, key, factor, bound):
        """Whether ``key·η > bound`` (factor > 0) / ``< bound`` (factor < 0) is implied (True),
        contradicted (False) or open (None) by the intervals so far."""
        low, high = self.intervals.get(key, (None, None))
        if factor > 0:
            if low is not None and low >= bound:
                return True
            if high is not None and high <= bound:
                return False
        else:
            if high is not None and high <= bound:
                return True
            if low is not None and low >= bound:
                return False
        return None

    def _restrict(self, key, above: bool, bound: fmpq) -> None:
        previous = self.intervals.get(key)
        low, high = previous or (None, None)
        fraction_key = _fraction_key(key)
        fractions = self.fractions.get(fraction_key)
        fraction_low, fraction_high = fractions or (None, None)
        if above:
            if low is None or bound > low:
                low, fraction_low = bound, to_fraction(bound)
        elif high is None or bound < high:
            high, fraction_high = bound, to_fraction(bound)
        self.undo.append((key, fraction_key, previous, fractions))
        self.intervals[key] = (low, high)
        self.fractions[fraction_key] = (fraction_low, fraction_high)

    def use_intervals(self, fractions: dict) -> None:
        """Take the constraints ``fractions`` (as :attr:`Path.intervals`) in place of the run's
        own: a run that continues a merged group of runs (``frontier.py``)."""
        self.fractions = dict(fractions)
        self.intervals = {
            tuple((k, c.numerator, c.denominator) for k, c in key):
                tuple(None if end is None else fmpq(end.numerator, end.denominator)
                      for end in ends)
            for key, ends in fractions.items()}

    def settle(self, difference: Linear, relation) -> bool | None:
        """``relation(difference, 0)`` when it is decided without a decision of the run (never
        here: a difference that is not constant has a noise; ``templates.py`` answers those
        without one), else ``None``."""
        return None

    def integer_valued(self, coeffs: dict) -> bool:
        """Whether a noise of ``coeffs`` has an integer-valued law."""
        return any(self.noises[k].law.integer_valued for k in coeffs)

    def _bound(self, key: tuple, factor: fmpq, const: fmpq, positive: bool,
               strict: bool) -> fmpq:
        """The bound ``h`` of ``s = key·η`` such that ``factor·s + const`` ``>``/``≥ 0``
        (``positive``; ``strict`` or not) or ``<``/``≤ 0`` is ``s > h`` or ``s < h``.

        With a continuous noise in ``s`` a tie has probability 0: ``h = −const/factor``.  When
        ``s`` is integer-valued (integer-valued noises, integer coefficients) ``h`` is the
        half-integer between the integers on either side of the comparison (``s ≥ 2.3`` is
        ``s > 2.5``, ``s > 3`` is ``s > 3.5``), so that the comparison and its negation are
        both open intervals, as for continuous noises; a combination of integer-valued noises
        that is not integer-valued is refused (its ties are not modelled)."""
        bound = -const / factor
        noises = self.noises
        if not all(noises[k].law.integer_valued for k, _, _ in key):
            return bound
        if any(denominator != 1 for _, _, denominator in key):
            raise unsupported("a comparison of discrete noises with coefficients whose "
                              "combination is not an integer")
        above = (factor > 0) == positive
        floor, ceil = bound.floor() + fmpq(1, 2), bound.ceil() - fmpq(1, 2)
        return (floor if strict else ceil) if above else (ceil if strict else floor)

    def assume(self, difference: Linear, strict: bool) -> bool:
        """Record ``difference > 0`` (``≥ 0`` unless ``strict``); ``False`` if it contradicts
        the intervals so far."""
        if difference.is_constant:
            return difference.const > 0
        key, factor = _run_key(difference.coeffs)
        # key·η > bound (factor > 0) or < bound
        bound = self._bound(key, factor, difference.const, True, strict)
        implied = self._implied(key, factor, bound)
        if implied is not None:
            return implied
        self._restrict(key, factor > 0, bound)
        return True

    def branch(self, difference: Linear, positive: bool, strict: bool) -> bool:
        """The truth of ``difference > 0`` (``positive``) or ``< 0`` in this run (``≥``, ``≤``
        unless ``strict``)."""
        if difference.is_constant:
            const = difference.const
            return (const > 0 if positive else const < 0) or (not strict and const == 0)
        if self.replaying:
            return self.replayed()
        self.steps += 1
        if self.steps > self.step_limit:
            self._too_many_steps()
        if in_while_condition():
            raise unsupported("a noise in a while condition")
        event = self._start_event()
        key, factor = _run_key(difference.coeffs)
        bound = self._bound(key, factor, difference.const, positive, strict)
        implied = self._implied(key, factor if positive else -factor, bound)
        if implied is None and self.frontier is not None:
            installed = self.installs.pop(self.position, None)
            if installed is not None:
                self.use_intervals(installed)
                implied = self._implied(key, factor if positive else -factor, bound)
                if implied is not None and self._decide(event) != implied:
                    raise _Infeasible
            elif self.position == len(self.decisions):
                self.frontier.suspend(self, (key, factor, bound, positive, strict))
        if implied is None:
            implied = self._decide(event)
            self._restrict(key, (factor > 0) == (positive == implied), bound)
        self._answer(event, implied)
        return implied

    def extreme(self, values: list, largest: bool):
        """``(index, value)`` of the largest (smallest) entry: one branch per possible winner,
        which is then larger (smaller) than every other entry — strictly before it, at least
        after it, as numpy breaks ties by the first index."""
        if not values:
            raise ValueError("max/argmax of an empty array")
        if self.replaying:
            winner = self.replayed()
            return winner, values[winner]
        if self.frontier is not None:
            self.frontier.abandon()
        self.steps += 1
        if self.steps > self.step_limit:
            self._too_many_steps()
        event = self._start_event()
        sign = 1 if largest else -1
        for winner in range(len(values)):
            if winner < len(values) - 1 and not self._decide(event):
                continue
            for other, value in enumerate(values):
                if other == winner:
                    continue
                difference = (Linear({}, ZERO) + values[winner] - value) * sign
                if difference.is_constant:
                    ok = difference.const > 0 if other < winner else difference.const >= 0
                else:
                    ok = self.assume(difference, strict=other < winner)
                if not ok:
                    raise _Infeasible
            self._answer(event, winner)
            return winner, values[winner]
        raise AssertionError("unreachable")


#: Run keys (noise, numerator, denominator) → keys of ``Path.intervals`` (noise, Fraction).
_FRACTION_KEYS: dict = {}


def _fraction_key(key: tuple) -> tuple:
    fraction_key = _FRACTION_KEYS.get(key)
    if fraction_key is None:
        fraction_key = _FRACTION_KEYS[key] = tuple((k, Fraction(p, q)) for k, p, q in key)
    return fraction_key


# ----------------------------------------------------------------------------- return values

def flatten_result(value, empty_index: tuple | None = None) -> tuple:
    """The entries of a return value: a scalar is one entry, tuples, lists and arrays are
    flattened in order; booleans stay booleans, numbers become exact ``Fraction``, expressions
    with noises stay :class:`Linear` (released numbers).  A value without entries is refused,
    naming ``empty_index``, the program location ``(file, line)`` of an indexing that left an
    array of noises empty (``noisy[noisy > 0]``), when there is one."""
    entries = []

    def visit(item):
        if type(item) is list and all(type(element) is bool for element in item):
            entries.extend(item)  # a list of booleans, the common case, kept short
        elif isinstance(item, (bool, np.bool_)):
            entries.append(bool(item))
        elif isinstance(item, Linear):
            entries.append(to_fraction(item.const) if item.is_constant else item.with_fractions())
        elif isinstance(item, (tuple, list, np.ndarray)) or hasattr(item, "__next__"):
            for element in (item.ravel() if isinstance(item, np.ndarray) else item):
                visit(element)
        else:
            value = as_fraction(item)
            if value is None:
                raise TracingError(f"a program must return booleans, numbers or sequences of "
                                   f"them, got {type(item).__name__} {item!r}")
            entries.append(value)

    visit(value)
    if not entries:
        cause = "" if empty_index is None else \
            (f": the indexing at {describe_location(empty_index)} kept no entry on one "
             f"execution path, and an output needs at least one (return, e.g., the number of "
             f"entries kept as well)")
        raise TracingError(f"the program returned no value{cause}")
    return tuple(entries)


def _next_decisions(decisions: list) -> list | None:
    """The next sequence in depth-first order (the last ``True`` flipped), or ``None``."""
    while decisions and not decisions[-1]:
        decisions.pop()
    if not decisions:
        return None
    decisions[-1] = False
    return decisions


def step_limit(queries) -> int:
    """Default bound on the noise draws and comparisons of one execution path:
    :data:`STEPS_PER_QUERY` per query plus :data:`STEPS_BASE`."""
    return STEPS_BASE + STEPS_PER_QUERY * len(queries)


def trace(func, queries, kwargs: dict, limit: int = PATH_LIMIT,
          progress: bool | None = None, steps: int | None = None,
          timeout: float | None = TRACE_TIMEOUT, new_run=Run,
          program_queries: list | None = None) -> list[Path]:
    """Every execution path of ``func(prng, queries, **kwargs)`` with a symbolic ``prng``.

    Parameters
    ----------
    func : callable
    queries : sequence of Fraction
    kwargs : dict
        Keyword arguments (numbers as ``Fraction``/``int``; they reach the program as
        :class:`Exact`).
    limit : int
        Largest number of paths (an :class:`InputError` beyond it, as soon as the runs of the
        trace, or the decision nodes :func:`_count_ahead` has seen, prove it).
    steps : int or None
        Largest number of noise draws and comparisons in one path (a :class:`TracingError`
        beyond it); ``None``: :func:`step_limit` of the queries.
    progress : bool or None
        Report on standard error when the exploration takes longer than
        :data:`PROGRESS_AFTER` seconds (``None``: only on a terminal).
    timeout : float or None
        Seconds the trace of one path may take (an :class:`InputError` beyond it; ``None``: no
        limit).  The program runs in :func:`~exactdp.programs.sandbox.sandbox`: randomness other
        than ``prng`` is refused, its standard output goes to standard error.
    new_run : callable
        ``new_run(step_limit)``, the :class:`Run` of the exploration (and of the path counter's).
    program_queries : list or None
        The queries as the program receives them (``None``: ``queries`` as :class:`Exact`
        numbers; ``templates.py`` gives symbols).
    """
    limit = check_positive("path_limit", limit)
    arguments = {k: exact_argument(v) for k, v in kwargs.items()}
    exact_queries = (program_queries if program_queries is not None
                     else [exact_argument(q) for q in queries])  # each run gets its own list
    paths: list[Path] = []
    # the paths' many small objects are never cyclic garbage: the collector's repeated scans
    # of them would make the exploration quadratic in its size
    collecting = gc.isenabled()
    gc.disable()
    decisions: list | None = []
    run = new_run(step_limit(queries) if steps is None else steps)
    counter = PathCounter(start=max(1, limit // COUNT_AFTER_SHARE))
    counted = new_run(run.step_limit)
    explored, start, reporter = 0, time.monotonic(), None
    try:
        with sandbox(func, timeout=timeout, what="the trace of one path of the program") as \
                watchdog, numpy_of_symbols():
            while decisions is not None:
                run.restart(decisions)
                RUNS.append(run)
                try:
                    result = func(SymbolicPRNG(run), list(exact_queries), **arguments)
                    entries = flatten_result(result, run.empty_index)
                except _Infeasible:
                    entries = None
                except InputError:
                    raise
                except Exception as exc:  # the user's code: one line, never a traceback
                    line = ""
                    if exc.__traceback__ is not None:
                        line = f" (line {exc.__traceback__.tb_frame.f_lineno})"
                        frames = [f for f in _traceback_frames(exc.__traceback__)
                                  if is_user_code(f[0])]
                        if frames:
                            line = f" (at {os.path.basename(frames[-1][0])}:{frames[-1][1]})"
                    raise TracingError(f"the program failed while traced: "
                                       f"{type(exc).__name__}: {exc}{line}") from None
                finally:
                    RUNS.pop()
                if entries is not None:
                    paths.append(Path(tuple(run.noises), dict(run.fractions), entries))
                explored += 1
                watchdog.tick()
                if counter.due(explored):
                    _count_ahead(counter, counted, func, exact_queries, arguments)
                    watchdog.tick()
                if max(explored, counter.nodes + 1) > limit:
                    raise InputError(f"the program has more than {limit:,} execution paths on "
                                     f"{len(queries)} queries (raise --max-paths (Python: "
                                     f"path_limit) or use fewer queries)")
                if reporter is None and time.monotonic() - start > PROGRESS_AFTER:
                    reporter = Progress(limit, "tracing", "path", enabled=progress)
                    reporter.update(explored)
                elif reporter is not None:
                    reporter.update(1, f"{len(paths)} feasible" + (
                        f", at least {counter.nodes + 1:,} in all" if counter.nodes else ""))
                decisions = _next_decisions(run.decisions[:run.position])
    finally:
        if collecting:
            gc.enable()
        if reporter is not None:
            reporter.close()
    return paths


def _count_ahead(counter: PathCounter, run: Run, func, queries: list, arguments: dict) -> None:
    """One run of the program along the decisions ``counter`` chooses (:mod:`.path_count`),
    recorded in it; ``run`` is the counter's own, and replays what its decisions share with its
    previous run's.  A run that fails stops the counting: the trace meets the failure in its
    turn, or its limit first, as without the counter."""
    prefix, new_decision = counter.next_run()
    forced = len(prefix)
    previous = run.decisions[:run.position]
    shared = next((k for k, (new, old) in enumerate(zip(prefix, previous)) if new != old),
                  min(forced, len(previous)))
    run.restart(prefix, shared)  # the run extends the list prefix
    run.new_decision = new_decision
    RUNS.append(run)
    try:
        func(SymbolicPRNG(run), list(queries), **arguments)
    except _Infeasible:
        pass
    except Exception:  # noqa: BLE001 - reported by the trace itself
        counter.stop()
        return
    finally:
        RUNS.pop()
    counter.record(run.decisions[:run.position], forced)


def _traceback_frames(tb):
    while tb is not None:
        yield tb.tb_frame.f_code.co_filename, tb.tb_lineno
        tb = tb.tb_next
