"""Benchmark: Chen & Machanavajjhala's reconstruction attack (arXiv:1508.07306, §5) on 4096 cells.

Measures, as medians of several repeats:

* the exact expected accuracy of Algorithm 4 at 30 digits (all cells and counts in [0, 5]) and
  the exact probability of Theorem 5.12's event (``m = 0``, Algorithm 3 with the whole ε) on
  the Adult histogram (4096 cells) and on a Zipf histogram (4096 cells, 100,000 tuples,
  exponent 1), for ε = 1, 0.5, 0.1 (target: under a second each);
* 10 simulated repetitions of Algorithm 4 on the same data (target: under a second);
* baselines measured in the same run: one mpmath exponential at 60 digits (the exact accuracy
  is reported per Laplace-mass term of its sum, in units of that exponential: evaluating the
  terms one by one in mpmath costs at least one each),
  Algorithm 3 as written (all ``|T|²`` difference queries, larger-sets, ordering;
  ``algorithm_3_pairwise``) against the sorted-distinct-counts partition on a 512-cell domain,
  and the time numpy takes to sort the 4096 Adult counts once.

Run: ``python benchmarks/reconstruction_speed.py`` from the repository root.
"""

from __future__ import annotations

import sys
from pathlib import Path

import mpmath
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import median_time  # noqa: E402
from exactdp.attacks import (Budget, Histogram, adult, algorithm_3,  # noqa: E402
                             algorithm_3_pairwise, exact_accuracy, simulate,
                             theorem_5_12_probability, zipf)

BUDGETS = ("1", "0.5", "0.1")
REPEATS = 5



def main() -> None:
    data = (adult(), zipf(4096, 100000, 1.0, 0))
    sort_time, _ = median_time(lambda: np.sort(data[0].counts), 51)
    print(f"baseline: numpy sort of the 4096 Adult counts {sort_time * 1e6:.1f} µs")
    with mpmath.workdps(60):
        argument = mpmath.mpf(-37) / 3
        exp_time, _ = median_time(lambda: mpmath.exp(argument), 2001)
    print(f"baseline: one mpmath exponential at 60 digits {exp_time * 1e6:.1f} µs")
    for histogram in data:
        distinct = np.unique(histogram.counts).size
        print(f"\n{histogram.name}: {histogram.domain} cells, {distinct} distinct counts")
        for eps in BUDGETS:
            budget = Budget.algorithm_4(eps)
            exact = exact_accuracy(histogram, budget, 30)
            exact_time, _ = median_time(lambda: exact_accuracy(histogram, budget, 30), REPEATS)
            theorem_time, _ = median_time(lambda: theorem_5_12_probability(
                histogram, Budget.algorithm_3(eps), last=0), REPEATS)
            simulate_time, _ = median_time(lambda: simulate(histogram, budget, 10, 0), REPEATS)
            print(f"  ε = {eps:>3}: exact accuracy (30 digits) {exact_time:6.3f} s, "
                  f"{exact.runs} runs, {exact.terms} terms: "
                  f"{exact_time / exact.terms / exp_time:.2f} mpmath exponentials per term;  "
                  f"Theorem 5.12 {theorem_time * 1e3:5.1f} ms;  "
                  f"10 simulated repetitions {simulate_time * 1e3:5.2f} ms "
                  f"({simulate_time / sort_time:.0f}× one sort)")
    small = Histogram("Zipf 512", zipf(512, 5000, 1.0, 1).counts)
    pairwise, _ = median_time(lambda: algorithm_3_pairwise(small.counts, 6.5), 3)
    fast, _ = median_time(lambda: algorithm_3(small, 6.5), 51)
    print(f"\nAlgorithm 3 on 512 cells: pairwise {pairwise * 1e3:.1f} ms, sorted distinct counts "
          f"{fast * 1e6:.1f} µs: ratio {pairwise / fast:.0f}×")


if __name__ == "__main__":
    main()
