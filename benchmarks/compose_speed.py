"""Benchmark: δ(ε) of the K-fold composition of a Sparse Vector pair with 11 outputs (goal:
``profile --compose 100`` ≤ 5 s), against the same profile at K = 1 timed in the same run, the
time per composed atom that sets ``composition.MAX_COMPOSED_ATOMS``, and the coarsened
composition of 11 distinct losses against the exact sum at the largest K it finishes.

* ``svt1`` (ε = 1, c = 1) on 10 queries: 11 outputs (⊥^k⊤, k < 10, and ⊥^10).  On
  d1 = 0^10, d2 = 0^8·1·1 the outputs ⊤ among the first 8 queries have loss 0 (their queries are
  equal on both inputs), so the pair has 4 distinct losses and K = 100 has C(103, 3) = 176,851
  composed atoms, summed exactly; 4 values of ε, 30 digits, in process and as a command
  (start-up included);
* the same mechanism on d2 = 1^10, 11 distinct losses: K = 8 and 12 (43,758 and 646,646
  composed atoms, the largest K summed exactly) at ε = 0, the microseconds per composed atom;
  K = 100 (4.7·10^13 atoms) bracketed on a grid (``coarsened_composition.py``), 4 values of ε,
  30 digits asked, in process and as a command, the digits its brackets prove, and K = 12
  bracketed too, against the exact sum of the same K.

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
from exactdp.formatting import format_bound  # noqa: E402
from exactdp.exact.divergences.coarsened_composition import coarsened_profile  # noqa: E402
from exactdp.exact.divergences.composition import composed_atom_count  # noqa: E402
from exactdp.exact.divergences.loss_distribution import pair_loss_atoms  # noqa: E402
from exactdp.exact.losses.privacy_loss import neighbouring_pair  # noqa: E402

D1, GROUPED, DISTINCT = [0] * 10, [0] * 8 + [1, 1], [1] * 10
EPS_LIST = [0, "0.25", "0.5", 1]


def command_time(d2: str, compositions: int, repeats: int) -> float:
    """Median seconds of ``exactdp profile svt1 … --compose K`` at the 4 values of ε, as a
    command (start-up included)."""
    command = [sys.executable, "-m", "exactdp", "profile", "svt1", "--param", "c=1", "--d1",
               "0*10", "--d2", d2, "--eps", ",".join(map(str, EPS_LIST)), "--compose",
               str(compositions)]
    return median_time(lambda: subprocess.run(command, check=True, capture_output=True,
                                              cwd=ROOT), repeats)[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    mech = exactdp.mechanism("svt1", eps=1, c=1)

    def profile_time(d2, eps_list, compositions=1):
        return median_time(lambda: exactdp.privacy_profile(mech, D1, d2, eps_list,
                                                           compositions=compositions),
                           args.repeats)

    base, _ = profile_time(GROUPED, EPS_LIST)
    print(f"profile svt1 (11 outputs, 4 distinct losses), K = 1, {len(EPS_LIST)} values of ε: "
          f"median {base:.3f} s")
    t, points = profile_time(GROUPED, EPS_LIST, 100)
    print(f"profile --compose 100 of the same pair ({composed_atom_count(4, 100):,} composed "
          f"atoms): median {t:.3f} s, {t / base:.1f} times K = 1; "
          f"δ(0) = {float(points[0].delta.value):.6g}")
    print(f"exactdp profile … --compose 100 as a command (start-up included): median "
          f"{command_time('0*8,1,1', 100, args.repeats):.3f} s")
    exact = {}
    for compositions in (8, 12):
        atoms = composed_atom_count(11, compositions)
        exact[compositions], _ = profile_time(DISTINCT, [0], compositions)
        print(f"profile --compose {compositions} on d2 = 1^10 (11 distinct losses, {atoms:,} "
              f"composed atoms), ε = 0, exact: median {exact[compositions]:.3f} s, "
              f"{exact[compositions] / atoms * 1e6:.1f} µs per atom")
    t, points = profile_time(DISTINCT, EPS_LIST, 100)
    print(f"profile --compose 100 on d2 = 1^10 ({composed_atom_count(11, 100):.2e} composed "
          f"atoms), {len(EPS_LIST)} values of ε, 30 digits asked, bracketed on a grid of step "
          f"{float(points[0].grid_step):.3g}: median {t:.3f} s, {t / base:.1f} times K = 1")
    for eps, point in zip(EPS_LIST, points):
        print(f"  δ({eps}) ∈ [{format_bound(point.delta.lower, 8, False)}, "
              f"{format_bound(point.delta.upper, 8, True)}], "
              f"gap {float(point.delta.upper - point.delta.lower):.2g}")
    print(f"exactdp profile … --d2 1*10 --compose 100 as a command (start-up included): "
          f"median {command_time('1*10', 100, args.repeats):.3f} s")
    atoms = pair_loss_atoms(mech, *neighbouring_pair(mech, D1, DISTINCT, False), 43)
    t, brackets = median_time(lambda: coarsened_profile(atoms, [0], 12, 30), args.repeats)
    exact_delta = exactdp.privacy_profile(mech, D1, DISTINCT, [0], compositions=12)[0].delta
    print(f"K = 12 bracketed on a grid (30 digits asked) at ε = 0: median {t:.3f} s, "
          f"{exact[12] / t:.1f} times faster than the exact sum; gap "
          f"{float(brackets[0].delta.upper - brackets[0].delta.lower):.2g}, exact δ inside: "
          f"{brackets[0].delta.lower <= exact_delta.value <= brackets[0].delta.upper}")


if __name__ == "__main__":
    main()
