"""Benchmark: exact probabilities at 30 digits when the queries take many DISTINCT values.

Cases (random queries in [−3, 3] with six decimals, seeded; each case one output):

* ``svt1`` c = 1, output ⊥…⊥⊤;  ``svt1`` c = 5, four ⊤ at random places and a final ⊤;
* ``gptt`` ε1 = ε2 = 0.5, a random ⊤/⊥ output (the peak sits among the kinks);
* ``noisy_max_laplace`` / ``noisy_max_exponential`` (ε = 1), the index 0.

For n = 10, 100, 1000 and 10,000 distinct values it prints the median time of
``exactdp.probability`` by default (``method="auto"``: a certified enclosure — the closed form in
balls, or piecewise Gauss–Legendre with a proven error bound per piece) and with
``method="estimate"`` (two rules whose agreement bounds the error), the method used and the
relative width; then the machine-independent ratios measured in the same run: certified /
estimate at each n, and time(1000)/time(10).  Finally the whole command line
(``python -m exactdp prob svt1 … --json``, a fresh interpreter) on 1000 distinct values.

Run: ``python benchmarks/distinct_values.py [--max-n 1000] [--repeats 3]`` from the repository
root.
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import median_time  # noqa: E402
import exactdp  # noqa: E402

SIZES = (10, 100, 1000, 10_000)
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


def command_line_time(n: int, repeats: int) -> float:
    """Median wall time of ``exactdp prob`` on the ``svt1 c=1`` case, a fresh interpreter each."""
    _, queries, output = case("svt1 c=1", n)
    command = [sys.executable, "-m", "exactdp", "prob", "svt1", "--param", "eps=1",
               "--param", "c=1", "--queries", ",".join(str(q) for q in queries),
               "--output", ",".join(output), "--json"]
    return median_time(lambda: subprocess.run(command, check=True, capture_output=True),
                       repeats)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-n", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    medians: dict = {}
    for name in CASES:
        for n in (s for s in SIZES if s <= args.max_n):
            repeats = args.repeats if n <= 1000 else 1
            for method in ("auto", "estimate"):
                median, result = timed(name, n, repeats, method)
                medians[name, n, method] = median
                print(f"{name:>22}  n = {n:>6}  {method:>8}: median {median:8.3f} s  "
                      f"({result.method}, relative error ≤ "
                      f"{float(result.relative_error):.1e})", flush=True)
    print("\nmachine-independent ratios (medians, same run):")
    for name in CASES:
        ratios = ", ".join(f"n = {n}: {medians[name, n, 'auto'] / medians[name, n, 'estimate']:.2f}"
                           for n in SIZES if (name, n, "auto") in medians)
        print(f"  {name:>22}: certified / estimate  {ratios}")
        if (name, 1000, "auto") in medians:
            print(f"  {name:>22}: certified time(1000) / time(10) = "
                  f"{medians[name, 1000, 'auto'] / medians[name, 10, 'auto']:.1f}")
    if args.max_n >= 1000:
        print(f"\ncommand line, svt1 c=1 on 1000 distinct values (certified, --json): median "
              f"{command_line_time(1000, args.repeats):.2f} s", flush=True)


if __name__ == "__main__":
    main()
