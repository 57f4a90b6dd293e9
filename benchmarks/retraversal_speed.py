"""Sparse Vector with retraversal: time of its exact expected utility against the threshold.

The workload of the ``lyu-svt-vs-em`` claim: 200 Zipf items (20,000 records) in its seeded
order, the allocation 1:c^{2/3} (monotone), the threshold between the ``c``-th and
``(c+1)``-th counts raised by ``k`` query-noise scales ``D``, 2 digits.  For each increment this
prints the median time with the traversals in double-precision intervals (the default up to
``FLOAT_DIGITS`` digits) and the number of traversals the search needed; for the
increments given with ``--baseline`` it also times the same computation in Arb balls (the
arithmetic used beyond those digits, and by every traversal before it was vectorised) and
prints the ratio of the two, measured in the same run.

Run: ``python benchmarks/retraversal_speed.py [c] [k …] [--baseline=k,…] [--repeats=R]`` from
the repository root (default ``c = 6``, increments ``1 2 3 5``, baseline ``1``, one run each).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import median_time  # noqa: E402
from exactdp.exact.selection import expected_utility, kinds  # noqa: E402
from exactdp.claims.lyu_allocation import (ITEMS, RECORDS_PER_ITEM,  # noqa: E402
                                            middle_threshold, zipf_counts)
from exactdp.claims.lyu_svt_vs_em import examination_order, mechanisms  # noqa: E402

DIGITS = 2


def timed(mech, queries, repeats: int) -> tuple:
    """``(median seconds, E[FNR], traversals the search modelled)``."""
    notes = []

    def progress(_done, note=""):
        if note:
            notes.append(note)

    seconds, result = median_time(
        lambda: expected_utility(mech, queries, "given", DIGITS, progress), repeats)
    return seconds, result.fnr, notes[-1].split(": ")[1] if notes else "0"


def main() -> None:
    options = dict(x[2:].split("=", 1) for x in sys.argv[1:] if x.startswith("--"))
    numbers = [int(x) for x in sys.argv[1:] if not x.startswith("--")]
    c = numbers[0] if numbers else 6
    raises = numbers[1:] or [1, 2, 3, 5]
    baseline = [int(k) for k in options.get("baseline", "1").split(",") if k]
    repeats = int(options.get("repeats", 1))
    counts = zipf_counts(ITEMS, ITEMS * RECORDS_PER_ITEM)
    queries = [counts[i] for i in examination_order(ITEMS)]
    chosen = mechanisms(c, middle_threshold(counts, c), tuple(raises))
    print(f"{'raise':>5}  {'traversals':>10}  {'doubles s':>9}  {'Arb s':>8}  {'ratio':>6}  FNR")
    for k in raises:
        mech, _ = chosen[f"SVT-ReTr {k}D"]
        seconds, fnr, traversals = timed(mech, queries, repeats)
        line = f"{k:>4}D  {traversals:>10}  {seconds:>9.2f}"
        if k in baseline:
            floats = kinds.FLOAT_DIGITS
            kinds.FLOAT_DIGITS = DIGITS - 1  # Arb balls at these digits
            try:
                slow, slow_fnr, _ = timed(mech, queries, repeats)
            finally:
                kinds.FLOAT_DIGITS = floats
            line += f"  {slow:>8.2f}  {slow / seconds:>6.1f}  {fnr} (Arb: {slow_fnr})"
        else:
            line += f"  {'':>8}  {'':>6}  {fnr}"
        print(line, flush=True)


if __name__ == "__main__":
    main()
