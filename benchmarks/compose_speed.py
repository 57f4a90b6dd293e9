"""Benchmark: δ(ε) of the K-fold composition of a Sparse Vector pair with 11 outputs (goal:
``profile --compose 100`` ≤ 5 s), against the same profile at K = 1 timed in the same run, and
the time per composed atom that sets ``composition.MAX_COMPOSED_ATOMS``.

* ``svt1`` (ε = 1, c = 1) on 10 queries: 11 outputs (⊥^k⊤, k < 10, and ⊥^10).  On
  d1 = 0^10, d2 = 0^8·1·1 the outputs ⊤ among the first 8 queries have loss 0 (their queries are
  equal on both inputs), so the pair has 4 distinct losses and K = 100 has C(103, 3) = 176,851
  composed atoms; 4 values of ε, 30 digits, in process and as a command (start-up included);
* the same mechanism on d2 = 1^10, 11 distinct losses: K = 8 and 12 (43,758 and 646,646
  composed atoms) at ε = 0, the microseconds per composed atom; K = 100 (4.7·10^13 atoms) is
  refused.

Run: ``python benchmarks/compose_speed.py [--repeats 5]`` from the repository root.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from timing import median_time  # noqa: E402
import exactdp  # noqa: E402
from exactdp.exact.divergences.composition import composed_atom_count  # noqa: E402

D1, GROUPED, DISTINCT = [0] * 10, [0] * 8 + [1, 1], [1] * 10
EPS_LIST = [0, "0.25", "0.5", 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    mech = exactdp.mechanism("svt1", eps=1, c=1)
    base, _ = median_time(lambda: exactdp.privacy_profile(mech, D1, GROUPED, EPS_LIST),
                          args.repeats)
    print(f"profile svt1 (11 outputs, 4 distinct losses), K = 1, {len(EPS_LIST)} values of ε: "
          f"median {base:.3f} s")
    t, points = median_time(lambda: exactdp.privacy_profile(mech, D1, GROUPED, EPS_LIST,
                                                            compositions=100), args.repeats)
    print(f"profile --compose 100 of the same pair ({composed_atom_count(4, 100):,} composed "
          f"atoms): median {t:.3f} s, {t / base:.1f} times K = 1; "
          f"δ(0) = {float(points[0].delta.value):.6g}")
    command = [sys.executable, "-m", "exactdp", "profile", "svt1", "--d1", "0*10", "--d2",
               "0*8,1,1", "--eps", ",".join(map(str, EPS_LIST)), "--compose", "100"]
    t, _ = median_time(lambda: subprocess.run(command, check=True, capture_output=True,
                                              cwd=ROOT), args.repeats)
    print(f"exactdp profile … --compose 100 as a command (start-up included): median {t:.3f} s")
    for compositions in (8, 12):
        atoms = composed_atom_count(11, compositions)
        t, _ = median_time(lambda: exactdp.privacy_profile(mech, D1, DISTINCT, [0],
                                                           compositions=compositions),
                           args.repeats)
        print(f"profile --compose {compositions} on d2 = 1^10 (11 distinct losses, {atoms:,} "
              f"composed atoms), ε = 0: median {t:.3f} s, {t / atoms * 1e6:.1f} µs per atom")


if __name__ == "__main__":
    main()
