"""Benchmark: certified enclosures (the default, ball arithmetic) against the estimate
(``method="estimate"``: two methods whose agreement bounds the error).

Cases, all at 30 digits:

* the GPTT family of Chen & Machanavajjhala (arXiv:1508.07306, proof of Thm 4.7), ε1 = ε2 = 0.5,
  queries (0^t, 1^t), output (⊥^t, ⊤^t), for t = 10, 10³, 10⁶ (one integral with two factors of
  power t);
* random outputs of Alg. 6 of Lyu, Su & Li (``svt6``, ε = 1: no cutoff) on 10 and 100 distinct
  queries (one integral with 10 or 100 distinct factors), seeded.

For each: the medians of ``REPEATS`` calls of both methods, their ratio certified/estimate (the
machine-independent figure), the method the certified back-end chose, the relative width of the
enclosure, and whether the estimate lies inside the enclosure widened by its own error bound.
Then the loss of the GPTT member t = 10⁶ (both sides, the inputs (0^t, 1^t) and (1^t, 0^t)),
certified.  For GPTT the enclosure is also checked against the independent
brute-force reference of ``tests/reference.py`` (Gauss–Legendre on uniform pieces, 50 digits).

Run: ``python benchmarks/certified_speed.py`` from the repository root.
"""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import median_time  # noqa: E402
import exactdp  # noqa: E402
from tests.reference import gptt_family_probability  # noqa: E402

DPS = 30
REPEATS = 5
GPTT_SIZES = (10, 10**3, 10**6)
#: Brute-force references are only affordable for the smaller families.
REFERENCE_SIZES = (10, 10**3)
SVT_SIZES = (10, 100)


def gptt_case(t):
    mech = exactdp.mechanism("gptt", eps1=0.5, eps2=0.5)
    return f"GPTT t = {t}", mech, f"0*{t},1*{t}", f"F*{t},T*{t}"


def svt_case(n):
    rng = np.random.default_rng(n)
    queries = [Fraction(int(k), 8) for k in rng.permutation(8 * n)[:n]]  # n distinct values
    output = ["T" if top else "F" for top in rng.integers(0, 2, n)]
    mech = exactdp.mechanism("svt6", eps=1)
    return f"svt6 random, {n} queries", mech, queries, ",".join(output)



def main() -> None:
    cases = [(gptt_case(t), t) for t in GPTT_SIZES] + [(svt_case(n), None) for n in SVT_SIZES]
    rows = []
    for (label, mech, queries, output), t in cases:
        certified_time, certified = median_time(
            lambda: exactdp.probability(mech, queries, output, dps=DPS), REPEATS)
        estimate_time, estimate = median_time(
            lambda: exactdp.probability(mech, queries, output, dps=DPS, method="estimate"),
            REPEATS)
        with mpmath.workdps(2 * DPS + 20):
            width = (certified.upper - certified.lower) / certified.lower
            inside = (certified.lower - estimate.error <= estimate.value
                      <= certified.upper + estimate.error)
            check = ""
            if t in REFERENCE_SIZES:
                reference, margin = gptt_family_probability(t, 0.5, 0.5, with_error=True)
                inside_reference = (certified.log_lower - margin <= reference
                                    <= certified.log_upper + margin)
                check = f", reference inside: {inside_reference}"
        rows.append((label, certified_time, estimate_time))
        print(f"{label:>26}: certified {certified_time:.3f} s ({certified.method}), estimate "
              f"{estimate_time:.3f} s, ratio {certified_time / estimate_time:.3g}; log p = "
              f"{mpmath.nstr(certified.log_value, 20)}, relative width "
              f"{mpmath.nstr(width, 3)}, estimate inside: {inside}{check}", flush=True)
    t = 10**6
    mech = exactdp.mechanism("gptt", eps1=0.5, eps2=0.5)
    loss_time, loss = median_time(lambda: exactdp.privacy_loss(
        mech, f"0*{t},1*{t}", f"1*{t},0*{t}", f"F*{t},T*{t}", dps=DPS), REPEATS)
    print(f"\nGPTT t = 10^6 loss, both sides, certified: median {loss_time:.3f} s, log ratio in "
          f"[{mpmath.nstr(loss.log_ratio_lower, 12)}, {mpmath.nstr(loss.log_ratio_upper, 12)}]")
    print("\nmachine-independent ratios certified/estimate (medians of "
          f"{REPEATS}):")
    for label, certified_time, estimate_time in rows:
        print(f"  {label:>26}: {certified_time / estimate_time:.3g}")


if __name__ == "__main__":
    main()
