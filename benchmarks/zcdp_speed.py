"""Benchmark: ``zcdp`` of a 10-query report noisy max (goal ≤ 2 s) for every noise law, against
one ``renyi --alpha 2`` of the same pair timed in the same run (in process, 30 digits, medians of
wall-clock and of CPU time, the forked workers' CPU included), and against a baseline checkout.

* ``noisy_max_laplace``, ``noisy_max_exponential`` (permute-and-flip), ``noisy_max_gumbel`` (the
  exponential mechanism), all at ε = 2, and ``noisy_max_gaussian`` at σ = 1, on 10 seeded random
  scores in [−3, 3] (six decimals) and the neighbour moved by ±1 per score (seeded signs);
* the whole command ``exactdp zcdp … --json`` on the same pair, Python's start-up included;
* with ``--baseline DIR`` (a checkout of an earlier commit, e.g. a ``git worktree``), the same
  measurements of that checkout's code in the same run, and the ratios baseline/this.

Each checkout is measured in a process of its own (``--measure DIR``, one JSON line per case).

Run: ``python benchmarks/zcdp_speed.py [--repeats 5] [--dps 30] [--baseline DIR]`` from the
repository root.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

from timing import measured_in_process, medians

ROOT = Path(__file__).resolve().parent.parent
#: (catalogue name, parameters) of the cases.
CASES = [("noisy_max_laplace", {"eps": 2}), ("noisy_max_exponential", {"eps": 2}),
         ("noisy_max_gumbel", {"eps": 2}), ("noisy_max_gaussian", {"sigma": 1})]


def pair(seed: int = 7, length: int = 10) -> tuple[list[str], list[str]]:
    """Seeded random scores and their neighbour (every score moved by ±1), as decimals."""
    rng = np.random.default_rng(seed)
    d1 = np.round(rng.uniform(-3, 3, length), 6)
    d2 = d1 + rng.choice([-1, 1], length)
    return [f"{x:.6f}" for x in d1], [f"{x:.6f}" for x in d2]


def measure(code: Path, repeats: int, dps: int) -> None:
    """One JSON line per case: the timings of the exactdp found at ``code``."""
    sys.path.insert(0, str(code))
    import exactdp

    d1, d2 = pair()
    for name, params in CASES:
        mech = exactdp.mechanism(name, **params)
        renyi, _, _ = medians(lambda: exactdp.renyi_divergence(mech, d1, d2, [2], dps), repeats)
        wall, cpu, result = medians(lambda: exactdp.zcdp(mech, d1, d2, dps), repeats)
        command = [sys.executable, "-m", "exactdp", "zcdp", name,
                   *(f"--param={key}={value}" for key, value in params.items()),
                   f"--d1={','.join(d1)}", f"--d2={','.join(d2)}", "--dps", str(dps), "--json"]
        environment = {**os.environ, "PYTHONPATH": str(code)}
        whole, _, printed = medians(lambda: subprocess.run(
            command, check=True, capture_output=True, cwd=code, env=environment).stdout, repeats)
        print(json.dumps({"name": name, "wall": wall, "cpu": cpu, "renyi": renyi,
                          "orders": result.orders, "command": whole,
                          "printed": json.loads(printed)}), flush=True)


def measured(code: Path, repeats: int, dps: int) -> dict:
    """``{case: timings}`` of the checkout ``code``, measured in a process of its own."""
    return measured_in_process(__file__, code, ["--repeats", str(repeats), "--dps", str(dps)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--dps", type=int, default=30)
    parser.add_argument("--baseline", type=Path, help="a checkout of the code to compare with")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure is not None:
        measure(args.measure, args.repeats, args.dps)
        return
    new = measured(ROOT, args.repeats, args.dps)
    old = measured(args.baseline.resolve(), args.repeats, args.dps) if args.baseline else {}
    for name, _ in CASES:
        this = new[name]
        rho = this["printed"]["rho"]
        print(f"{name}, 10 queries, {args.dps} digits: ρ = {rho[:14]}… at α = "
              f"{this['printed']['alpha']}")
        print(f"  zcdp: median {this['wall']:.3f} s (CPU {this['cpu']:.3f} s, {this['orders']} "
              f"orders) = {this['wall'] / this['renyi']:.1f} × renyi α = 2 "
              f"({this['renyi']:.3f} s); the command {this['command']:.2f} s")
        if name in old:
            before = old[name]
            same = "the same" if before["printed"] == this["printed"] else "DIFFERENT"
            print(f"  baseline: median {before['wall']:.3f} s (CPU {before['cpu']:.3f} s, "
                  f"{before['orders']} orders), the command {before['command']:.2f} s; ratio "
                  f"baseline/this {before['wall'] / this['wall']:.1f} (CPU "
                  f"{before['cpu'] / this['cpu']:.1f}); printed JSON {same}")


if __name__ == "__main__":
    main()
