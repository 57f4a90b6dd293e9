"""Benchmark: Gaussian Sparse Vector (cutoff 1) probabilities at thousands of positions of a run
of 10^6 equal queries at once (``exact/backends/run_positions.py``), against one certified
integral form per position (``divergences/threshold_runs.RunProbabilities``), in the same run.

``svt_gaussian`` (σ1 = 2, σ2 = 4, c = 1) on ``0*1000000``, 40 digits.  Two sets of 3000
positions: ``blocks``, 150 Chebyshev points (rationals, mostly not integers) in each of 20
blocks of doubling length ``[2^i − 1, 2^{i+1} − 1)`` up to 10^6 (what interpolatory rules over
the run ask for); ``even``, 3000 integers evenly spread over ``[0, 10^6)``.  For each set and
both ``prefix`` values: the median wall-clock and CPU times of all positions at once, and the
CPU time per position; then the median CPU time per form of ``RunProbabilities`` (``top`` or
``prefix``) on ``--sample`` of the even positions, and the ratio of the two per-position CPU
times (on a shared machine the CPU time says how much work was done).

Run: ``python benchmarks/run_positions.py [--repeats 3] [--sample 8]`` from the repository
root.
"""

from __future__ import annotations

import argparse
import math
import sys
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import medians  # noqa: E402
import exactdp  # noqa: E402
from exactdp.exact.backends.run_positions import probabilities_at  # noqa: E402
from exactdp.exact.divergences.threshold_runs import RunProbabilities  # noqa: E402
from exactdp.sequences import as_queries  # noqa: E402

DPS = 40
LENGTH = 10 ** 6
POINTS = 3000
BLOCKS = 20


def block_positions() -> list:
    """150 Chebyshev points in each of 20 blocks of doubling length (module docstring), as
    rationals of denominator 1000, within ``[0, LENGTH)``."""
    per_block = POINTS // BLOCKS
    positions = []
    for i in range(BLOCKS):
        low, high = 2 ** i - 1, min(2 ** (i + 1) - 1, LENGTH - 1)
        for k in range(per_block):
            x = math.cos(math.pi * (2 * k + 1) / (2 * per_block))
            positions.append(Fraction(round(((low + high) / 2 + (high - low) / 2 * x) * 1000),
                                      1000))
    return positions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sample", type=int, default=8,
                        help="positions timed one certified form each")
    args = parser.parse_args()
    mech = exactdp.mechanism("svt_gaussian", sigma1=2, sigma2=4, c=1)
    queries = as_queries(f"0*{LENGTH}")
    even = [k * (LENGTH // POINTS) for k in range(POINTS)]
    sample = even[1::POINTS // args.sample][:args.sample]
    for prefix in (False, True):
        kind = "prefix A(κ)" if prefix else "top P(κ)"
        print(f"{kind}, {DPS} digits, 0*{LENGTH}", flush=True)
        shared = {}
        for name, positions in (("blocks", block_positions()), ("even", even)):
            t, cpu, _ = medians(lambda: probabilities_at(mech, queries, positions, DPS, prefix),
                                args.repeats)
            shared[name] = cpu / len(positions)
            print(f"  {name:6s} {len(positions)} positions: {t:6.3f} s wall, {cpu:6.3f} s CPU, "
                  f"{1e3 * shared[name]:.3f} ms CPU per position", flush=True)

        def forms():
            probabilities = RunProbabilities(mech, queries, queries)
            form = probabilities.prefix if prefix else probabilities.top
            return [form(0, position, DPS) for position in sample]

        _, cpu, _ = medians(forms, args.repeats)
        alone = cpu / len(sample)
        print(f"  one form per position ({len(sample)} positions): {1e3 * alone:.2f} ms CPU per "
              f"position; ratio (even, CPU) {shared['even'] / alone:.4f}", flush=True)


if __name__ == "__main__":
    main()
