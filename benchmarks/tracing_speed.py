"""Benchmark: the exact interpreter of programs against the declared mechanism.

Sparse Vector with cutoff c = 1 (Lyu, Su & Li, PVLDB 2017, Alg. 1; StatDP's ``SVT``), ε = 0.7,
T = 0.5, written as a plain function (``tests/programs/statdp_algorithms.py:svt``), on n = 10,
100, 1000 queries all equal to 0, output ⊥^{n−1}⊤.  For each n it prints

* the tracing time (every execution path explored by re-running the function: n + 1 paths, the
  k-th one k + 1 comparisons long; the comparisons a path shares with the previous one are
  replayed from their recorded answers, so only the function's own loop is quadratic in n) and
  the number of paths;
* the time of the exact probability from the traced paths (one path returns the output);
* the time of the declared ``svt1`` (``exactdp.mechanism("svt1", c=1)``) on the same case, and the
  ratio traced (trace + probability) / declared — machine-independent, measured in the same run;
* the relative difference of the two probabilities (both at 30 digits).

Times are medians of ``REPEATS`` runs (the trace cache is cleared before each tracing run
and kept for the probability).
Run: ``python benchmarks/tracing_speed.py`` from the repository root.
"""

from __future__ import annotations

import sys
from pathlib import Path

import mpmath

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from timing import median_time  # noqa: E402
import exactdp  # noqa: E402
from exactdp.programs import load_program  # noqa: E402
from exactdp.programs import exact as program_exact  # noqa: E402

SIZES = (10, 100, 1000)
REPEATS = 3
PROGRAM = f"{ROOT / 'tests' / 'programs' / 'statdp_algorithms.py'}:svt"



def main() -> None:
    traced = load_program(PROGRAM, epsilon="0.7", N=1, T="0.5")
    declared = exactdp.mechanism("svt1", eps="0.7", c=1, T="0.5")
    print(f"{'n':>5} {'paths':>6} {'trace s':>8} {'prob s':>7} {'declared s':>10} "
          f"{'ratio':>7} {'rel. diff':>9}")
    for n in SIZES:
        queries, output = f"0*{n}", f"F*{n - 1},T"
        trace_time, paths = median_time(lambda: program_exact.traced_paths(traced, queries),
                                        REPEATS, before=program_exact._cache.clear)
        # the paths stay cached: this is the probability alone
        prob_time, ours = median_time(lambda: exactdp.probability(traced, queries, output),
                                      REPEATS)
        declared_time, theirs = median_time(
            lambda: exactdp.probability(declared, queries, output), REPEATS)
        with mpmath.workdps(40):
            difference = abs(ours.value - theirs.value) / theirs.value
        ratio = (trace_time + prob_time) / declared_time
        print(f"{n:>5} {len(paths):>6} {trace_time:>8.3f} {prob_time:>7.3f} "
              f"{declared_time:>10.3f} {ratio:>7.1f} {mpmath.nstr(difference, 2):>9}")


if __name__ == "__main__":
    main()
