"""The exact worst-case search: ``exactdp search`` (docs/search.md).

For a mechanism ``M`` with claimed budget ε the search looks for neighbouring inputs ``D1, D2``
and an output ``a`` with ``ln(Pr[M(D1) = a] / Pr[M(D2) = a]) > ε`` (Dwork & Roth, Def. 2.4).
Every candidate pair is scored by its *exact* worst output, so a reported witness is a proof, to
the stated error, and can be re-checked with ``exactdp loss``.

Candidates, in this order (all from one ``numpy.random.Generator`` seeded with ``seed``):

1. StatDP's input patterns (Ding et al. CCS 2018, Table 1) for every length
   ``1..max_length``, on the values ``origin + {0, 1, 2}·Δ``;
2. then, alternately, a random neighbouring pair and a mutation of the best pair so far (one
   position changed, or the pair extended by one position): a stochastic local search.

A family plugs in with a generic function (``functools.singledispatch``), registered from the
family's own module (``exactdp.exact.losses.worst_output``):

* ``worst_output`` — the exact worst output of one pair: enumerated for ⊤/⊥ outputs
  (``max_privacy_loss``) and noisy-max indices; for released numbers (Sparse Vector variants
  that release values or gaps, the noisy maximum) a search over each value's kinks and grid
  refined by Brent's method (``maximise_over_values``); the maximising point density for the
  noisy sums and the histogram.

Reproducibility: the search stops after ``max_evaluations`` distinct pairs, at an infinite loss
(nothing can beat it), or after ``budget`` seconds if one is given, whichever comes first.  The
result records which one stopped it; when it is not the clock (the default has no clock), the same
seed gives the same witness on any machine.
"""

from __future__ import annotations

import shlex
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import mpmath
import numpy as np

from .errors import InputError
from .exact.event_probability.rules import event_privacy_loss
from .precision import to_mpf
from .exact.losses.privacy_loss import (MAX_ENUMERATED_QUERIES, privacy_loss)
from .exact.losses.worst_output import (Witness, scored_outputs, witness_score, worst_event,
                                         worst_output)
from .formatting import echoed_number, format_value, printed_log_ratio
from .mechanisms.base import Mechanism, Neighbours
from .sampling.inputs import input_patterns
from .progress import Progress
from .checks import check_positive, check_seed
from .sequences import Runs, format_number

#: Values of a random query, in units of Δ from the origin.
RANDOM_LEVELS = (-1, 0, 1, 2)
#: Most ⊤/⊥ patterns scored per pair: all outputs of 12 queries, as ``max_privacy_loss``
#: enumerates (svt6 at ``max_length=10``, 1024 patterns, takes about 4 minutes).
MAX_PATTERNS = 2**MAX_ENUMERATED_QUERIES


@dataclass(frozen=True)
class InputSpace:
    """Which query vectors are neighbours, and around which value queries are interesting.

    Attributes
    ----------
    mechanism : Mechanism
        Its sensitivity and neighbour relation decide which pairs are neighbours.
    origin : Fraction
        Query values are ``origin + k·Δ`` (the threshold ``T`` of an SVT variant).
    """

    mechanism: Mechanism
    origin: Fraction = Fraction(0)

    @property
    def sensitivity(self) -> Fraction:
        """``Δ``: a query moves by at most this much."""
        return self.mechanism.sensitivity

    @property
    def one_differ(self) -> bool:
        """At most one query differs (CheckDP's ``ONE_DIFFER``)."""
        return self.mechanism.neighbours is Neighbours.ONE_DIFFER

    @property
    def monotone(self) -> bool:
        """All moving queries move in the same direction."""
        return self.mechanism.neighbours is Neighbours.MONOTONE

    def allows(self, d1: tuple, d2: tuple) -> bool:
        """Whether ``d1`` and ``d2`` are neighbours (the mechanism's own check)."""
        return self.mechanism.neighbour_violation(Runs.from_items(d1), Runs.from_items(d2)) is None


def input_space(mech: Mechanism) -> InputSpace:
    """The neighbouring inputs of ``mech``, around its :attr:`~Mechanism.query_origin`."""
    if not isinstance(mech, Mechanism):
        raise InputError(f"exactdp search needs a mechanism description, got "
                         f"{type(mech).__name__}")
    return InputSpace(mech, mech.query_origin)


def param_options(mech) -> str:
    """``--param k=v`` for every parameter of ``mech`` that is set (for a re-check command)."""
    def spell(value):
        return format_number(value) if isinstance(value, Fraction) else value

    return " ".join(f"--param {key}={spell(value)}" for key, value in mech.params.items()
                    if value is not None)


def input_options(d1: str, d2: str) -> str:
    """``--d1=… --d2=…`` quoted for a shell (``--d2=-1,0``: a value starting with ``-`` would
    otherwise be read as an option)."""
    return f"--d1={shlex.quote(d1)} --d2={shlex.quote(d2)}"


@dataclass(frozen=True)
class SearchResult:
    """The largest privacy loss found, oriented so that ``log_ratio ≥ 0``.

    Attributes
    ----------
    mechanism : object
        The mechanism searched.
    witness : Witness
        The best pair and output (``witness.loss.log_ratio ≥ 0``).
    claimed : Fraction or None
        The claimed budget ε.
    evaluations : int
        Distinct pairs scored.
    stopped_by : str
        ``"evaluations"``, ``"time"``, ``"infinite loss"`` or ``"violation"`` (with
        ``stop_at_violation``).
    seconds : float
        Wall-clock time of the search.
    first_violation : int or None
        The evaluation count at which a loss above the claim was first seen.
    """

    mechanism: object
    witness: Witness
    claimed: Fraction | None
    evaluations: int
    stopped_by: str
    seconds: float
    first_violation: int | None

    @property
    def verdict(self) -> str:
        """``"violation"`` when the loss exceeds the claim by more than its error estimate."""
        if self.claimed is None:
            return "no claim"
        loss = self.witness.loss
        return "violation" if loss.log_ratio - loss.error > to_mpf(self.claimed) else "within claim"

    def record(self, dps: int = 15, text: bool = False) -> dict:
        """The JSON record of ``exactdp search --json`` (``text``: the claimed ε spelled
        exactly, for the table)."""
        loss, mech, witness = self.witness.loss, self.mechanism, self.witness
        params = param_options(mech)
        ratio = printed_log_ratio(loss, dps)
        d1, d2, output = (str(x) for x in (witness.d1, witness.d2, witness.output))
        record = {
            "mechanism": str(mech), "d1": d1, "d2": d2, "output": output,
            "log_ratio": ratio.value, "log_ratio_error": ratio.error,
            "claimed": "none" if self.claimed is None else echoed_number(self.claimed, dps,
                                                                         text),
            "verdict": self.verdict, "evaluations": self.evaluations,
            "stopped_by": self.stopped_by, "first_violation": self.first_violation,
            "recheck": f"exactdp loss {mech.name} {params} {input_options(d1, d2)} "
                       f"--output={shlex.quote(output)}",
        }
        if witness.event is not None:
            record.update({
                "event": witness.event,
                "event_log_ratio": printed_log_ratio(witness.event_loss, dps).value,
                "event_recheck": f"exactdp loss {mech.name} {params} {input_options(d1, d2)} "
                                 f"--event {shlex.quote(witness.event)}"})
        return record


def _pattern_pairs(space: InputSpace, max_length: int):
    for n in range(1, max_length + 1):
        for d1, d2 in input_patterns(space.mechanism, n, space.origin):
            yield list(d1), list(d2)


def _random_move(space: InputSpace, rng: np.random.Generator) -> Fraction:
    return space.sensitivity * int(rng.integers(-1, 2))


def _random_pair(space: InputSpace, max_length: int, rng: np.random.Generator):
    n = int(rng.integers(1, max_length + 1))
    d1 = [space.origin + space.sensitivity * int(rng.choice(RANDOM_LEVELS)) for _ in range(n)]
    if space.one_differ:
        d2 = list(d1)
        d2[int(rng.integers(n))] += space.sensitivity * int(rng.choice((-1, 1)))
        return d1, d2
    sign = int(rng.choice((-1, 1)))
    moves = [abs(_random_move(space, rng)) * sign if space.monotone else _random_move(space, rng)
             for _ in range(n)]
    return d1, [a + m for a, m in zip(d1, moves)]


def _mutate(pair, space: InputSpace, max_length: int, rng: np.random.Generator):
    d1, d2 = list(pair[0]), list(pair[1])
    if len(d1) < max_length and rng.random() < 0.3:
        position = int(rng.integers(len(d1) + 1))
        d1.insert(position, d1[min(position, len(d1) - 1)])
        d2.insert(position, d2[min(position, len(d2) - 1)])
    i = int(rng.integers(len(d1)))
    level = space.origin + space.sensitivity * int(rng.choice(RANDOM_LEVELS))
    move = d2[i] - d1[i] if space.one_differ else _random_move(space, rng)
    d1[i], d2[i] = level, level + move
    return d1, d2


def _check_patterns(mech, max_length: int) -> None:
    """An :class:`InputError` when :func:`worst_output` would score more than
    :data:`MAX_PATTERNS` outputs per pair on ``max_length`` queries, naming the longest length
    that is searched."""
    count = scored_outputs(mech, max_length)
    if count is None or count <= MAX_PATTERNS:
        return
    longest = max(n for n in range(1, max_length) if scored_outputs(mech, n) <= MAX_PATTERNS)
    raise InputError(f"{mech.name} has {count:,} ⊤/⊥ patterns on max_length={max_length} "
                     f"queries, each scored for every pair; at most {MAX_PATTERNS:,} are "
                     f"searched, so max_length may be at most {longest}")


@dataclass(frozen=True)
class Exploration:
    """How :func:`explore` ended: distinct pairs scored, why it stopped (``"evaluations"``,
    ``"time"``, ``"exhausted"``, ``"violation"`` or the ceiling's name), its wall-clock time and
    the evaluation count at which a violation was first seen (``None``: never)."""

    evaluations: int
    stopped_by: str
    seconds: float
    first_violation: int | None


def explore(mech, score_pair: Callable, score: Callable, violates: Callable, *,
            max_length: int, seed: int, budget: float | None, max_evaluations: int,
            stop_at_violation: bool, progress: bool | None, ceiling: tuple[str, object],
            noun: str) -> tuple[object, Exploration]:
    """The candidate pairs of the search (module docstring), each scored, and the best one.

    Parameters
    ----------
    mech
        A mechanism whose family registers :func:`input_space`.
    score_pair : callable
        ``score_pair(d1, d2)`` (two :class:`~exactdp.sequences.Runs`) → a candidate with
        attributes ``d1`` and ``d2`` (mutations start from the best candidate's pair).
    score : callable
        ``score(candidate)`` → a real number; the largest wins (the first of equals).
    violates : callable
        ``violates(candidate)`` → whether it refutes the claim.
    ceiling : (str, number)
        A score nothing can beat (``+∞`` for a loss, 1 for ``δ``) and the ``stopped_by`` it gives.
    noun : str
        What the score is, for the progress line.

    The other parameters are :func:`search`'s.
    """
    max_length = check_positive("max_length", max_length)
    max_evaluations = check_positive("max_evaluations", max_evaluations)
    if budget is not None and not budget > 0:
        raise InputError(f"budget must be a positive number of seconds, got budget={budget!r}")
    rng = np.random.default_rng(check_seed(seed))
    space = input_space(mech)
    _check_patterns(mech, max_length)
    start = time.perf_counter()
    seen: set = set()
    best = None
    first_violation = None
    patterns = _pattern_pairs(space, max_length)
    stopped_by = "evaluations"
    attempts = 0
    with Progress(max_evaluations, "searching", "pair", progress) as bar:
        while len(seen) < max_evaluations:
            if best is not None and budget is not None and time.perf_counter() - start > budget:
                stopped_by = "time"
                break
            attempts += 1
            pair = next(patterns, None)
            if pair is None:
                use_mutation = best is not None and attempts % 2 == 0
                pair = (_mutate((best.d1.expand(), best.d2.expand()), space, max_length, rng)
                        if use_mutation else _random_pair(space, max_length, rng))
            key = (tuple(pair[0]), tuple(pair[1]))
            if (key in seen or (key[1], key[0]) in seen or key[0] == key[1]
                    or not space.allows(*key)):
                if attempts > 50 * max_evaluations:
                    stopped_by = "exhausted"
                    break
                continue
            seen.add(key)
            candidate = score_pair(Runs.from_items(key[0]), Runs.from_items(key[1]))
            if best is None or score(candidate) > score(best):
                best = candidate
            bar.update(note=f"largest {noun} so far {format_value(score(best), 6)}")
            exceeds = violates(candidate)
            if exceeds and first_violation is None:
                first_violation = len(seen)
            if score(best) >= ceiling[1] or (exceeds and stop_at_violation):
                stopped_by = ceiling[0] if score(best) >= ceiling[1] else "violation"
                break
    return best, Exploration(len(seen), stopped_by, time.perf_counter() - start, first_violation)


def search(mech, max_length: int = 5, seed: int = 0, budget: float | None = None,
           max_evaluations: int = 200, dps: int = 15,
           stop_at_violation: bool = False, progress: bool | None = False) -> SearchResult:
    """Search neighbouring inputs for the largest exact privacy loss of ``mech``.

    Parameters
    ----------
    mech
        A catalogue mechanism whose family registers :func:`input_space` and :func:`worst_output`.
    max_length : int
        Longest query vector tried; for a Sparse Vector variant at most as long as gives
        :data:`MAX_PATTERNS` ⊤/⊥ patterns (:func:`pattern_count`), each scored for every pair.
    seed : int
        Seed of the only random generator (``numpy.random.default_rng``), a non-negative integer.
    budget : float, optional
        Wall-clock limit in seconds (default: none, so the result depends on the seed only).
    max_evaluations : int
        Limit on distinct pairs scored (the reproducible limit, see the module docstring).
    dps : int
        Digits of the exact computations.
    stop_at_violation : bool
        Stop at the first pair whose loss exceeds the claim (for timing).
    progress : bool or None
        Report the pairs scored on stderr (``None``: only on a terminal;
        :class:`~exactdp.progress.Progress`).

    Returns
    -------
    SearchResult

    Examples
    --------
    >>> import exactdp, exactdp.search
    >>> result = exactdp.search.search(exactdp.mechanism("bad_partial_sum"), max_length=2)
    >>> result.verdict, str(result.witness.loss.log_ratio)
    ('violation', '2.0')
    """
    best, explored = explore(
        mech, lambda d1, d2: worst_output(mech, d1, d2, dps), witness_score,
        lambda witness: (mech.claimed_eps is not None
                         and witness_score(witness) > to_mpf(mech.claimed_eps)),
        max_length=max_length, seed=seed, budget=budget, max_evaluations=max_evaluations,
        stop_at_violation=stop_at_violation, progress=progress,
        ceiling=("infinite loss", mpmath.inf), noun="|ln ratio|")
    d1, d2 = (best.d1, best.d2) if best.loss.log_ratio >= 0 else (best.d2, best.d1)
    event = worst_event(mech, d1, d2)
    best = Witness(d1, d2, best.output,
                   privacy_loss(mech, d1, d2, str(best.output), dps, allow_any_pair=True), event,
                   None if event is None else event_privacy_loss(mech, d1, d2, event, dps,
                                                                 allow_any_pair=True))
    return SearchResult(mech, best, mech.claimed_eps, explored.evaluations, explored.stopped_by,
                        explored.seconds, explored.first_violation)


