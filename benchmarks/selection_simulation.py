"""Simulated runs of selection mechanisms (``exactdp/sampling/selection.py``): time of 100 runs.

The workload of Lyu, Su & Li (PVLDB 2017, §6) as the ``lyu-allocation`` claim scales it: ``n = 200``
items with Zipf counts ``round(R/(i·H_n))``, ``R = 20,000`` records, cutoff ``c = 6``, threshold
halfway between the 6th and 7th counts, ``ε = 1/10``, monotone queries (counts; svt2 has no monotone
variant), and for the two-budget mechanisms the split ``ε1:ε2 = 1:c^{2/3}``.  For each mechanism and
order this prints the median time of 100 seeded runs (``simulate_selection``) and its ratio to the
baseline timed in the same run: the Sparse Vector sampler alone (``sample``, SVT-S in the given
order), which ``simulate_selection`` wraps for the Sparse Vector variants; and the mean ± standard
deviation of the runs' FNR and SER (``run_rates``), the points a figure shows beside the exact
lines.

Run: ``python benchmarks/selection_simulation.py [REPEATS]`` from the repository root (default 7).
"""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import median_time  # noqa: E402
import exactdp  # noqa: E402
from exactdp.claims.lyu_allocation import (RECOMMENDED, allocations, middle_threshold,  # noqa: E402
                                           svt_s, zipf_counts)
from exactdp.sampling.sampler import sample  # noqa: E402
from exactdp.sampling.selection import run_rates, simulate_selection  # noqa: E402

ITEMS, RECORDS, C, RUNS = 200, 20_000, 6, 100
EPS = Fraction(1, 10)


def mechanisms(threshold: Fraction) -> list:
    """``(label, mechanism, order)`` of every case timed (module docstring)."""
    ratio = dict(allocations(C))[RECOMMENDED]
    eps1 = EPS / (1 + ratio)
    svt = svt_s(C, ratio, threshold)
    svt2 = exactdp.mechanism("svt2", eps=EPS, c=C, T=threshold)
    em = exactdp.mechanism("em_top", eps=EPS, c=C, monotone=True)
    retraversal = exactdp.mechanism("svt_retraversal", eps1=eps1, eps2=EPS - eps1, c=C,
                                    T=threshold, monotone=True)
    return [("svt7 (SVT-S)", svt, "given"), ("svt7 (SVT-S)", svt, "random"),
            ("svt2", svt2, "given"), ("svt2", svt2, "random"), ("em_top", em, "given"),
            ("svt_retraversal", retraversal, "given"), ("svt_retraversal", retraversal, "random")]


def main() -> None:
    repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 7
    counts = zipf_counts(ITEMS, RECORDS)
    threshold = middle_threshold(counts, C)
    values = np.array(counts, dtype=float)
    cases = mechanisms(threshold)
    baseline, _ = median_time(lambda: sample(cases[0][1], values, RUNS, np.random.default_rng(0)),
                              repeats)
    print(f"n = {ITEMS}, c = {C}, T = {threshold}, eps = {EPS}, {RUNS} runs, median of {repeats}")
    print(f"{'mechanism':>16}  {'order':>6}  {'median ms':>9}  {'ratio':>6}  "
          f"{'FNR mean ± sd':>15}  {'SER mean ± sd':>15}")
    print(f"{'sample (SVT-S)':>16}  {'given':>6}  {baseline * 1e3:>9.2f}  {1:>6.2f}")
    for label, mech, order in cases:
        seconds, selected = median_time(
            lambda: simulate_selection(mech, values, RUNS, np.random.default_rng(0), order),
            repeats)
        fnr, ser = run_rates(selected, counts, C)
        print(f"{label:>16}  {order:>6}  {seconds * 1e3:>9.2f}  {seconds / baseline:>6.2f}  "
              f"{fnr.mean():>6.3f} ± {fnr.std():.3f}  {ser.mean():>6.3f} ± {ser.std():.3f}",
              flush=True)


if __name__ == "__main__":
    main()
