"""A proven lower bound on the number of execution paths of a traced program, from a few of its
runs, so that a trace beyond its path limit is refused early instead of after the limit's runs.

The tracer takes a *decision* only where both answers of a comparison are consistent with the
intervals so far (otherwise the answer is implied), and its depth-first exploration runs the
program once per leaf of the binary tree of decisions.  In a tree whose every inner node has two
children the leaves outnumber the inner nodes by one, so

    runs of the trace = decision nodes + 1,

and every decision node seen on *any* run proves one run of the trace.  :class:`PathCounter`
chooses runs that see many new nodes each: the branch not yet taken that is closest to the root
(first in, first out), followed by new decisions that all take the same answer — the one whose
runs have seen more new nodes on average (``False`` on a tie), the other one every
:data:`TRY_OTHER_EVERY`-th run.  On a Sparse Vector loop over n queries with cutoff c (its paths
are the outputs with fewer than c ⊤ and those ending at the c-th: Σ_{k≤c} C(n, k), by the
hockey-stick identity), the all-``False`` run from a branch at depth d sees the n − d − 1
comparisons after it, so a few times limit/n runs prove more than ``limit`` paths, where the
depth-first trace needs ``limit`` runs.

A run of the counter replays only what it shares with the counter's previous run (consecutive
branches of the queue share most of their way from the root), and builds the constraints of
every new decision, so it costs as much as several runs of the trace; it is worth one when it
sees many new nodes.  :meth:`PathCounter.due` spaces the counter's runs accordingly: after the
first ``start`` runs of the trace, one run of the counter every ``SPACING / m`` runs of the trace
(between 1 and :data:`SPACING`), m the new nodes its last :data:`RECENT` runs saw on average.

The tree is stored as the parent and the answer leading to each decision node (two flat arrays):
every branch is taken once, so the nodes a run sees beyond its forced prefix are all new.
"""

from __future__ import annotations

from array import array
from collections import deque

#: Every this many runs, new decisions take the answer that has seen fewer nodes so far.
TRY_OTHER_EVERY = 16
#: Most runs of the trace between two runs of the counter (:meth:`PathCounter.due`).
SPACING = 128
#: Runs of the counter whose new nodes set the spacing.
RECENT = 16


class PathCounter:
    """The decision nodes seen so far and the branches not taken yet.

    Parameters
    ----------
    start : int
        Runs of the trace before the counter's first run (a trace with fewer paths is not
        counted).

    Attributes
    ----------
    nodes : int
        Decision nodes seen: the trace runs the program at least ``nodes + 1`` times.
    runs : int
        Runs recorded so far.

    Examples
    --------
    The tree of ``if η1 > 0: if η2 > 0: …`` (three leaves, two decision nodes):

    >>> counter = PathCounter(start=0)
    >>> counter.next_run()
    ([], False)
    >>> counter.record([False], forced=0)   # η1 > 0 answered False: one node, a leaf
    >>> counter.next_run()
    ([True], True)
    >>> counter.record([True, True], forced=1)   # then η2 > 0: a second node
    >>> counter.next_run()
    ([True, False], False)
    >>> counter.record([True, False], forced=2)
    >>> counter.nodes + 1, counter.due(100)   # the whole tree is known: no more runs
    (3, False)
    """

    def __init__(self, start: int):
        self.nodes = 0
        self.runs = 0
        self._next_at = start
        self._parents = array("q")     # node → its parent (−1 for the root)
        self._answers = array("b")     # node → the answer that leads to it from its parent
        self._pending: deque = deque([None])  # (node, answer) not taken yet; None: the root
        self._seen = {False: [0, 0], True: [0, 0]}  # answer of new decisions → [runs, nodes]
        self._recent: deque = deque(maxlen=RECENT)  # new nodes of the last runs
        self._answer = False

    def due(self, trace_runs: int) -> bool:
        """Whether the counter wants a run after the trace's ``trace_runs``-th."""
        return bool(self._pending) and trace_runs >= self._next_at

    def stop(self) -> None:
        """Ask for no more runs (a run failed: the depth-first trace meets it in its turn)."""
        self._pending.clear()

    def next_run(self) -> tuple[list[bool], bool]:
        """The decisions of the next run up to its untaken branch, and the answer of every new
        decision after them."""
        branch = self._pending[0]
        prefix: list[bool] = []
        if branch is not None:
            node, answer = branch
            prefix.append(answer)
            while self._parents[node] >= 0:
                prefix.append(bool(self._answers[node]))
                node = self._parents[node]
            prefix.reverse()
        better = max((False, True), key=self._mean)
        self._answer = better != (self.runs % TRY_OTHER_EVERY == TRY_OTHER_EVERY - 1)
        return prefix, self._answer

    def _mean(self, answer: bool) -> float:
        """New nodes per run when new decisions answer ``answer`` (∞ before its first run)."""
        runs, nodes = self._seen[answer]
        return nodes / runs if runs else float("inf")

    def record(self, decisions: list[bool], forced: int) -> None:
        """The decisions of the run :meth:`next_run` chose, the first ``forced`` of them
        given."""
        branch = self._pending.popleft()
        parent, answer = (-1, False) if branch is None else branch
        for decision in decisions[forced:]:
            node = len(self._parents)
            self._parents.append(parent)
            self._answers.append(answer)
            self._pending.append((node, not decision))
            parent, answer = node, decision
        new = len(self._parents) - self.nodes
        seen = self._seen[self._answer]
        seen[0] += 1
        seen[1] += new
        self._recent.append(new)
        self.nodes = len(self._parents)
        self.runs += 1
        mean = sum(self._recent) / len(self._recent)
        self._next_at += min(SPACING, max(1, round(SPACING / mean))) if mean else SPACING
