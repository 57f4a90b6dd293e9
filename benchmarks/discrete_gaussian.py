"""Benchmark: the Sparse Vector with discrete Gaussian noise on 100 distinct queries, against the
same with discrete Laplace noise on the same queries (same run).

``svt_discrete_gaussian`` (σ1, σ2) and ``svt_discrete`` with ``b_ρ = σ1``, ``b_ν = σ2``, c = 1, on
100 distinct integers drawn from [−100, 100] (seeded), output ⊥…⊥⊤, at 30 digits.  Both are the
certified sum over the integer threshold noise (``exact/backends/discrete_hub.py``); the
discrete Gaussian's tail sums and normaliser are cached per law and precision, so each timed call
starts with that cache cleared (cold).  It prints the median times, the relative width of the
enclosure and the machine-independent ratio discrete Gaussian / discrete Laplace.

Run: ``python benchmarks/discrete_gaussian.py [--repeats 5]`` from the repository root.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import median_time  # noqa: E402
import exactdp  # noqa: E402
from exactdp.discrete_gaussian_law import _tails  # noqa: E402

QUERIES = 100
#: (σ1, σ2): the catalogue's defaults, and ten times wider noise
CASES = ((2, 4), (20, 40))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    queries = random.Random(36).sample(range(-100, 101), QUERIES)
    output = ["F"] * (QUERIES - 1) + ["T"]
    print(f"{'σ1':>4} {'σ2':>4} {'DGauss s':>9} {'DLap s':>8} {'ratio':>6}  {'rel. width':>10}")
    for sigma1, sigma2 in CASES:
        gaussian = exactdp.mechanism("svt_discrete_gaussian", sigma1=sigma1, sigma2=sigma2, c=1)
        laplace = exactdp.mechanism("svt_discrete", threshold_scale=sigma1, query_scale=sigma2,
                                    c=1)
        seconds, result = median_time(
            lambda: exactdp.probability(gaussian, queries, output, dps=30), args.repeats,
            before=_tails.cache_clear)
        baseline, _ = median_time(
            lambda: exactdp.probability(laplace, queries, output, dps=30), args.repeats)
        width = (result.upper - result.lower) / result.value
        print(f"{sigma1:>4} {sigma2:>4} {seconds:>9.3f} {baseline:>8.3f} "
              f"{seconds / baseline:>6.2f}  {float(width):>10.1e}")


if __name__ == "__main__":
    main()
