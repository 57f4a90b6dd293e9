"""Benchmark: ``max_privacy_loss`` of ``svt1`` (ε = 1, c = 1) over all n + 1 outputs, every
output's probability on both inputs from one pass over the queries on Gauss–Legendre nodes shared
by all outputs (``exactdp/exact/backends/shared_nodes.py``), at 30 digits, then the maximiser
certified on
its own.

``d1`` are n random distinct queries in [−3, 3] (seeded), ``d2 = d1`` moved by ±1 per coordinate
(seeded signs).  Prints the median time per size, its ratio to the smallest size measured in the
same run, and the exponent of time against n fitted by least squares on log–log scale.

Run: ``python benchmarks/maxloss_speed.py [--sizes 125 250 500 1000] [--repeats 3]`` from the
repository root.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import median_time  # noqa: E402
import exactdp  # noqa: E402
from benchmarks.distinct_values import random_queries  # noqa: E402


def neighbours(n: int, seed: int = 1) -> tuple[list, list]:
    """``(d1, d2)``: random queries and the same moved by ±1 each."""
    d1 = random_queries(n, seed)
    rng = random.Random(seed + 1)
    return d1, [q + rng.choice((-1, 1)) for q in d1]


def fitted_exponent(sizes, times) -> float:
    """The slope of ``log time`` against ``log n`` (least squares)."""
    xs, ys = [math.log(n) for n in sizes], [math.log(t) for t in times]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return (sum((x - mx) * (y - my) for x, y in zip(xs, ys))
            / sum((x - mx) ** 2 for x in xs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[125, 250, 500, 1000])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    mech = exactdp.mechanism("svt1", eps=1, c=1)
    times = []
    for n in args.sizes:
        d1, d2 = neighbours(n)
        t, result = median_time(lambda: exactdp.max_privacy_loss(mech, d1, d2), args.repeats)
        times.append(t)
        print(f"n = {n:5d} ({result.outputs} outputs): median {t:8.3f} s, "
              f"{t / times[0]:8.1f} × n = {args.sizes[0]}; worst output {result.output}, "
              f"loss {float(result.loss.log_ratio):.6f}", flush=True)
    if len(times) > 1:
        print(f"fitted exponent of time against n: {fitted_exponent(args.sizes, times):.2f}")


if __name__ == "__main__":
    main()
