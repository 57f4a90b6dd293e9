"""Benchmark: the certified sum over a discrete hub (``svt_discrete``) against the certified
integral over a continuous one (``svt1``) on the same queries.

``svt_discrete`` with ``b_ρ = 2``, ``b_ν = 4``, c = 1 (the noise scales of ``svt1`` at ε = 1,
c = 1) on n integer queries drawn uniformly from [−w, w] (seeded), output ⊥…⊥⊤, at 30 digits;
``svt1`` (ε = 1, c = 1) on the same queries and output.  The sum runs over the integers between
the outermost kinks (about 2w + 2 terms, each with one factor per distinct query value) and
into the two geometric tails (``exact/backends/discrete_hub.py``).  It prints the median times, the
method, the relative width of the enclosure and the machine-independent ratio
discrete / continuous measured in the same run.

Run: ``python benchmarks/discrete_sum.py [--repeats 3]`` from the repository root.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import median_time  # noqa: E402
import exactdp  # noqa: E402

#: (number of queries, half-width w of the range of their values)
CASES = ((10, 5), (100, 5), (1000, 5), (100, 50), (1000, 500))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    discrete = exactdp.mechanism("svt_discrete", threshold_scale=2, query_scale=4, c=1)
    continuous = exactdp.mechanism("svt1", eps=1, c=1)
    print(f"{'n':>6} {'w':>5} {'distinct':>8} {'discrete s':>11} {'svt1 s':>9} {'ratio':>7}  "
          f"{'rel. width':>10}  method")
    for n, width in CASES:
        rng = random.Random(n * 7919 + width)
        queries = [rng.randint(-width, width) for _ in range(n)]
        output = ["F"] * (n - 1) + ["T"]
        seconds, result = median_time(
            lambda: exactdp.probability(discrete, queries, output, dps=30), args.repeats)
        baseline, _ = median_time(
            lambda: exactdp.probability(continuous, queries, output, dps=30), args.repeats)
        width_ratio = (result.upper - result.lower) / result.value
        print(f"{n:>6} {width:>5} {len(set(queries)):>8} {seconds:>11.3f} {baseline:>9.3f} "
              f"{seconds / baseline:>7.1f}  {float(width_ratio):>10.1e}  {result.method}")


if __name__ == "__main__":
    main()
