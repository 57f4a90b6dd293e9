"""The execution paths of a program explored breadth first, runs that reach a branch in the same
state merged there: a running best over n queries in O(n²) runs instead of 2^(n−1).

The exploration keeps a *frontier* of partial runs: each is the program re-run along a decision
sequence up to the first comparison that needs a new decision, where it is *suspended* — its
constraints on the noises so far, and the state of the program (``frame_state.py``) together
with the run's draws, step count and the comparison it is at, as a key.  Partial runs with one
key have the same future: the program is deterministic given its answers, so from equal states
the same answers give the same comparisons, draws and return value; what differs is only the
set of noise values that led there.  Their constraints are merged
(:func:`~.path_merging.merge_group`: the union of their events is the hull of their constraints
up to a set of probability 0), and each merged set continues as one partial run: the first
member's decisions are replayed up to the suspended comparison — with the constraints of every
earlier merge on its way installed where they were, so that each comparison is decided or
implied as it was — the merged constraints are installed in place of its own
(``Run.use_intervals``), and it takes each answer of that comparison.  Every output's
probability is unchanged: the events of the paths through a merged group are the members'
events, each cut by the same future events (docs/mathematics.md §16, "Merging while
tracing").  The complete paths are merged the same way per output
(:func:`~.path_merging.merge_paths`).

The exploration gives up, and the depth-first trace (``tracing.trace``) runs instead, as soon as
a state cannot be snapshotted, a group's constraints are not differences of continuous noises,
a path releases a number, a merged path has a cycle of comparisons, the program uses
``.max()``/``.argmax()`` of an array (one branch per winner), a run fails, the runs exceed the
path limit, no two runs have merged after :data:`RUNS_BEFORE_MERGING` runs, or one depth holds
more than :data:`FRONTIER_LIMIT` partial runs: on those programs the trace is exactly the
depth-first one.
"""

from __future__ import annotations

import gc
import sys
from dataclasses import dataclass

from ..errors import InputError
from .exact_numbers import exact_argument
from .frame_state import SUPPORTED, branch_state, exact_pair
from .linear import RUNS, Linear, SymbolicPRNG, numpy_of_symbols
from .path_merging import merge_group, merge_paths
from .sandbox import TRACE_TIMEOUT, sandbox
from .tracing import PATH_LIMIT, Path, Run, _Infeasible, flatten_result, step_limit, trace
from .trees import find_cycle, neighbours_of


#: Runs after which the exploration gives up if no two have merged (a program whose runs never
#: meet, Sparse Vector's, is traced depth first almost at once).
RUNS_BEFORE_MERGING = 32
#: Partial runs at one depth beyond which it gives up (the depth-first trace, which replays
#: less of each run, is then cheaper).
FRONTIER_LIMIT = 1024


class _Suspended(BaseException):
    """A run reached a comparison that needs a new decision (a ``BaseException``: a program's
    ``except Exception`` does not catch it)."""

    def __init__(self, key, path: Path):
        super().__init__()
        self.key, self.path = key, path


class _GiveUp(BaseException):
    """The breadth-first exploration cannot continue soundly (module docstring)."""


@dataclass
class _Partial:
    """A partial run: the decisions it replays, and the constraints it takes in place of its
    own before some of them (decision → constraints): every merge on its way, so that each
    comparison is decided or implied as it was when the decisions were taken."""

    decisions: list
    installs: dict


class _Hooks:
    """What a :class:`~.tracing.Run` calls while it is explored breadth first."""

    def __init__(self, entry_frame, prng: SymbolicPRNG, pinned: list):
        self.entry_frame, self.prng, self.pinned = entry_frame, prng, pinned
        self.stopped = False   # a suspension or a refusal was raised into the program

    def suspend(self, run: Run, comparison: tuple) -> None:
        """Stop the run at a comparison needing a new decision, with its state as the key."""
        if self.stopped:
            self.abandon()   # the program caught the first stop and went on
        try:
            frames = branch_state(sys._getframe(2), self.entry_frame, self.prng, self.pinned)
        except Exception:  # noqa: BLE001 - e.g. a structure too deep: not merged
            frames = None
        if frames is None:
            self.abandon()
        key, factor, bound, positive, strict = comparison
        self.stopped = True
        raise _Suspended((frames, tuple(run.noises), run.steps, run.empty_index,
                          key, exact_pair(factor), exact_pair(bound), positive, strict),
                         Path(tuple(run.noises), dict(run.fractions), ()))

    def abandon(self) -> None:
        """Give the exploration up (module docstring)."""
        self.stopped = True
        raise _GiveUp


def trace_merging(func, queries, kwargs: dict, limit: int = PATH_LIMIT,
                  progress: bool | None = None, steps: int | None = None,
                  timeout: float | None = TRACE_TIMEOUT) -> list[Path]:
    """The paths of ``func(prng, queries, **kwargs)`` (:func:`~.tracing.trace`'s parameters),
    explored breadth first with the runs at equal states merged (module docstring), or traced
    depth first where that is not possible.  Every output has the probability it has under the
    depth-first trace."""
    if SUPPORTED:
        paths = _explore(func, queries, kwargs, limit,
                         step_limit(queries) if steps is None else steps, timeout)
        if paths is not None:
            return paths
    return trace(func, queries, kwargs, limit, progress, steps, timeout)


def _explore(func, queries, kwargs: dict, limit: int, steps: int,
             timeout: float | None) -> list[Path] | None:
    """The merged paths, or ``None`` when the exploration gives up (module docstring)."""
    arguments = {k: exact_argument(v) for k, v in kwargs.items()}
    exact_queries = [exact_argument(q) for q in queries]
    frontier, complete, runs, pinned, merged = [_Partial([], {})], [], 0, [], False
    collecting = gc.isenabled()
    gc.disable()
    try:
        with sandbox(func, timeout=timeout, what="the trace of one path of the program") as \
                watchdog, numpy_of_symbols():
            while frontier:
                groups: dict = {}
                for partial in frontier:
                    runs += 1
                    watchdog.tick()
                    if runs > limit:
                        return None
                    run = Run(steps)
                    run.decisions, run.installs = list(partial.decisions), dict(partial.installs)
                    prng = SymbolicPRNG(run)
                    run.frontier = hooks = _Hooks(sys._getframe(), prng, pinned)
                    RUNS.append(run)
                    try:
                        entries = flatten_result(func(prng, list(exact_queries), **arguments),
                                                 run.empty_index)
                    except _Suspended as suspension:
                        groups.setdefault(suspension.key, []).append(
                            (partial, run.decisions, suspension.path))
                        continue
                    except _Infeasible:
                        entries = None
                    finally:
                        RUNS.pop()
                    if hooks.stopped:
                        return None   # the program caught a stop and went on
                    if entries is not None:
                        if any(isinstance(entry, Linear) for entry in entries):
                            return None
                        complete.append(Path(tuple(run.noises), dict(run.fractions), entries))
                frontier, merging = _next_frontier(groups)
                merged = merged or merging
                if frontier is None or len(frontier) > FRONTIER_LIMIT \
                        or (not merged and runs + len(frontier) > RUNS_BEFORE_MERGING):
                    return None
    except (_GiveUp, InputError):
        return None
    except Exception:  # noqa: BLE001 - the depth-first trace reports the program's failure
        return None
    finally:
        if collecting:
            gc.enable()
    paths = merge_paths(complete)
    return paths if all(_forest(path) for path in paths) else None


def _forest(path: Path) -> bool:
    """Whether a path's links (relations on two noises) form a forest, decided like every tree
    of comparisons; a merged path with a cycle may be outside the class where the depth-first
    trace's paths, merged after it, are not."""
    links = {frozenset(k for k, _ in key) for key in path.intervals}
    return find_cycle(neighbours_of(set(range(len(path.noises))), links)) is None


def _next_frontier(groups: dict) -> tuple[list[_Partial] | None, bool]:
    """Each group of suspended runs merged, each merged set continued with both answers of its
    comparison from the first member's decisions (``None``: a group cannot be merged), and
    whether two runs were merged."""
    frontier, merging = [], False
    for members in groups.values():
        merged = merge_group([path for *_, path in members])
        if merged is None:
            return None, False
        merging = merging or len(merged) < len(members)
        partial, decisions, _ = members[0]
        for path in merged:
            installs = {**partial.installs, len(decisions): path.intervals}
            frontier += [_Partial(decisions + [answer], installs) for answer in (True, False)]
    return frontier, merging
