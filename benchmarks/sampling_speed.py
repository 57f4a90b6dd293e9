"""Benchmark: runs per second of the tester on StatDP's SVT test (N = 1, ε = 0.7, T = 0.5; Ding
et al., CCS 2018, Alg. 11) on 10 and on 1000 queries, against

* a per-run Python loop like StatDP's (``algorithms.SVT``: one ``prng.laplace`` per query, the
  number of ⊥ returned per run, then counted), and
* the ceiling: numpy's raw Laplace draw rate on this machine, at the draws a run needs (the
  threshold noise and one per query until the run stops: about 3.3 here, measured).

"Ours" is what the tester does per chunk: draw the runs, accumulating the post-processed output
(number of ⊥) while drawing (``sample_columns``), and count every event of the search space.  It
prints the medians of several repeats and the machine-independent ratios; targets: ≥ 20× the
loop and ≥ ½ the ceiling, at both lengths (the sampler's cost follows the draws, not the number of
queries).  The ratios are of CPU time of this process (every row is single-threaded): on a shared,
loaded machine the wall clock also counts other processes' turns on the core, which hits the
longer rows harder; the wall-clock ratios are printed beside them.

Run: ``python benchmarks/sampling_speed.py`` from the repository root.
"""

from __future__ import annotations

import os
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import exactdp  # noqa: E402
from exactdp.sampling.sampler import walk  # noqa: E402
from exactdp.sampling.streaming import sample_columns  # noqa: E402
from exactdp.events import count_events, search_space, view_of  # noqa: E402
from program_sampling import svt as statdp_svt  # noqa: E402

LENGTHS = (10, 1000)
EPS, N, T = 0.7, 1, 0.5
RUNS = 100_000
LOOP_RUNS = 20_000
REPEATS = 11


def statdp_loop(queries: list):
    """StatDP's SVT (Ding et al. Alg. 11) one run at a time, as its ``run_algorithm`` does."""
    def loop(prng: np.random.Generator, runs: int) -> np.ndarray:
        results = np.fromiter((statdp_svt(prng, queries, EPS, N, T) for _ in range(runs)),
                              dtype=np.int64, count=runs)
        return np.bincount(results, minlength=len(queries) + 1)
    return loop


def ours(queries: list):
    """The tester's work on one chunk: sample, accumulating the view, and count every event."""
    mech = exactdp.mechanism("statdp.SVT", eps=EPS, N=N, T=T)
    view = view_of(mech, queries)
    events = search_space(view, [])
    components = [view.component(name) for event in events for name, _ in event.conditions]

    answers = np.array(queries)  # as the tester passes them

    def run(rng: np.random.Generator, runs: int) -> np.ndarray:
        return count_events(view, events, sample_columns(mech, answers, runs, rng, components))
    return run


def draws_per_run(queries: list) -> float:
    """Laplace draws a run needs: the threshold noise plus one per query it reaches (measured)."""
    mech = exactdp.mechanism("statdp.SVT", eps=EPS, N=N, T=T)
    reached = sum(block.active.size * (block.stop - block.start)
                  for block in walk(mech, np.array(queries), RUNS, np.random.default_rng(99)))
    return 1 + reached / RUNS


def ceiling(draws: float):
    """The raw Laplace draws of ``runs`` runs of ``draws`` draws each."""
    return lambda rng, runs: rng.laplace(0.0, 1.0, int(draws * runs))


def medians(rows) -> tuple[list[float], list[float]]:
    """Median CPU seconds of this process and median wall-clock seconds of each ``(label, runs,
    function)``, the repeats interleaved round-robin so that a load change on a shared machine
    hits every row alike.  Every row runs on one core, so its CPU time is its work; the wall
    clock also counts the time other processes held the core."""
    cpu, wall = [[] for _ in rows], [[] for _ in rows]
    for repeat in range(REPEATS):
        for cpu_times, wall_times, (_, runs, function) in zip(cpu, wall, rows):
            rng = np.random.default_rng(repeat)
            start_cpu, start_wall = time.process_time(), time.perf_counter()
            function(rng, runs)
            cpu_times.append(time.process_time() - start_cpu)
            wall_times.append(time.perf_counter() - start_wall)
    return ([statistics.median(t) for t in cpu], [statistics.median(t) for t in wall])


def main() -> None:
    for length in LENGTHS:
        queries = [1.0] * length
        draws = draws_per_run(queries)
        rows = [("exactdp (sample + post-process + count)", RUNS, ours(queries)),
                ("StatDP-style per-run loop", LOOP_RUNS, statdp_loop(queries)),
                ("numpy Laplace draws (ceiling)", RUNS, ceiling(draws))]
        print(f"StatDP SVT test, {length} queries, N={N}; medians of {REPEATS} interleaved "
              f"repeats; {draws:.2f} Laplace draws per run; CPU time of this process (wall clock)")
        cpu, wall = medians(rows)
        rates = [runs / seconds for (_, runs, _), seconds in zip(rows, cpu)]
        wall_rates = [runs / seconds for (_, runs, _), seconds in zip(rows, wall)]
        for (label, runs, _), seconds, elapsed, rate in zip(rows, cpu, wall, rates):
            print(f"  {label:<42} {runs:>7} runs  {seconds * 1e3:7.1f} ms ({elapsed * 1e3:7.1f} ms)"
                  f"  {rate:12,.0f} runs/s")
        print(f"  speed-up over the per-run loop: {rates[0] / rates[1]:.1f}x "
              f"(wall clock {wall_rates[0] / wall_rates[1]:.1f}x; target >= 20)")
        print(f"  fraction of the Laplace-draw ceiling: {rates[0] / rates[2]:.2f} "
              f"(wall clock {wall_rates[0] / wall_rates[2]:.2f}; target >= 0.5)")
    print(f"1-minute load average: {os.getloadavg()[0]:.1f} ({os.cpu_count()} cores)")

if __name__ == "__main__":
    main()
