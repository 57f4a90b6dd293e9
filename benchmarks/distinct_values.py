"""Benchmark: exact probabilities at 30 digits when the queries take many DISTINCT values.

Cases (random queries in [−3, 3] with six decimals, seeded; each case one output):

* ``svt1`` c = 1, output ⊥…⊥⊤;  ``svt1`` c = 5, four ⊤ at random places and a final ⊤;
* ``gptt`` ε1 = ε2 = 0.5, a random ⊤/⊥ output (the peak sits among the kinks);
* ``noisy_max_laplace`` / ``noisy_max_exponential`` (ε = 1), the index 0.

For n = 10, 100, 1000 and 10,000 distinct values it prints the median time of ``exactdp.probability``
(``method="auto"``: piecewise Gauss–Legendre, two rules, plus the closed form where it is cheap),
the method used and the relative error bound; then the machine-independent ratios measured in the
same run: time(1000)/time(10) (goal ≤ 20) and, at n = 10 and 30, the previous engine
(``method="quad"``: peak-aware tanh-sinh over mpmath, the one ``auto`` used before) against the
new one.

Run: ``python benchmarks/distinct_values.py [--max-n 1000] [--repeats 3]`` from the repository
root.
"""

from __future__ import annotations

import argparse
import random
import sys
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import median_time  # noqa: E402
import exactdp  # noqa: E402

SIZES = (10, 100, 1000, 10_000)
OLD_SIZES = (10, 30)
CASES = ("svt1 c=1", "svt1 c=5", "gptt", "noisy_max_laplace", "noisy_max_exponential")


def random_queries(n: int, seed: int) -> list[Fraction]:
    """``n`` distinct values in [−3, 3] with six decimals."""
    rng = random.Random(seed)
    values: set = set()
    while len(values) < n:
        values.add(Fraction(rng.randint(-3 * 10**6, 3 * 10**6), 10**6))
    ordered = sorted(values)
    rng.shuffle(ordered)
    return ordered


def case(name: str, n: int, seed: int = 1):
    """(mechanism, queries, output) of one benchmark case."""
    rng = random.Random(seed + 1000)
    queries = random_queries(n, seed)
    if name == "svt1 c=1":
        return exactdp.mechanism("svt1", eps=1, c=1), queries, ["F"] * (n - 1) + ["T"]
    if name == "svt1 c=5":
        tops = set(rng.sample(range(n - 1), 4)) | {n - 1}
        return (exactdp.mechanism("svt1", eps=1, c=5), queries,
                ["T" if i in tops else "F" for i in range(n)])
    if name == "gptt":
        return (exactdp.mechanism("gptt", eps1="0.5", eps2="0.5"), queries,
                [rng.choice("TF") for _ in range(n)])
    return exactdp.mechanism(name, eps=1), queries, "0"


def timed(name: str, n: int, repeats: int, method: str = "auto"):
    mech, queries, output = case(name, n)
    return median_time(lambda: exactdp.probability(mech, queries, output, dps=30, method=method),
                       repeats)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    medians: dict = {}
    for name in CASES:
        for n in (s for s in SIZES if s <= args.max_n):
            repeats = args.repeats if n <= 1000 else 1
            median, result = timed(name, n, repeats)
            medians[name, n] = median
            print(f"{name:>22}  n = {n:>6}: median {median:8.3f} s  ({result.method}, "
                  f"relative error ≤ {float(result.relative_error):.1e})", flush=True)
        for n in OLD_SIZES:
            old, old_result = timed(name, n, 1, method="quad")
            new = medians.get((name, n)) or timed(name, n, args.repeats)[0]
            print(f"{name:>22}  n = {n:>6}: previous engine (quad) {old:8.3f} s, "
                  f"new / previous = {new / old:.3f}", flush=True)
    print("\nmachine-independent ratios (medians, same run):")
    for name in CASES:
        if (name, 1000) in medians:
            print(f"  {name:>22}: time(1000) / time(10) = "
                  f"{medians[name, 1000] / medians[name, 10]:.1f}  (goal ≤ 20)")


if __name__ == "__main__":
    main()
