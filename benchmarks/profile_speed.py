"""Benchmark: the privacy profile δ(ε) of ``svt1`` (ε = 1) on 12 queries at 50 values of ε,
30 digits (goal ≤ 2 s), and the Rényi divergences at 10 orders, against one probability
evaluation (``exactdp.probability`` of one output, certified) timed in the same run.

* ``svt1`` c = 1 (13 outputs) and c = 12 (4096 outputs), d1 = 0^12, d2 = 1^12: one enumeration
  of the outputs (``backends/output_tree.py``) shared by every ε;
* a Gaussian release ``q + N(0, 2²)`` at the same 50 values of ε (closed form in balls).

Run: ``python benchmarks/profile_speed.py [--repeats 5]`` from the repository root.
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import median_time  # noqa: E402
import exactdp  # noqa: E402

D1, D2 = [0] * 12, [1] * 12
EPS_LIST = [Fraction(k, 25) for k in range(50)]  # 0, 0.04, …, 1.96
ALPHAS = [Fraction(3, 2), 2, 3, 4, 6, 8, 12, 16, 32, "inf"]


def gaussian_release(prng, queries, sigma=2):
    return queries[0] + prng.normal(scale=sigma)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    base_mech = exactdp.mechanism("svt1", eps=1, c=1)
    one, _ = median_time(lambda: exactdp.probability(base_mech, D1, "F*11,T", method="certified"),
                         args.repeats)
    print(f"one probability (svt1, 12 queries, certified): median {one * 1e3:.2f} ms")
    for cutoff in (1, 12):
        mech = exactdp.mechanism("svt1", eps=1, c=cutoff)
        t, points = median_time(lambda: exactdp.privacy_profile(mech, D1, D2, EPS_LIST),
                                args.repeats)
        print(f"privacy_profile svt1 c={cutoff}, 12 queries, {len(EPS_LIST)} values of ε: "
              f"median {t:.3f} s ({t / one:.1f} probability evaluations); "
              f"δ(0) = {float(points[0].delta.value):.6g}")
        t, points = median_time(lambda: exactdp.renyi_divergence(mech, D1, D2, ALPHAS),
                                args.repeats)
        print(f"renyi_divergence svt1 c={cutoff}, {len(ALPHAS)} orders: median {t:.3f} s "
              f"({t / one:.1f} probability evaluations); "
              f"D_2 = {float(points[1].divergence.value):.6g}")
    gauss = exactdp.program(gaussian_release)
    t, _ = median_time(lambda: exactdp.privacy_profile(gauss, [1], [0], EPS_LIST), args.repeats)
    print(f"privacy_profile of q + N(0, 2²), {len(EPS_LIST)} values of ε: median {t:.3f} s "
          f"({t / one:.1f} probability evaluations)")


if __name__ == "__main__":
    main()
