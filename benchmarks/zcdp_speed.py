"""Benchmark: ``zcdp`` of a 10-query report noisy max (goal ≤ 2 s), against one ``renyi --alpha 2``
of the same pair timed in the same run (in process, 30 digits, medians).

* ``noisy_max_exponential`` (permute-and-flip) and ``noisy_max_gumbel`` (the exponential
  mechanism), ε = 2, on 10 seeded random scores in [−3, 3] (six decimals) and the neighbour
  moved by ±1 per score (seeded signs);
* the whole command ``exactdp zcdp … --json`` on the same pair, Python's start-up included.

Run: ``python benchmarks/zcdp_speed.py [--repeats 5] [--dps 30]`` from the repository root.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from timing import median_time  # noqa: E402
import exactdp  # noqa: E402


def pair(seed: int = 7, length: int = 10) -> tuple[list[str], list[str]]:
    """Seeded random scores and their neighbour (every score moved by ±1), as decimals."""
    rng = np.random.default_rng(seed)
    d1 = np.round(rng.uniform(-3, 3, length), 6)
    d2 = d1 + rng.choice([-1, 1], length)
    return [f"{x:.6f}" for x in d1], [f"{x:.6f}" for x in d2]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dps", type=int, default=30)
    args = parser.parse_args()
    d1, d2 = pair()
    for name in ("noisy_max_exponential", "noisy_max_gumbel"):
        mech = exactdp.mechanism(name, eps=2)
        base, _ = median_time(lambda: exactdp.renyi_divergence(mech, d1, d2, [2], args.dps),
                              args.repeats)
        t, result = median_time(lambda: exactdp.zcdp(mech, d1, d2, args.dps), args.repeats)
        print(f"{name}, 10 queries, {args.dps} digits: zcdp median {t:.3f} s "
              f"({result.orders} orders; ρ = {float(result.rho.value):.10g} at α ≈ "
              f"{float(result.alpha.value):.6g}); renyi α = 2 median {base:.4f} s; "
              f"ratio {t / base:.1f}")
        command = [sys.executable, "-m", "exactdp", "zcdp", name, "--param", "eps=2",
                   f"--d1={','.join(d1)}", f"--d2={','.join(d2)}", "--dps", str(args.dps),
                   "--json"]
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            subprocess.run(command, check=True, capture_output=True, cwd=ROOT)
            times.append(time.perf_counter() - start)
        print(f"  the command line, start-up included: median {statistics.median(times):.2f} s")


if __name__ == "__main__":
    main()
