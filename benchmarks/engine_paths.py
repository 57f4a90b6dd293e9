"""CPU time of representative engine paths, to compare two versions of the code.

Run: ``python benchmarks/engine_paths.py [--repeats 5]`` from the repository root; to compare
with another commit, check it out in a git worktree and run the same file there with
``PYTHONPATH=<worktree>`` (the calls use only the public API), alternating the two.

Each path prints the median CPU time (``time.process_time``: less sensitive than wall-clock time
to other jobs on a shared machine) of ``--repeats`` calls after one untimed call, and its ratio
to the baseline timed in the same run: one certified probability of ``svt1`` on 12 queries.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from fractions import Fraction

import exactdp


def cpu_median(function, repeats: int) -> float:
    """Median CPU seconds of ``repeats`` calls of ``function()``, after one untimed call."""
    function()
    times = []
    for _ in range(repeats):
        start = time.process_time()
        function()
        times.append(time.process_time() - start)
    return statistics.median(times)


def paths() -> dict:
    """Name → call: the certified and estimated probability, the losses over every output and
    the divergences, on Laplace, GPTT and Gaussian noise (seeded inputs)."""
    rng = random.Random(1)
    q100 = [Fraction(rng.randrange(-3000, 3000), 1000) for _ in range(100)]
    q500 = [Fraction(rng.randrange(-3000, 3000), 1000) for _ in range(500)]
    q500b = [x + (1 if i % 2 else -1) for i, x in enumerate(q500)]
    q12 = [0, 1, 0, 1, 2, 0, 1, 1, 0, 2, 1, 0]
    q12b = [1, 0, 1, 0, 1, 1, 0, 2, 1, 1, 0, 1]
    out100 = ",".join("T" if rng.random() < .5 else "F" for _ in range(100))
    svt6 = exactdp.mechanism("svt6", eps=1)
    svt1 = exactdp.mechanism("svt1", eps=1, c=1)
    svt1c12 = exactdp.mechanism("svt1", eps=1, c=12)
    gptt = exactdp.mechanism("gptt", eps1=0.5, eps2=0.5)
    gaussian = exactdp.mechanism("svt_gaussian", sigma1=4, sigma2=8)
    t = 10**6
    return {
        "baseline: svt1 c=1, 12 queries, certified": lambda: exactdp.probability(
            svt1, q12, ["F"] * 11 + ["T"], dps=30),
        "svt6, 100 distinct queries, certified": lambda: exactdp.probability(
            svt6, q100, out100, dps=30),
        "svt6, 100 distinct queries, estimate": lambda: exactdp.probability(
            svt6, q100, out100, dps=30, method="estimate"),
        "GPTT t = 10^6, certified": lambda: exactdp.probability(
            gptt, f"0*{t},1*{t}", f"F*{t},T*{t}", dps=30),
        "max_privacy_loss svt1 c=1, n = 500": lambda: exactdp.max_privacy_loss(
            svt1, q500, q500b, dps=30),
        "max_privacy_loss svt6, 12 queries (4096 outputs)": lambda: exactdp.max_privacy_loss(
            svt6, q12, q12b, dps=30),
        "privacy_profile svt1 c=12, 12 queries, 20 values": lambda: exactdp.privacy_profile(
            svt1c12, q12, q12b, [Fraction(k, 10) for k in range(20)]),
        "renyi_divergence svt1 c=12, 12 queries, 5 orders": lambda: exactdp.renyi_divergence(
            svt1c12, q12, q12b, [2, 3, 5, 10, "inf"]),
        "svt_gaussian, 100 distinct queries, certified": lambda: exactdp.probability(
            gaussian, q100, ["F"] * 99 + ["T"], dps=30),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    baseline = None
    for name, call in paths().items():
        seconds = cpu_median(call, args.repeats)
        baseline = baseline or seconds
        print(f"{name:52s} {seconds:8.4f} s  {seconds / baseline:8.1f} × baseline", flush=True)


if __name__ == "__main__":
    main()
