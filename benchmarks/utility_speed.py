"""Exact expected utility on Zipf scores: time against the number of queries.

The workload of Lyu, Su & Li (PVLDB 2017, §6): ``n`` items whose counts follow Zipf's law,
``round(R/(i·H_n))`` for ``R = 100·n`` records (``H_n`` the harmonic number; the paper's setting is
``n = 10,000``, one million records), cutoff ``c = 3n/100`` (the target workload is ``n = 10,000``,
``c = 300``), threshold the mean of the ``c``-th and ``(c+1)``-th counts, ``ε = 0.1``, 15 digits
(``--digits``: absolute digits of each probability).
For ``svt1`` and ``em_top``, given and random order (``em_top`` does not depend on the order: one
line), and on request ``svt_s`` (SVT-S, the paper's monotone variant, at ``ε1:ε2 = 1:c^{2/3}``)
or any other catalogue name taking ``eps``, ``c`` and ``T``, this prints the median time of each
size (and its CPU seconds) and its ratio to the smallest size measured in the same run, and the
growth exponent ``log(t2/t1)/log(n2/n1)`` between the two largest sizes.

With ``--jobs=J`` each case is timed again with ``J`` worker processes
(``expected_utility(…, jobs=J)``), the speed-up is the ratio of the two times, and the results
are checked to be the same balls.

With ``--arb`` each case is timed again with every certified double-precision sum turned off
(``rounding_bounds.DOUBLE_SHARE = 0``: the chain of ``svt2`` and the given-order sweep in Arb
balls, the path used beyond the digits the doubles' rounding bound fits), the ratio of the two
CPU times printed (on a shared machine the CPU time says how much work was done), and every
ball of the doubles checked to contain the Arb ball's midpoint (the radius of the widest ball
of each printed).  Run it with ``OPENBLAS_NUM_THREADS=1`` to time one core.

Run: ``python benchmarks/utility_speed.py [n1 n2 …] [MECHANISM:ORDER …] [--repeats=R]
[--digits=D] [--jobs=J] [--arb]`` from the repository root (default sizes ``100 200``, every
case, 15 digits, one process; e.g. ``200 1000 svt1:random em_top:given``, or
``300 1000 3000 svt2:given --digits=6 --arb``); each time is the median of ``R`` runs (default:
3 up to ``n = 100``, else 1).
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import median_time, medians  # noqa: E402
import exactdp  # noqa: E402
from exactdp.claims.lyu_allocation import (RECOMMENDED, middle_threshold,  # noqa: E402
                                            named_allocations, svt_s, zipf_counts)
from exactdp.exact.backends import rounding_bounds  # noqa: E402
from exactdp.exact.selection import expected_utility  # noqa: E402

DIGITS = 15
EPS = Fraction(1, 10)


def workload(n: int):
    """``(c, counts, threshold)`` of the Zipf workload (module docstring)."""
    c = max(1, 3 * n // 100)
    counts = zipf_counts(n, 100 * n)
    return c, counts, middle_threshold(counts, c)


def mechanism(name: str, c: int, threshold: Fraction):
    """The mechanism ``name`` on the workload: ``svt_s`` at the allocation ``1:c^{2/3}``."""
    if name == "svt_s":
        return svt_s(c, dict(named_allocations(c))[RECOMMENDED], threshold)
    if name == "em_top":
        return exactdp.mechanism(name, eps=EPS, c=c)
    return exactdp.mechanism(name, eps=EPS, c=c, T=threshold)


def in_arb(function):
    """``function()`` with every sum in Arb balls (module docstring)."""
    share = rounding_bounds.DOUBLE_SHARE
    rounding_bounds.DOUBLE_SHARE = 0
    try:
        return function()
    finally:
        rounding_bounds.DOUBLE_SHARE = share


def versus_arb(mech, scores, order: str, digits: int, repeats: int, cpu: float,
               result) -> str:
    """The median wall-clock and CPU seconds with every sum in Arb balls, the ratio of the CPU
    seconds to ``cpu`` (those of the doubles), and the check that each ball of ``result``
    contains the Arb ball's midpoint (module docstring)."""
    slow, slow_cpu, careful = medians(
        lambda: in_arb(lambda: expected_utility(mech, scores, order, digits)), repeats)
    assert all(quick.contains(ball.mid()) for quick, ball in
               zip(result.selection, careful.selection)), "the doubles miss the Arb balls"
    widest = [max(float(ball.rad()) for ball in balls.selection) for balls in (result, careful)]
    return (f"  {slow:>8.2f}  {slow_cpu:>9.2f}  {slow_cpu / cpu:>7.1f}  {widest[0]:>9.2e}"
            f"  {widest[1]:>10.2e}")


def main() -> None:
    options = dict(x[2:].partition("=")[::2] for x in sys.argv[1:] if x.startswith("--"))
    arguments = [x for x in sys.argv[1:] if not x.startswith("--")]
    digits, jobs = int(options.get("digits", DIGITS)), int(options.get("jobs", 1))
    sizes = [int(x) for x in arguments if ":" not in x] or [100, 200]
    cases = [tuple(x.split(":")) for x in arguments if ":" in x] or [
        ("svt1", "given"), ("svt1", "random"), ("em_top", "given")]
    parallel = f"  {'jobs=' + str(jobs) + ' s':>10}  {'speed-up':>8}" if jobs > 1 else ""
    if "arb" in options:
        parallel += (f"  {'Arb s':>8}  {'Arb cpu s':>9}  {'Arb/new':>7}  {'widest':>9}"
                     f"  {'Arb widest':>10}")
    print(f"{'mechanism':>9}  {'order':>6}  {'n':>6}  {'c':>4}  {'median s':>9}  "
          f"{'cpu s':>7}  {'ratio':>7}{parallel}  FNR")
    for name, order in cases:
        times = []
        for n in sizes:
            c, scores, threshold = workload(n)
            mech = mechanism(name, c, threshold)
            repeats = int(options.get("repeats", 3 if n <= 100 else 1))
            seconds, cpu, result = medians(
                lambda: expected_utility(mech, scores, order, digits), repeats)
            times.append(seconds)
            line = (f"{name:>9}  {order:>6}  {n:>6}  {c:>4}  {seconds:>9.2f}  {cpu:>7.2f}  "
                    f"{seconds / times[0]:>7.1f}")
            if jobs > 1:
                forked, same = median_time(
                    lambda: expected_utility(mech, scores, order, digits, jobs=jobs), repeats)
                assert all(a.mid() == b.mid() and a.rad() == b.rad()
                           for a, b in zip(same.selection, result.selection)), "jobs changed it"
                line += f"  {forked:>10.2f}  {seconds / forked:>8.2f}"
            if "arb" in options:
                line += versus_arb(mech, scores, order, digits, repeats, cpu, result)
            print(f"{line}  {result.fnr}", flush=True)
        if len(sizes) > 1:
            exponent = math.log(times[-1] / times[-2]) / math.log(sizes[-1] / sizes[-2])
            print(f"{'':>9}  {'':>6}  growth exponent between n={sizes[-2]} and n={sizes[-1]}: "
                  f"{exponent:.2f}")


if __name__ == "__main__":
    main()
