"""Benchmark: ``exactdp verify`` on whole domains (goals: Gaussian Sparse Vector on {0,1}^10,
1,047,552 ordered pairs, ≤ 60 s; Gaussian noisy max on {0,1}^5 ≤ 30 s), against one certified
privacy profile of one pair (``exactdp.privacy_profile``, 30 digits) timed in the same run.

* ``verify svt_gaussian --param sigma1=4 --param sigma2=8 --values 0,1 --length 10 --eps 0.5
  --delta 0.01``;
* ``verify noisy_max_gaussian --param sigma=4 --values 0,1 --length 5 --eps 0.5 --delta 0.01``;
* with ``--jobs 2`` too (``--jobs``): medians of wall-clock time, of CPU time (the workers'
  included) and of the critical path's CPU time (this process's, plus the busiest worker's in
  each round of tasks), the verdicts compared;
* with ``--baseline DIR`` (a checkout of an earlier commit, e.g. a ``git worktree``), the same
  measurements of that checkout's code in the same run (each checkout in a process of its own,
  ``--measure DIR``);
* with ``--domain-limit`` the bulk comparison alone (float bounds and neighbour masks, no
  probabilities) on a domain of ``MAX_INPUTS`` inputs with 13 outputs: the measurement behind
  the limit.

Run: ``python benchmarks/verify_speed.py [--repeats 3] [--jobs 2] [--baseline DIR]
[--domain-limit]`` from the repository root.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import json
import os
import statistics
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

from timing import measured_in_process, medians

ROOT = Path(__file__).resolve().parent.parent

CASES = [("svt_gaussian", {"sigma1": 4, "sigma2": 8}, 10),
         ("noisy_max_gaussian", {"sigma": 4}, 5)]


def _domain_limit() -> None:
    """The bulk step alone on ``MAX_INPUTS`` inputs of {0,1}^N with 13 outputs (random
    probabilities: the cost does not depend on them), in this checkout."""
    sys.path.insert(0, str(ROOT))
    import exactdp
    from exactdp.exact.divergences.pair_bounds import Comparison
    from exactdp.verify import MAX_INPUTS, _compare, _Neighbours

    length = MAX_INPUTS.bit_length() - 1
    inputs = list(itertools.product((Fraction(0), Fraction(1)), repeat=length))
    probabilities = np.random.default_rng(1).dirichlet(np.ones(13), size=len(inputs))
    ends = (probabilities * (1 - 1e-15), probabilities * (1 + 1e-15))
    neighbours = _Neighbours(exactdp.mechanism("svt1"), [Fraction(0), Fraction(1)], inputs,
                             False)
    start = time.perf_counter()
    bulk = _compare(Comparison("delta", Fraction(1, 2), Fraction(1, 100)), ends, ends,
                    neighbours, False)
    print(f"bulk comparison alone, {len(inputs):,} inputs (MAX_INPUTS), {bulk.pairs:,} ordered "
          f"pairs, 13 outputs: {time.perf_counter() - start:.1f} s")


def _timed_call(function, item) -> tuple:
    """``(function(item), (this process, its CPU seconds))``: one task of a worker, timed."""
    start = time.process_time()
    result = function(item)
    return result, (os.getpid(), time.process_time() - start)


def _critical_path(verify_module, call) -> float:
    """The CPU seconds on the critical path of ``call()``: this process's, plus, for every
    round of tasks sent to workers (``verify_module.parallel_map``), the busiest worker's.  On a
    shared machine whose scheduler gives one share to all the processes of a session (Linux
    autogroups), workers cannot shorten the wall-clock time of a loaded run, but this they
    do."""
    rounds, parallel_map = [], verify_module.parallel_map

    def timed_map(function, items, jobs, *args, **kwargs):
        per_worker = {}
        rounds.append(per_worker)
        for result, (worker, seconds) in parallel_map(functools.partial(_timed_call, function),
                                                      items, jobs, *args, **kwargs):
            per_worker[worker] = per_worker.get(worker, 0.0) + seconds
            yield result

    verify_module.parallel_map = timed_map
    try:
        start = time.process_time()
        call()
        return time.process_time() - start + sum(max(r.values(), default=0.0) for r in rounds)
    finally:
        verify_module.parallel_map = parallel_map


def measure(code: Path, repeats: int, jobs: int) -> None:
    """One JSON line per case: the timings (wall-clock, CPU with the workers' included, and
    the critical path's CPU) and the verdict of the exactdp found at ``code``, with
    ``--jobs 1`` and ``--jobs jobs``."""
    sys.path.insert(0, str(code))
    import exactdp
    import exactdp.verify

    for name, params, length in CASES:
        mech = exactdp.mechanism(name, **params)
        runs = {}
        for count in sorted({1, jobs}):
            def call(count=count):
                return exactdp.verify.verify(mech, "0,1", length, eps="0.5", delta="0.01",
                                             jobs=count)

            wall, cpu, verdict = medians(call, repeats)
            critical = statistics.median(_critical_path(exactdp.verify, call)
                                         for _ in range(repeats))
            runs[count] = {"wall": wall, "cpu": cpu, "critical": critical,
                           "verdict": [verdict.private, verdict.pairs, str(verdict.d1),
                                       str(verdict.d2), *map(repr, (verdict.value.lower,
                                                                    verdict.value.upper))]}
        one, _, _ = medians(lambda: exactdp.privacy_profile(mech, verdict.d1, verdict.d2,
                                                            ["0.5"]), repeats)
        print(json.dumps({"name": name, "runs": runs, "profile": one,
                          "value": float(verdict.value.value)}), flush=True)


def measured(code: Path, repeats: int, jobs: int) -> dict:
    """``{case: timings}`` of the checkout ``code``, measured in a process of its own."""
    return measured_in_process(__file__, code, ["--repeats", str(repeats), "--jobs", str(jobs)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=1, help="also time with this many workers")
    parser.add_argument("--domain-limit", action="store_true")
    parser.add_argument("--baseline", type=Path, help="a checkout of the code to compare with")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure is not None:
        measure(args.measure, args.repeats, args.jobs)
        return
    print(f"load average at the start: {os.getloadavg()[0]:.1f}")
    checkouts = {"this": ROOT, **({"baseline": args.baseline.resolve()} if args.baseline
                                  else {})}
    results = {label: measured(code, args.repeats, args.jobs) for label, code in
               checkouts.items()}
    for name, params, length in CASES:
        this = results["this"][name]
        runs = this["runs"]
        verdict = runs["1"]["verdict"]
        print(f"{name} {params} on {{0,1}}^{length}: "
              f"{'private' if verdict[0] else 'not private'}, {verdict[1]:,} pairs, "
              f"worst δ(0.5) = {this['value']:.6g}")
        print(f"  one certified profile of the worst pair: median {this['profile']:.3f} s")
        for label, record in ((label, results[label][name]) for label in results):
            for jobs, run in record["runs"].items():
                same = "the same" if run["verdict"] == verdict else "DIFFERENT"
                print(f"  {label} verify --jobs {jobs}: median {run['wall']:.2f} s "
                      f"(CPU {run['cpu']:.2f} s, the workers' included; critical path "
                      f"{run['critical']:.2f} s) = {run['wall'] / this['profile']:.1f} "
                      f"profiles of one pair; verdict and enclosure {same}")
            if len(record["runs"]) > 1:
                one, many = record["runs"]["1"], record["runs"][str(args.jobs)]
                print(f"  {label}: --jobs 1 / --jobs {args.jobs} = "
                      f"{one['wall'] / many['wall']:.2f} (wall-clock), "
                      f"{one['critical'] / many['critical']:.2f} (critical path)")
        if "baseline" in results:
            before = results["baseline"][name]["runs"]
            print("  baseline / this: " + ", ".join(
                f"--jobs {jobs} {before[jobs]['wall'] / run['wall']:.2f}"
                for jobs, run in runs.items()))
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")
    if args.domain_limit:
        _domain_limit()


if __name__ == "__main__":
    main()
