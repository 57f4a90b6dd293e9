"""StatDP's counterexample detector (Ding et al., CCS 2018, Algorithms 1 and 3; arXiv:1805.10277),
vectorised, reproducible from one seed, and checked against the exact engine.

For each test ε:

1. **selection** — every candidate (D1, D2) of Table 1 (``inputs.py``) is run ``select_runs``
   times on each side; every event of the search space (``events.py``) is counted; events with
   ``c1 + c2 < 0.001 · n · e^ε`` are skipped (Ding et al., footnote 3); the (D1, D2, E) with the
   lowest p-value is kept (orienting the counts so that ``c1 ≥ c2``, as StatDP's
   ``run_algorithm`` does);
2. **test** — the kept (D1, D2, E) is counted on ``runs`` fresh runs per side and the p-value of
   ``H0: Pr[M(D1) ∈ E] ≤ e^ε Pr[M(D2) ∈ E]`` is reported (``hypothesis.p_value``);
3. **exact** — ``Pr[M(D1) ∈ E]`` and ``Pr[M(D2) ∈ E]`` from
``exactdp.exact.event_probability.rules`` give the exact
   event loss ``exact_event_eps = ln Pr[M(D1) ∈ E] − ln Pr[M(D2) ∈ E]`` (the same sign convention
   in :func:`detect` and :func:`crosscheck`); the test, which examines the larger count against
   the smaller, should reject iff ε < |exact_event_eps|.

Departures from StatDP, none of which changes what is tested: the selection counts do not depend
on ε, so one selection batch serves every test ε (StatDP draws one per ε, and so does
``reselect=True``); the test batch of an input pair is shared by every event selected on it; and
the p-value is the exact expectation over the thinning (no Monte-Carlo noise).

Programs (``exactdp.programs``) are run by their own function (``exactdp.programs.sampling``); their
events follow the return type, read from the pilot runs (``exactdp.programs.outputs``).  When the
exact interpreter cannot handle a program or event, the verdict is still given and
:attr:`ExactEvent.unavailable` says why there is no exact loss beside it.

Reproducibility: the runs of (phase, pair, side, chunk) use the seed
``SeedSequence(seed, spawn_key=(phase, pair, side, chunk))`` — the child seed
``SeedSequence(seed).spawn`` would hand out — so a result does not depend on the number of worker
processes or on the order in which chunks finish.  Chunks of at most ``CHUNK_RUNS`` runs bound the
memory.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..errors import InputError, MethodUnavailableError
from ..exact.event_probability.rules import event_probability
from ..exact.losses.privacy_loss import loss_from_probabilities
from ..formatting import printed_log_ratio
from ..progress import Progress
from ..sequences import format_number
from ..checks import check_positive, check_seed, check_writable
from ..events import Event, View, count_events, parse_event, sampled_view, search_space
from ..mechanisms.base import Neighbours
from ..workers import current_scheduler, parallel_map
from .discrete_laws import binom_interval
from .hypothesis import check_counts, p_value
from .inputs import LENGTHS, candidate_inputs, check_pair
from .sampler import sample
from .streaming import sample_columns

#: StatDP's defaults (Ding et al. §5; ``detect_counterexample``).
SELECT_RUNS = 100_000
TEST_RUNS = 500_000
#: Events with ``c1 + c2 < FILTER · n · e^ε`` are too noisy to select (Ding et al., footnote 3).
FILTER = 0.001
#: Largest number of runs drawn at once.
CHUNK_RUNS = 100_000
#: Most runs per input accepted (20,000 times StatDP's default ``TEST_RUNS``: a 10⁹-run test
#: is a job for a Dask cluster, ``docs/scale-out.md``).
MAX_RUNS = 10_000_000_000
#: Most test budgets accepted in one call.
MAX_TEST_EPS = 1000
#: Runs per side of the pilot that places the grids of numeric events.
PILOT_RUNS = 10_000
#: Seed phases; with ``reselect`` the selection for the k-th test ε is phase
#: ``FIRST_RESELECTION + k``.
SELECTION, TEST, PILOT, FIRST_RESELECTION = 0, 1, 2, 100
#: Longest input accepted in ``lengths``.
MAX_INPUT_LENGTH = 1000
#: The neighbour notions of ``neighbours`` (StatDP's ``ALL_DIFFER`` and ``ONE_DIFFER``).
NEIGHBOUR_NOTIONS = ("all", "one")
#: Confidence of the binomial intervals of :func:`crosscheck`.
CONFIDENCE = 0.999
#: Significant digits of the exact event probabilities.
EXACT_DPS = 10


@dataclass(frozen=True)
class Candidate:
    """An input pair, the view of its output and the events searched on it."""

    d1: tuple
    d2: tuple
    view: View
    events: tuple


@dataclass(frozen=True)
class _Chunk:
    """One unit of work: count ``events`` in ``runs`` runs of ``mech`` on ``queries``."""

    mech: object
    queries: tuple
    view: View
    events: tuple
    runs: int
    seed: np.random.SeedSequence


def _count_chunk(chunk: _Chunk) -> np.ndarray:
    components = [chunk.view.component(name) for event in chunk.events
                  for name, _ in event.conditions]
    queries = np.array([float(q) for q in chunk.queries])  # checked when the pair was chosen
    columns = sample_columns(chunk.mech, queries, chunk.runs, np.random.default_rng(chunk.seed),
                             components)
    return count_events(chunk.view, list(chunk.events), columns)


class _Runner:
    """Counts events over chunks, in worker processes when ``jobs > 1`` or on the Dask cluster of
    :func:`~exactdp.workers.use_scheduler`, with a progress bar."""

    def __init__(self, mech, seed: int, jobs: int, progress: bool | None):
        """``progress``: as :class:`~exactdp.progress.Progress`'s ``enabled``."""
        self.mech, self.seed, self.jobs, self.progress = mech, seed, jobs, progress

    def counts(self, phase: int, work: list[tuple[int, Candidate, tuple]], runs: int,
               description: str, meanwhile=None) -> dict:
        """``{pair index: (counts on D1, counts on D2)}`` for ``work = [(pair, candidate,
        events)]``; ``meanwhile()``, if given, is called once the chunks are handed out (so it
        runs while the workers count)."""
        chunks, keys = [], []
        for pair, candidate, events in work:
            for side, queries in enumerate((candidate.d1, candidate.d2)):
                for index, start in enumerate(range(0, runs, CHUNK_RUNS)):
                    seed = np.random.SeedSequence(self.seed, spawn_key=(phase, pair, side, index))
                    chunks.append(_Chunk(self.mech, queries, candidate.view, events,
                                         min(CHUNK_RUNS, runs - start), seed))
                    keys.append((pair, side))
        totals: dict = {}
        counted_chunks = (map(_count_chunk, chunks) if self.jobs == 1 and not current_scheduler()
                          else parallel_map(_count_chunk, chunks, self.jobs))
        with Progress(len(chunks), description, "chunk", self.progress) as progress:
            for index, (key, counted) in enumerate(zip(keys, counted_chunks)):
                totals[key] = totals.get(key, 0) + counted
                progress.update()
                if index == 0 and meanwhile is not None:
                    meanwhile()
        return {pair: (totals[pair, 0], totals[pair, 1]) for pair, _, _ in work}


def check_runs(name: str, value: object) -> int:
    """``value`` if it is a positive integer of at most :data:`MAX_RUNS`."""
    value = check_positive(name, value)
    if value > MAX_RUNS:
        raise InputError(f"{name} may be at most {MAX_RUNS:,} per input, got {name}={value:,}")
    return value


def _pairs(mech, d1, d2, allow_any_pair: bool, lengths=LENGTHS) -> list[tuple[tuple, tuple]]:
    if (d1 is None) != (d2 is None):
        raise InputError("give both d1 and d2, or neither (then StatDP's input patterns are used)")
    if d1 is None:
        return candidate_inputs(mech, check_lengths(lengths))
    return [check_pair(mech, d1, d2, allow_any_pair)]


def check_lengths(lengths) -> tuple[int, ...]:
    """``lengths`` (a sequence, or text such as ``"5,10"``) as distinct positive integers of at
    most :data:`MAX_INPUT_LENGTH`."""
    if isinstance(lengths, str):
        try:
            lengths = [int(part) for part in lengths.split(",")]
        except ValueError:
            raise InputError(f"lengths must be a list of whole numbers like 5,10, got "
                             f"{lengths!r}") from None
    checked = tuple(dict.fromkeys(check_positive("input length", n) for n in lengths))
    if not checked or max(checked) > MAX_INPUT_LENGTH:
        raise InputError(f"lengths must be 1 to {MAX_INPUT_LENGTH} queries, got {list(lengths)}")
    return checked


def with_neighbours(mech, notion: str):
    """``mech`` under StatDP's neighbour notion: ``"all"`` (every query may move; the
    mechanism's own relation, which may be narrower, still applies) or ``"one"`` (one query
    moves: only the "one above"/"one below" patterns, and ``d1``, ``d2`` must differ in one
    query)."""
    if notion not in NEIGHBOUR_NOTIONS:
        raise InputError(f"neighbours must be 'all' or 'one', got {notion!r}")
    if notion == "one" and mech.neighbours is not Neighbours.ONE_DIFFER:
        return dataclasses.replace(mech, neighbours=Neighbours.ONE_DIFFER)
    return mech


def _candidates(mech, pairs, runner: _Runner, event: str | None) -> list[Candidate]:
    """Views and search spaces (or the one given event) of every pair."""
    candidates = []
    for index, (d1, d2) in enumerate(pairs):
        pilots = functools.cache(functools.partial(_pilot_runs, mech, runner.seed, index, d1, d2))
        view = sampled_view(mech, list(d1), pilots, searched=event is None)
        if event is not None:
            events = (parse_event(event, view),)
        else:
            events = tuple(search_space(view, pilots()))
        candidates.append(Candidate(d1, d2, view, events))
    return candidates


def _pilot_runs(mech, seed, index: int, d1, d2) -> list:
    """The pilot runs of pair ``index`` on each side, each from its own seeded stream."""
    return [sample(mech, list(queries), PILOT_RUNS, np.random.default_rng(
        np.random.SeedSequence(seed, spawn_key=(PILOT, index, side))))
        for side, queries in enumerate((d1, d2))]


def _oriented_p_value(c1: int, c2: int, runs: int, eps: float) -> float:
    return p_value(max(c1, c2), min(c1, c2), runs, eps)


def _scores(candidates, counts, runs: int, eps: float) -> list[tuple]:
    """``(pair, event index, c1, c2, p-value)`` of every candidate event; the p-value is
    ``None`` for an event the filter skips."""
    scores = []
    threshold = FILTER * runs * math.exp(eps)
    for pair, candidate in enumerate(candidates):
        c1s, c2s = counts[pair]
        for index in range(len(candidate.events)):
            c1, c2 = int(c1s[index]), int(c2s[index])
            p = None if c1 + c2 < threshold else _oriented_p_value(c1, c2, runs, eps)
            scores.append((pair, index, c1, c2, p))
    return scores


def _select(scores: list[tuple]) -> tuple[int, int]:
    """(pair, event) with the lowest p-value among those passing the filter (the first of all
    candidates when none passes, as StatDP's ``argmin`` over ``inf``)."""
    best, best_p = (0, 0), math.inf
    for pair, index, _, _, p in scores:
        if p is not None and p < best_p:
            best, best_p = (pair, index), p
    return best


def _log_rows(candidates, scores, eps: float, chosen: tuple[int, int]) -> list[dict]:
    """The rows of the event log (:func:`write_event_log`) for one test ε."""
    return [{"test_eps": eps,
             "d1": ",".join(format_number(v) for v in candidates[pair].d1),
             "d2": ",".join(format_number(v) for v in candidates[pair].d2),
             "event": str(candidates[pair].events[index]), "c1": c1, "c2": c2,
             "p_value": p, "selected": (pair, index) == chosen}
            for pair, index, c1, c2, p in scores]


#: Columns of the event log, in order.
EVENT_LOG_FIELDS = ("test_eps", "d1", "d2", "event", "c1", "c2", "p_value", "selected")


def check_event_log(path) -> Path:
    """``path`` as a :class:`~pathlib.Path` if it ends in ``.json`` or ``.csv`` and can be
    written."""
    return check_writable(path, "the event log", (".json", ".csv"))


def write_event_log(path, rows: list[dict]) -> None:
    """Write the selection's counts and p-values: a JSON list of objects, or CSV with the
    header :data:`EVENT_LOG_FIELDS`, by the file's suffix (an empty p-value / ``null``: the
    event was skipped by the filter ``c1 + c2 < 0.001 · n · e^ε``)."""
    path = check_event_log(path)
    with open(path, "w", newline="") as stream:
        if path.suffix.lower() == ".json":
            json.dump(rows, stream, indent=1)
            stream.write("\n")
        else:
            writer = csv.DictWriter(stream, EVENT_LOG_FIELDS)
            writer.writeheader()
            writer.writerows({**row, "p_value": "" if row["p_value"] is None else
                              repr(row["p_value"])} for row in rows)


@dataclass(frozen=True)
class ExactEvent:
    """``Pr[M(D1) ∈ E]``, ``Pr[M(D2) ∈ E]`` (``None`` when the engine cannot compute them, and
    ``unavailable`` says why); certified enclosures where a certified rule exists."""

    p1: object
    p2: object
    unavailable: str | None = None

    def loss(self):
        """``ln P1 − ln P2`` (the centre of its enclosure when certified); ``None`` without
        exact values or when both are 0."""
        if self.p1 is None or (self.p1.is_zero and self.p2.is_zero):
            return None
        return float(loss_from_probabilities(self.p1, self.p2).log_ratio)

    def loss_fields(self) -> dict:
        """The JSON fields of ``ln P1 − ln P2``: ``exact_event_eps``, a decimal string to the
        digits its bound supports (``None`` without exact values or when both are 0), and for
        a certified loss ``exact_event_eps_lower``/``_upper``, the ends of its enclosure rounded
        outward (``"-inf"`` for a structural zero; :func:`~exactdp.formatting.printed_log_ratio`
        at the digits the probabilities were computed to)."""
        if self.loss() is None:
            return {"exact_event_eps": None}
        return printed_log_ratio(loss_from_probabilities(self.p1, self.p2),
                                 max(self.p1.dps, self.p2.dps)).fields("exact_event_eps", False)


@functools.lru_cache(maxsize=256)
def exact_event(mech, candidate: Candidate, event: Event, dps: int = EXACT_DPS) -> ExactEvent:
    """The exact probabilities of ``event`` on both inputs (``None`` if unsupported); cached, as
    repeated tests keep selecting the same few events."""
    try:
        return ExactEvent(*(event_probability(mech, list(queries), event, dps)
                            for queries in (candidate.d1, candidate.d2)))
    except (MethodUnavailableError, InputError) as exc:
        # e.g. a program outside the class the exact interpreter decides
        return ExactEvent(None, None, str(exc))


@dataclass(frozen=True)
class TestResult:
    """StatDP's verdict at one test ε, with the exact loss of the event it tested.

    Attributes
    ----------
    test_eps, p_value : float
    d1, d2 : tuple of Fraction
    event : Event
    c1, c2 : int
        Test counts on D1 and D2 (the p-value examines the larger against the smaller, as
        StatDP's ``run_algorithm`` does).
    exact_event_eps : float or None
        ``ln Pr[M(D1) ∈ E] − ln Pr[M(D2) ∈ E]``, exactly (``None`` when not computable): the
        centre of its certified enclosure (:meth:`ExactEvent.loss_fields` records the enclosure as
        ``exact_event_eps_lower``/``exact_event_eps_upper``); its sign does not follow the
        counts.
    exact : ExactEvent
        The exact probabilities of the event on D1 and D2.
    """

    test_eps: float
    p_value: float
    d1: tuple
    d2: tuple
    event: Event
    c1: int
    c2: int
    exact_event_eps: float | None
    exact: ExactEvent

    @property
    def examined_event_eps(self) -> float | None:
        """The exact loss in the direction the p-value examines: ``exact_event_eps`` when
        ``c1 ≥ c2``, its negative otherwise (the test rejects ε-DP correctly iff this exceeds
        ε).  ``None`` without an exact value."""
        if self.exact_event_eps is None:
            return None
        return self.exact_event_eps if self.c1 >= self.c2 else -self.exact_event_eps

    def record(self) -> dict:
        """The JSON object of ``exactdp test`` (the test ε and the p-value as the floats they
        are; the exact loss as decimal strings, :meth:`ExactEvent.loss_fields`)."""
        return {"test_eps": self.test_eps, "p_value": self.p_value,
                "d1": ",".join(format_number(v) for v in self.d1),
                "d2": ",".join(format_number(v) for v in self.d2),
                "event": str(self.event), "c1": self.c1, "c2": self.c2,
                **self.exact.loss_fields(),
                **({"exact_unavailable": self.exact.unavailable} if self.exact.unavailable
                   else {})}


def _check_budget_count(count: int, given: str) -> None:
    if count > MAX_TEST_EPS:
        raise InputError(f"test eps may hold at most {MAX_TEST_EPS} budgets, got {count:,} "
                         f"budgets from {given}")


def parse_eps_list(text: str) -> list[float]:
    """``"0.2,0.7"`` or ``"a:b:step"`` (``b`` included) as a list of test budgets.

    Examples
    --------
    >>> parse_eps_list("0.2:1:0.4")
    [0.2, 0.6, 1.0]
    """
    try:
        if ":" in text:
            start, stop, step = (float(part) for part in text.split(":"))
            if not step > 0 or stop < start:
                raise ValueError
            count = int(math.floor((stop - start) / step + 1e-9)) + 1
        else:
            values = [float(part) for part in text.split(",")]
            count = len(values)
    except (ValueError, OverflowError):  # OverflowError: a range of infinitely many steps
        raise InputError(f"test eps must be a list like 0.2,0.7 or a range a:b:step with "
                         f"step > 0 and b ≥ a, got {text!r}") from None
    _check_budget_count(count, text)
    if ":" in text:
        values = [round(start + k * step, 12) for k in range(count)]
    for value in values:
        check_counts(0, 0, 1, value)
    return values


def detect(mech, test_eps, d1=None, d2=None, runs: int = TEST_RUNS,
           select_runs: int = SELECT_RUNS, seed: int = 0, jobs: int = 1,
           progress: bool | None = False, allow_any_pair: bool = False,
           lengths=LENGTHS, neighbours: str = "all", reselect: bool = False,
           event_log: list | None = None) -> list[TestResult]:
    """StatDP's ``detect_counterexample``: one :class:`TestResult` per test ε.

    Parameters
    ----------
    mech : a mechanism description (``exactdp.mechanism(...)``)
    test_eps : sequence of float
    d1, d2 : optional
        One input pair to use instead of StatDP's patterns.
    runs, select_runs : int
        Runs per side for the test and for the selection (at most :data:`MAX_RUNS`).
    seed : int
        Everything is reproducible from it.
    jobs : int
        Worker processes (the result does not depend on it).
    progress : bool or None
        Report progress on stderr (``None``: only on a terminal), as
        :class:`~exactdp.progress.Progress` does.
    allow_any_pair : bool
        Do not require ``d1`` and ``d2`` to be neighbours.
    lengths : sequence of int
        Lengths of StatDP's input patterns (default 5 and 10).
    neighbours : {"all", "one"}
        StatDP's neighbour notion (:func:`with_neighbours`).
    reselect : bool
        Draw a fresh selection batch for every test ε, as the paper does (default: one batch
        serves every ε; its counts do not depend on ε).
    event_log : list, optional
        Receives one dict per (test ε, pair, candidate event) with the selection counts and
        p-value (:func:`write_event_log` writes it to a file).
    """
    runs, select_runs = check_runs("runs", runs), check_runs("select_runs", select_runs)
    mech = with_neighbours(mech, neighbours)
    runner = _Runner(mech, check_seed(seed), check_positive("jobs", jobs), progress)
    test_eps = [check_counts(0, 0, 1, eps)[3] for eps in test_eps]
    _check_budget_count(len(test_eps), "the list given")
    candidates = _candidates(mech, _pairs(mech, d1, d2, allow_any_pair, lengths), runner, None)
    work = [(k, c, c.events) for k, c in enumerate(candidates)]
    chosen = []
    for k, eps in enumerate(test_eps):
        if k == 0 or reselect:
            selection = runner.counts(FIRST_RESELECTION + k if reselect else SELECTION, work,
                                      select_runs, f"selecting events (test ε = {eps:g})"
                                      if reselect else "selecting events")
        scores = _scores(candidates, selection, select_runs, eps)
        chosen.append(_select(scores))
        if event_log is not None:
            event_log.extend(_log_rows(candidates, scores, eps, chosen[-1]))
    per_pair: dict = {}
    for pair, index in chosen:
        per_pair.setdefault(pair, [])
        if index not in per_pair[pair]:
            per_pair[pair].append(index)
    tested = runner.counts(TEST, [(pair, candidates[pair], tuple(
        candidates[pair].events[i] for i in indices)) for pair, indices in per_pair.items()],
        runs, "testing", meanwhile=lambda: [exact_event(mech, candidates[pair],
                                                       candidates[pair].events[index])
                                           for pair, index in chosen])  # cached for below
    exact: dict = {}
    results = []
    for eps, (pair, index) in zip(test_eps, chosen):
        candidate = candidates[pair]
        slot = per_pair[pair].index(index)
        c1, c2 = int(tested[pair][0][slot]), int(tested[pair][1][slot])
        if (pair, index) not in exact:
            exact[pair, index] = exact_event(mech, candidate, candidate.events[index])
        results.append(TestResult(eps, _oriented_p_value(c1, c2, runs, eps), candidate.d1,
                                  candidate.d2, candidate.events[index], c1, c2,
                                  exact[pair, index].loss(), exact[pair, index]))
    return results


@dataclass(frozen=True)
class CrossCheck:
    """Sampled counts of one event against its exact probabilities.

    Attributes
    ----------
    d1, d2 : tuple
    event : Event
    exact : ExactEvent
    exact_event_eps : float or None
        ``ln Pr[M(D1) ∈ E] − ln Pr[M(D2) ∈ E]``.
    runs, c1, c2 : int
    interval1, interval2 : (int, int)
        ``scipy.stats.binom.interval(CONFIDENCE, runs, P)`` of each count
        (:func:`~exactdp.sampling.discrete_laws.binom_interval`).
    """

    d1: tuple
    d2: tuple
    event: Event
    exact: ExactEvent
    exact_event_eps: float | None
    runs: int
    c1: int
    c2: int
    interval1: tuple
    interval2: tuple

    @property
    def consistent(self) -> bool:
        """Each count lies inside its exact binomial interval."""
        return all(low <= c <= high for c, (low, high) in
                   ((self.c1, self.interval1), (self.c2, self.interval2)))


def _binomial_interval(runs: int, p) -> tuple[int, int]:
    low, high = binom_interval(CONFIDENCE, runs, float(p.value))
    return int(low), int(high)


def crosscheck(mech, d1=None, d2=None, event: str | None = None, runs: int = SELECT_RUNS,
               seed: int = 0, jobs: int = 1, progress: bool | None = False,
               dps: int = EXACT_DPS, allow_any_pair: bool = False, lengths=LENGTHS,
               neighbours: str = "all") -> CrossCheck:
    """Count one event on fresh runs and compare with its exact probabilities.

    Without ``event``, (D1, D2, E) is selected as by :func:`detect` at the mechanism's claimed ε
    (1 if it claims none), on ``runs`` selection runs, among ``d1, d2`` or StatDP's patterns
    (which need not be neighbours with ``allow_any_pair``); ``lengths`` and ``neighbours`` as
    for :func:`detect`.
    """
    runs = check_runs("runs", runs)
    mech = with_neighbours(mech, neighbours)
    runner = _Runner(mech, check_seed(seed), check_positive("jobs", jobs), progress)
    candidates = _candidates(mech, _pairs(mech, d1, d2, allow_any_pair, lengths), runner, event)
    if event is None:
        eps = float(mech.claimed_eps) if mech.claimed_eps is not None else 1.0
        selection = runner.counts(SELECTION, [(k, c, c.events) for k, c in enumerate(candidates)],
                                  runs, "selecting an event")
        pair, index = _select(_scores(candidates, selection, runs, eps))
    else:
        pair, index = 0, 0
    candidate = candidates[pair]
    chosen = candidate.events[index]
    (c1,), (c2,) = runner.counts(TEST, [(pair, candidate, (chosen,))], runs, "sampling")[pair]
    exact = exact_event(mech, candidate, chosen, dps)
    if exact.p1 is None:
        raise MethodUnavailableError(f"no exact probability of the event {chosen} of "
                                     f"{mech.name}: {exact.unavailable}")
    return CrossCheck(candidate.d1, candidate.d2, chosen, exact, exact.loss(), runs,
                      int(c1), int(c2), _binomial_interval(runs, exact.p1),
                      _binomial_interval(runs, exact.p2))

