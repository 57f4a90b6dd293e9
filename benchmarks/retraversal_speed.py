"""Sparse Vector with retraversal: time of its exact expected utility against the threshold.

The workload of the ``lyu-svt-vs-em`` claim: Zipf items (200, 20,000 records; ``--items=N``
for ``N`` items of ``100·N`` records) in its seeded order, or with ``--paper`` the paper's
10,000 items in the first of the claim's seeded orders on them (``paper_order(0)``), the
allocation 1:c^{2/3} (monotone), the threshold between the ``c``-th and ``(c+1)``-th counts
raised by ``k`` query-noise scales ``D``, 2 digits.  For each increment this prints the median
time and the most traversals a cell of the threshold noise needs; for the increments given
with ``--baseline`` it also times the same computation with every later traversal of every
node computed by the recurrence over all the queries (``retraversal.SETTLED = 0`` and
``retraversal.PASSIVE = 0``: no column settled by Chernoff's bound, no query passive), prints
the ratio of the two, measured in the same run, and checks that their enclosures overlap.

Run: ``python benchmarks/retraversal_speed.py [c] [k …] [--items=N | --paper]
[--baseline=k,…] [--repeats=R]`` from the repository root (default ``c = 6``, increments
``1 2 3 5``, 200 items, baseline ``1``, one run each).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import median_time  # noqa: E402
from exactdp.exact.selection import expected_utility, retraversal  # noqa: E402
from exactdp.claims.lyu_allocation import (ITEMS, PAPER_ITEMS, RECORDS_PER_ITEM,  # noqa: E402
                                            middle_threshold, zipf_counts)
from exactdp.claims.lyu_svt_vs_em import (examination_order, mechanisms,  # noqa: E402
                                          paper_order)

DIGITS = 2


def timed(mech, queries, repeats: int) -> tuple:
    """``(median seconds, result, traversals the search modelled)``."""
    notes = []

    def progress(_done, note=""):
        if note.startswith("traversals"):
            notes.append(note)

    seconds, result = median_time(
        lambda: expected_utility(mech, queries, "given", DIGITS, progress), repeats)
    return seconds, result, notes[-1].split(": ")[1] if notes else "0"


def recurred(mech, queries, repeats: int) -> tuple:
    """:func:`timed` with every later traversal by the recurrence over all the queries
    (module docstring)."""
    kept = retraversal.SETTLED, retraversal.PASSIVE
    retraversal.SETTLED = retraversal.PASSIVE = 0.0
    try:
        return timed(mech, queries, repeats)
    finally:
        retraversal.SETTLED, retraversal.PASSIVE = kept


def main() -> None:
    options = dict((x[2:] + "=").split("=")[:2] for x in sys.argv[1:] if x.startswith("--"))
    numbers = [int(x) for x in sys.argv[1:] if not x.startswith("--")]
    c = numbers[0] if numbers else 6
    raises = numbers[1:] or [1, 2, 3, 5]
    baseline = [int(k) for k in options.get("baseline", "1").split(",") if k]
    repeats = int(options.get("repeats", 1))
    items = PAPER_ITEMS if "paper" in options else int(options.get("items", ITEMS))
    counts = zipf_counts(items, items * RECORDS_PER_ITEM)
    order = paper_order(0, items) if "paper" in options else examination_order(items)
    queries = [counts[i] for i in order]
    chosen = mechanisms(c, middle_threshold(counts, c), tuple(raises))
    where = " (the paper's, order 0)" if "paper" in options else ""
    print(f"{items} items{where}, c = {c}, {DIGITS} digits; base: nothing settled or passive")
    print(f"{'raise':>5}  {'traversals':>10}  {'new s':>8}  {'base s':>8}  {'base/new':>8}  FNR")
    for k in raises:
        mech, _ = chosen[f"SVT-ReTr {k}D"]
        seconds, result, traversals = timed(mech, queries, repeats)
        line = f"{k:>4}D  {traversals:>10}  {seconds:>8.2f}"
        if k in baseline:
            slow, old, _ = recurred(mech, queries, repeats)
            assert all(a.overlaps(b) for a, b in zip(result.selection, old.selection)), \
                "the two computations disagree"
            line += f"  {slow:>8.2f}  {slow / seconds:>8.1f}  {result.fnr} (base: {old.fnr})"
        else:
            line += f"  {'':>8}  {'':>8}  {result.fnr}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
