"""Benchmark: certified box events on the noisy sums (``sum_event_probability``, the default
``method="auto"``: ball arithmetic) against the estimate (``method="estimate"``: mpmath, the
two-coordinate integral by tanh-sinh checked against Gauss–Legendre).

Cases, all at 30 digits, SmartSum (M = 4, ε = 1) on the queries (1, 0, 2):

* one coordinate, ``out2 ∈ [0, 5)`` (three noises: a sum of positive terms);
* two coordinates of one running sum, ``out0 < 1`` and ``out1 ∈ [0, 2)`` (one 1-D integral);
* the same deep in the left tail, ``out0 < −400`` and ``out1 < −800`` (below the doubles' range).

For each: the medians of ``REPEATS`` calls of both methods, their ratio certified/estimate (the
machine-independent figure), the relative width of the enclosure, and whether the estimate lies
inside the enclosure widened by its own error bound; "fails" where the estimate raises
``PrecisionError`` (its error bound above ``10^-30``).

Run: ``python benchmarks/sum_events.py`` from the repository root.
"""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import mpmath

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import median_time  # noqa: E402
import exactdp  # noqa: E402
from exactdp.errors import PrecisionError  # noqa: E402
from exactdp.events import Interval  # noqa: E402
from exactdp.exact.event_probability.sums import sum_event_probability  # noqa: E402

DPS = 30
REPEATS = 5
QUERIES = [1, 0, 2]
CASES = {
    "out2 in [0, 5)": {2: Interval(Fraction(0), Fraction(5), True)},
    "out0 < 1, out1 in [0, 2)": {0: Interval(None, Fraction(1)),
                                 1: Interval(Fraction(0), Fraction(2), True)},
    "out0 < -400, out1 < -800": {0: Interval(None, Fraction(-400)),
                                 1: Interval(None, Fraction(-800))},
}


def main() -> None:
    mech = exactdp.mechanism("smart_sum", M=4)
    print(f"{'event':28} {'certified s':>12} {'estimate s':>11} {'ratio':>7} "
          f"{'width':>9} {'inside':>6}  value")
    for label, constraints in CASES.items():
        certified_time, certified = median_time(
            lambda: sum_event_probability(mech, QUERIES, constraints, DPS), REPEATS)
        value = mpmath.nstr(certified.value, 12)
        try:
            estimate_time, estimate = median_time(
                lambda: sum_event_probability(mech, QUERIES, constraints, DPS, "estimate"),
                REPEATS)
        except PrecisionError:
            print(f"{label:28} {certified_time:12.4f} {'fails':>11} {'-':>7} "
                  f"{mpmath.nstr(certified.relative_width, 2):>9} {'-':>6}  {value}")
            continue
        with mpmath.workdps(2 * DPS + 20):
            inside = (certified.lower - estimate.error <= estimate.value
                      <= certified.upper + estimate.error)
        print(f"{label:28} {certified_time:12.4f} {estimate_time:11.4f} "
              f"{certified_time / estimate_time:7.3f} "
              f"{mpmath.nstr(certified.relative_width, 2):>9} {str(inside):>6}  {value}")

if __name__ == "__main__":
    main()
