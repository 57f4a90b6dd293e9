"""Benchmark: time for ``exactdp search`` to reach its first violating witness.

For every incorrect mechanism of the catalogue (Sparse Vector variants with ⊤/⊥ or released
values, noisy sums, noisy max returning the value, the Lap(ε) histogram — at ε = 0.5, since at
ε = 1 its scale ε equals the correct Δ/ε) it runs ``search(..., stop_at_violation=True)``
(seed 0, inputs of length ≤ 5) ``REPEATS`` times from a cold cache and prints

* the number of input pairs scored before the first violation (machine-independent, and the same
  on every run: the search is deterministic for a seed);
* the median wall-clock time to that witness, and the witness's exact ln ratio;
* that median divided by the median time of one baseline engine call measured in the same
  process — ``exactdp.probability`` of ``svt1`` on 5 queries, output ``F,F,F,F,T``, closed form at
  15 digits — a machine-independent ratio.

Run: ``python benchmarks/search_speed.py`` from the repository root.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import median_time  # noqa: E402
import exactdp  # noqa: E402
from exactdp import search as worst_case  # noqa: E402
from exactdp.formatting import format_value  # noqa: E402

REPEATS = 5
BAD = (("svt4", {}), ("svt5", {}), ("svt6", {}), ("gptt", {}), ("statdp.iSVT1", {}),
       ("statdp.iSVT2", {}), ("statdp.iSVT3", {}), ("bad_partial_sum", {}),
       ("bad_smart_sum", {"M": 3}), ("svt3", {}), ("statdp.iSVT4", {}), ("bad_gap_svt", {}),
       ("noisy_max_laplace_value", {}), ("noisy_max_exponential_value", {}),
       ("statdp.noisy_max_v1b", {}), ("statdp.noisy_max_v2b", {}),
       ("histogram_eps", {"eps": 0.5}), ("statdp.histogram_eps", {"eps": 0.5}))



def baseline() -> float:
    mech = exactdp.mechanism("svt1")
    seconds, _ = median_time(
        lambda: exactdp.probability(mech, [0, 1, 0, 1, 0], "F,F,F,F,T", dps=15, method="closed"),
        21)
    return seconds


def first_violation(mech):
    # a cold start each time: drop the probabilities cached by the previous run
    worst_case._cached_probability.cache_clear()
    return worst_case.search(mech, max_length=5, seed=0, budget=120, max_evaluations=1000,
                             stop_at_violation=True)


def main() -> None:
    unit = baseline()
    print(f"baseline: one exactdp.probability call (svt1, n=5, closed, 15 digits) = "
          f"{unit * 1e3:.2f} ms (median of 21)")
    print(f"{'mechanism':<28}{'pairs':>6}{'median s':>10}{'× baseline':>12}  ln ratio   witness")
    for name, params in BAD:
        mech = exactdp.mechanism(name, **params)
        seconds, result = median_time(lambda: first_violation(mech), REPEATS)
        w = result.witness
        print(f"{name:<28}{result.first_violation:>6}{seconds:>10.4f}{seconds / unit:>12.3g}  "
              f"{format_value(w.loss.log_ratio, 6):<9}  d1={w.d1} d2={w.d2} output={w.output}")


if __name__ == "__main__":
    main()
