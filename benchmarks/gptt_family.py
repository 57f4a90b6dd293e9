"""Benchmark: the GPTT family of Chen & Machanavajjhala (arXiv:1508.07306, proof of Thm 4.7) at
30 digits, ε1 = ε2 = 0.5 (the claim ``gptt-copies`` of docs/mathematics.md §9).

For t = 10, 10³, 10⁶ (queries (0^t, 1^t), output (⊥^t, ⊤^t)) it prints

* the engine's time (``exactdp.probability``, method auto: two independent methods), first call
  and median of repeated calls, and the ratio t = 10⁶ / t = 10 (machine-independent; target ≤ 3);
* the number of correct significant digits of the log probability against an independent brute-force
  integration (Gauss–Legendre on 120 uniform pieces at 50 digits, ``tests/reference.py``);
* the same for plain ``mpmath.quad`` over the kinks at 30 digits (time, and digits it gets right).

Run: ``python benchmarks/gptt_family.py`` from the repository root.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import mpmath

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import exactdp  # noqa: E402
from tests.reference import gptt_family_probability, lap_cdf, lap_pdf, lap_sf  # noqa: E402

SIZES = (10, 10**3, 10**6)
REPEATS = 5


def correct_digits(value, reference) -> float:
    """−log10 of the relative error (capped at 50)."""
    with mpmath.workdps(60):
        error = abs(mpmath.mpf(value) - reference) / abs(reference)
        return 50.0 if error == 0 else float(min(50, -mpmath.log10(error)))


def engine(t):
    mech = exactdp.mechanism("gptt", eps1=0.5, eps2=0.5)
    return exactdp.probability(mech, f"0*{t},1*{t}", f"F*{t},T*{t}", dps=30)


def plain_quad(t):
    with mpmath.workdps(30):
        def integrand(z):
            return lap_pdf(z, 2) * lap_cdf(z, 2) ** t * lap_sf(z - 1, 2) ** t
        value = mpmath.quad(integrand, [-mpmath.inf, 0, 1, mpmath.inf])
        return mpmath.log(value) if value > 0 else mpmath.mpf("-inf")


def timed(function, t, repeats):
    times, result = [], None
    for _ in range(repeats):
        start = time.perf_counter()
        result = function(t)
        times.append(time.perf_counter() - start)
    return result, times


def main() -> None:
    rows = []
    for t in SIZES:
        reference = gptt_family_probability(t, 0.5, 0.5)
        _, first = timed(engine, t, 1)
        result, times = timed(engine, t, REPEATS)
        plain, plain_times = timed(plain_quad, t, 3)
        rows.append((t, times, result, plain, plain_times, reference))
        print(f"t = {t:>7}: engine median {statistics.median(times):.3f} s "
              f"(first call, incl. quadrature-node set-up, {first[0]:.3f} s), "
              f"method {result.method}, log p = {mpmath.nstr(result.log_value, 32)}, "
              f"correct digits {correct_digits(result.log_value, reference):.1f}; "
              f"plain mpmath.quad median {statistics.median(plain_times):.3f} s, "
              f"correct digits {correct_digits(plain, reference):.1f}", flush=True)
    base = statistics.median(rows[0][1])
    print("\nmachine-independent ratios (medians):")
    for t, times, *_ in rows:
        print(f"  time(t = {t}) / time(t = 10) = {statistics.median(times) / base:.2f}")
    for t, times, _, _, plain_times, _ in rows:
        print(f"  engine / plain quad at t = {t}: "
              f"{statistics.median(times) / statistics.median(plain_times):.2f}")


if __name__ == "__main__":
    main()
