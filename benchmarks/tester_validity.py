"""Benchmark: statistical validity and power of the tester (``exactdp test``, StatDP defaults:
100,000 selection runs and 500,000 test runs per input).

* **False rejections** — correct mechanisms tested at their claimed ε0 = 0.7 over ``--reps``
  seeded repetitions (seeds 0, 1, …): the fraction with p < 0.05 must be at most the nominal 5%.
  ``statdp.histogram`` is the sharp case: its events ``v < a`` (a below both inputs) have exact
  loss ε0 exactly, on the border of H0.
* **Power** — incorrect mechanisms at their claimed ε0 = 0.7 (true privacy: docs/mathematics.md
  §4.3–§6): the fraction of ``--power-reps`` repetitions with p < 0.05.

For each mechanism it prints the rate, the number of repetitions, and the range of the exact loss
ε_E of the selected events.  Not a test: it takes a few minutes.

Run: ``python benchmarks/tester_validity.py [--reps 100] [--power-reps 20]`` from the repository
root.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import exactdp  # noqa: E402
from exactdp.sampling.tester import detect  # noqa: E402

EPS = 0.7
LEVEL = 0.05
CORRECT = [("statdp.SVT", dict(N=1, T=0.5)), ("statdp.histogram", {}),
           ("statdp.noisy_max_v1a", {}), ("statdp.noisy_max_v2a", {})]
INCORRECT = [("statdp.iSVT1", dict(T=1)), ("statdp.iSVT2", dict(T=1)),
             ("statdp.iSVT3", dict(N=1, T=1)), ("statdp.iSVT4", dict(N=1, T=1)),
             ("statdp.noisy_max_v1b", {}), ("statdp.noisy_max_v2b", {}),
             ("statdp.histogram_eps", {})]


def rejection_rate(name: str, params: dict, reps: int) -> tuple[float, list, float]:
    """(fraction of seeds 0..reps−1 rejecting ε-DP at ε0, exact ε_E of the selected events,
    seconds)."""
    mech = exactdp.mechanism(name, eps=EPS, **params)
    start = time.perf_counter()
    results = [detect(mech, [EPS], seed=seed)[0] for seed in range(reps)]
    rejected = sum(result.p_value < LEVEL for result in results) / reps
    return rejected, [r.exact_event_eps for r in results], time.perf_counter() - start


def _range(values: list) -> str:
    known = [v for v in values if v is not None]
    return f"[{min(known):.4f}, {max(known):.4f}]" if known else "n/a"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=100, help="repetitions per correct mechanism")
    parser.add_argument("--power-reps", type=int, default=20,
                        help="repetitions per incorrect mechanism")
    args = parser.parse_args()
    print(f"claimed ε0 = {EPS}, test ε = ε0, reject when p < {LEVEL}")
    print("false-rejection rate of correct mechanisms (must be ≤ 5%):")
    for name, params in CORRECT:
        rate, losses, seconds = rejection_rate(name, params, args.reps)
        print(f"  {name:<24} {rate:6.1%} of {args.reps}   exact ε_E of selected events "
              f"{_range(losses)}   {seconds:6.1f} s")
    print("detection power on incorrect mechanisms:")
    for name, params in INCORRECT:
        rate, losses, seconds = rejection_rate(name, params, args.power_reps)
        print(f"  {name:<24} {rate:6.1%} of {args.power_reps}   exact ε_E of selected events "
              f"{_range(losses)}   {seconds:6.1f} s")


if __name__ == "__main__":
    main()
