"""Benchmark: programs whose noises are compared with each other (nested integrals).

Programs of ``tests/programs/compared_noises.py``, ε = 0.7, every probability certified to 12
digits:

* report noisy max written as a running best (``running_best``, Laplace noise of scale 2/ε;
  ``running_best_gaussian``, σ = 2) on n = 4..20 queries ``q_i = (7i mod 5)``: the trace, which
  merges the runs that reach a comparison in the same state (``programs/frontier.py``: O(n²)
  runs, n stars), the probability of every index, against the catalogue's
  ``noisy_max_laplace`` / ``noisy_max_gaussian`` on the same queries (one integral per index),
  timed in the same run; the ratio (trace + probabilities) / catalogue, the largest relative
  difference of the probabilities, and, up to n = 12, the depth-first trace of the 2^(n−1)
  paths and their merge after it (``programs/path_merging.py``), the way before;
* the same running best without the merge (Laplace, n = 4..10): the probabilities of every
  index as sums of 2^(n−1) nested integrals (``backends/nested_messages.py``);
* k-Min-Max (``k_min_max``) on 3 and 4 queries and m-Range (``m_range``) on 1, 2 and 3 queries
  (the sizes of DiPApprox's kminmax and mrange benchmarks): every output's probability (trace
  included), and the sum of the probabilities (1 up to the enclosures' widths); with Laplace
  noise (closed form) and with Gaussian noise (``k_min_max_gaussian``, σ = 2;
  ``m_range_gaussian``, σ = 2 and 4 for the interval's ends: nested quadrature), and the ratio
  Gaussian / Laplace;
* the noisy grid (``noisy_grid``: every query compared with three noisy cut points, a group
  with three hubs, ``backends/hub_triples.py``) on 1 to 4 queries: every output's probability
  (trace included) and their sum, and the output of every query in the middle bucket against
  the same probability by nested ``mpmath.quad`` over two of the hubs (the third integrated out
  by its CDF) to 12 digits, timed in the same run: the ratio quad / exactdp and their relative
  difference; with Gaussian noise (``noisy_grid_gaussian``: nested running integrals) every
  output on 1 and 2 queries, once, and the ratio Gaussian / Laplace.

Times are medians of ``--repeats`` runs (CPU seconds for the k-Min-Max and m-Range rows), the
trace cache and the cache of messages cleared before each.  With ``--baseline DIR`` (a checkout
of an earlier commit, e.g. a ``git worktree``) the k-Min-Max and m-Range rows of that checkout's
code are measured in the same run, each checkout in a process of its own (``--measure DIR``, one
JSON line per row), with the ratio baseline/this of the Gaussian times; ``--hubs`` runs those
rows alone, ``--grid`` the noisy grid's.  Run:
``python benchmarks/program_trees.py [--repeats 3] [--hubs] [--grid] [--baseline DIR]`` from the
repository root.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

import mpmath

ROOT = Path(__file__).resolve().parent.parent
#: The checkout whose exactdp is imported: this one, or the one after ``--measure``.
CODE = Path(sys.argv[sys.argv.index("--measure") + 1]) if "--measure" in sys.argv else ROOT
sys.path.insert(0, str(CODE))

from timing import measured_in_process, median_time  # noqa: E402
import exactdp  # noqa: E402
from exactdp.exact.backends import nested_messages  # noqa: E402
from exactdp.programs import exact as program_exact  # noqa: E402
from exactdp.programs import program  # noqa: E402
from exactdp.programs.path_merging import merge_paths  # noqa: E402
from exactdp.programs.tracing import trace  # noqa: E402
from tests.programs.compared_noises import (k_min_max, k_min_max_gaussian,  # noqa: E402
                                            m_range, m_range_gaussian, noisy_grid,
                                            noisy_grid_gaussian, running_best,
                                            running_best_gaussian)

EPS = Fraction(7, 10)
DIGITS = 12
REPEATS = 3
SIZES = (4, 8, 12, 16, 20)
#: Largest n whose depth-first trace (2^(n−1) paths) is timed as the baseline.
DEPTH_FIRST_UP_TO = 12
#: The k-Min-Max and m-Range rows: (Laplace program, Gaussian program, sizes).
HUBS = ((k_min_max, k_min_max_gaussian, (3, 4)), (m_range, m_range_gaussian, (1, 2, 3)))
#: The noisy grid's sizes (queries), and the largest timed with Gaussian noise too (once).
GRID_SIZES = (1, 2, 3, 4)
GAUSSIAN_GRID_UP_TO = 2


def clear() -> None:
    """Forget the traced paths and the messages."""
    program_exact._cache.clear()
    nested_messages._message.cache_clear()


def every_output(mech, queries) -> list:
    """The certified probability of every output of a traced program."""
    return [program_exact.evaluate_signed(form, DIGITS, "certified", "benchmark")
            for form in program_exact.outputs_with_forms(mech, queries).values()]


def running_best_rows(name, function, catalogue, sizes, **params) -> None:
    """One row per n: the trace (merged while tracing), the probabilities of every index,
    against the catalogue's noisy max on the same queries and, for small n, against the
    depth-first trace and the merge after it."""
    mech = program(function, epsilon=EPS, **params)
    print(f"{name}: {'n':>3} {'paths':>5} {'trace s':>7} {'prob s':>6} {'catalogue s':>11} "
          f"{'ratio':>5} {'rel. diff':>9} {'depth first + merge s':>21} {'speed-up':>8}")
    for n in sizes:
        queries = [(7 * i) % 5 for i in range(n)]
        trace_time, paths = median_time(lambda: program_exact.traced_paths(mech, queries),
                                        REPEATS, before=clear)
        prob_time, mine = median_time(
            lambda: [exactdp.probability(mech, queries, str(i), dps=DIGITS) for i in range(n)],
            REPEATS)
        theirs_time, reference = median_time(
            lambda: [exactdp.probability(catalogue, queries, str(i), dps=DIGITS)
                     for i in range(n)], REPEATS)
        with mpmath.workdps(30):
            difference = max(abs(a.value - b.value) / b.value for a, b in zip(mine, reference))
        baseline = "—"
        if n <= DEPTH_FIRST_UP_TO:
            depth_first, _ = median_time(
                lambda: merge_paths(trace(mech.func, queries, mech.arguments)), REPEATS)
            baseline = f"{depth_first:>21.3f} {depth_first / trace_time:>8.1f}"
        total = trace_time + prob_time
        print(f"{'':>{len(name) + 1}} {n:>3} {len(paths):>5} {trace_time:>7.3f} "
              f"{prob_time:>6.3f} {theirs_time:>11.3f} {total / theirs_time:>5.1f} "
              f"{mpmath.nstr(difference, 2):>9} {baseline:>21}")


def nested_rows(sizes) -> None:
    """The running best's paths as nested integrals (not merged), against the catalogue."""
    mech = program(running_best, epsilon=EPS)
    catalogue = exactdp.mechanism("noisy_max_laplace", eps=EPS)
    print(f"\nnested, not merged: {'n':>3} {'paths':>6} {'prob s':>7} {'catalogue s':>11} "
          f"{'rel. diff':>9}")
    for n in sizes:
        queries = [(7 * i) % 5 for i in range(n)]
        paths = trace(mech.func, queries, mech.arguments)

        def ours():
            nested_messages._message.cache_clear()
            return [program_exact.evaluate_signed(
                program_exact.SignedForm.of((t for path in paths if path.result == (i,)
                                             for t in program_exact.path_terms(path, [])),
                                            False), DIGITS, "certified", "benchmark")
                    for i in range(n)]
        ours_time, mine = median_time(ours, REPEATS)
        theirs_time, reference = median_time(
            lambda: [exactdp.probability(catalogue, queries, str(i), dps=DIGITS)
                     for i in range(n)], REPEATS)
        with mpmath.workdps(30):
            difference = max(abs(a.value - b.value) / b.value for a, b in zip(mine, reference))
        print(f"{'':>19} {n:>3} {len(paths):>6} {ours_time:>7.3f} {theirs_time:>11.3f} "
              f"{mpmath.nstr(difference, 2):>9}")


def cpu_median(function, repeats: int) -> tuple[float, object]:
    """``(median CPU seconds, last result)`` of ``repeats`` calls, the caches cleared before
    each."""
    times, result = [], None
    for _ in range(repeats):
        clear()
        start = time.process_time()
        result = function()
        times.append(time.process_time() - start)
    return statistics.median(times), result


def measure_hubs(repeats: int) -> None:
    """One JSON line per k-Min-Max or m-Range row of the exactdp imported (:data:`CODE`): the
    number of outputs, the median CPU seconds and ``Σ p − 1`` of each noise."""
    for laplace, gaussian, sizes in HUBS:
        for n in sizes:
            queries = [i % 2 for i in range(n)]
            record = {"name": f"{laplace.__name__} {n}"}
            for noise, function in (("laplace", laplace), ("gaussian", gaussian)):
                mech = program(function, epsilon=EPS)
                seconds, probabilities = cpu_median(lambda: every_output(mech, queries), repeats)
                with mpmath.workdps(30):
                    excess = sum(p.value for p in probabilities) - 1
                record |= {"outputs": len(probabilities), noise: seconds,
                           noise + " excess": mpmath.nstr(excess, 2)}
            print(json.dumps(record), flush=True)


def hub_rows(repeats: int, baseline: Path | None) -> None:
    """k-Min-Max and m-Range at DiPApprox's sizes, Laplace noise (closed form) and Gaussian
    noise (nested quadrature, ``backends/nested_quadrature.py``), in the same run, and the
    Gaussian rows of the ``baseline`` checkout."""
    options = ["--repeats", str(repeats)]
    rows = measured_in_process(__file__, ROOT, options)
    old = measured_in_process(__file__, baseline.resolve(), options) if baseline else {}
    print(f"\n{'program':>10} {'queries':>8} {'outputs':>7} {'Laplace s':>9} {'Σ p − 1':>9} "
          f"{'Gaussian s':>10} {'Σ p − 1':>9} {'ratio':>6}"
          + (f" {'baseline s':>10} {'baseline/this':>13}" if baseline else ""))
    for name, row in rows.items():
        program_name, n = name.split()
        line = (f"{program_name:>10} {n:>8} {row['outputs']:>7} {row['laplace']:>9.3f} "
                f"{row['laplace excess']:>9} {row['gaussian']:>10.3f} "
                f"{row['gaussian excess']:>9} {row['gaussian'] / row['laplace']:>6.0f}")
        if name in old:
            before = old[name]["gaussian"]
            line += f" {before:>10.3f} {before / row['gaussian']:>13.1f}"
        print(line)


def middle_bucket_by_quadrature(queries) -> mpmath.mpf:
    """``Pr[every query in bucket 2]`` of ``noisy_grid`` by nested ``mpmath.quad`` to
    :data:`DIGITS`: ``∫ p_M(m)·F_L(m) ∫_m^∞ p_H(h)·Π_i (F_i(h) − F_i(m)) dh dm`` (as
    ``low < mid``, ``max(low, mid) < v_i`` is ``mid < v_i``), split at the kinks."""
    with mpmath.workdps(DIGITS + 3):
        def law(location, scale):
            b = mpmath.mpf(scale.numerator) / scale.denominator
            return (lambda x: mpmath.exp(-abs(x - location) / b) / (2 * b),
                    lambda x: (mpmath.exp((x - location) / b) / 2 if x < location
                               else 1 - mpmath.exp((location - x) / b) / 2))
        (_, cdf_low), (pdf_mid, _), (pdf_high, _) = (law(c, 4 / EPS) for c in (-1, 0, 1))
        cdfs = [law(q, 2 / EPS)[1] for q in queries]
        kinks = sorted({-1, 0, 1, *queries})

        def inner(m):
            return mpmath.quad(lambda h: pdf_high(h) * mpmath.fprod(c(h) - c(m) for c in cdfs),
                               [m] + [k for k in kinks if k > m] + [mpmath.inf])
        return mpmath.quad(lambda m: pdf_mid(m) * cdf_low(m) * inner(m),
                           [-mpmath.inf] + kinks + [mpmath.inf])


def grid_rows(repeats: int) -> None:
    """The noisy grid (three hubs): every output, and one output against nested quadrature;
    with Gaussian noise every output and the ratio Gaussian / Laplace."""
    mech = program(noisy_grid, epsilon=EPS)
    gaussian = program(noisy_grid_gaussian, epsilon=EPS)
    print(f"\n{'noisy grid':>10} {'queries':>8} {'outputs':>7} {'every output s':>14} "
          f"{'Σ p − 1':>9} {'middle s':>8} {'quad s':>7} {'quad/this':>9} {'rel. diff':>9} "
          f"{'Gaussian s':>10} {'Σ p − 1':>9} {'ratio':>5}")
    for n in GRID_SIZES:
        queries = [i % 2 for i in range(n)]
        seconds, probabilities = cpu_median(lambda: every_output(mech, queries), repeats)
        middle = ",".join(["2"] * n)
        mine_time, mine = cpu_median(
            lambda: exactdp.probability(mech, queries, middle, dps=DIGITS), repeats)
        quad_time, reference = median_time(lambda: middle_bucket_by_quadrature(queries), 1)
        with mpmath.workdps(30):
            excess = sum(p.value for p in probabilities) - 1
            difference = abs(mine.value - reference) / reference
        line = (f"{'':>10} {n:>8} {len(probabilities):>7} {seconds:>14.3f} "
                f"{mpmath.nstr(excess, 2):>9} {mine_time:>8.3f} {quad_time:>7.2f} "
                f"{quad_time / mine_time:>9.0f} {mpmath.nstr(difference, 2):>9}")
        if n <= GAUSSIAN_GRID_UP_TO:
            smooth, probabilities = cpu_median(lambda: every_output(gaussian, queries), 1)
            with mpmath.workdps(30):
                excess = sum(p.value for p in probabilities) - 1
            line += f" {smooth:>10.1f} {mpmath.nstr(excess, 2):>9} {smooth / seconds:>5.0f}"
        print(line)


def main() -> None:
    global REPEATS   # the running best's rows read it
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument("--hubs", action="store_true", help="the k-Min-Max and m-Range rows only")
    parser.add_argument("--grid", action="store_true", help="the noisy grid's rows only")
    parser.add_argument("--baseline", type=Path, help="a checkout of the code to compare with")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure is not None:
        measure_hubs(args.repeats)
        return
    if args.grid:
        grid_rows(args.repeats)
        return
    if not args.hubs:
        REPEATS = args.repeats
        running_best_rows("Laplace", running_best,
                          exactdp.mechanism("noisy_max_laplace", eps=EPS), SIZES)
        running_best_rows("Gaussian", running_best_gaussian,
                          exactdp.mechanism("noisy_max_gaussian", sigma=2), SIZES, sigma=2)
        nested_rows(range(4, 11, 2))
    hub_rows(args.repeats, args.baseline)
    if not args.hubs:
        grid_rows(args.repeats)


if __name__ == "__main__":
    main()
