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
queries).

Run: ``python benchmarks/sampling_speed.py`` from the repository root.
"""

from __future__ import annotations

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

LENGTHS = (10, 1000)
EPS, N, T = 0.7, 1, 0.5
RUNS = 100_000
LOOP_RUNS = 20_000
REPEATS = 11


def statdp_loop(queries: list):
    """StatDP's SVT (Ding et al. Alg. 11) one run at a time, as its ``run_algorithm`` does."""
    def loop(prng: np.random.Generator, runs: int) -> np.ndarray:
        def svt():
            out = []
            noisy_threshold = T + prng.laplace(scale=2.0 / EPS)
            count = 0
            for query in queries:
                if query + prng.laplace(scale=4.0 * N / EPS) >= noisy_threshold:
                    out.append(True)
                    count += 1
                    if count >= N:
                        break
                else:
                    out.append(False)
            return out.count(False)

        results = np.fromiter((svt() for _ in range(runs)), dtype=np.int64, count=runs)
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


def medians(rows) -> list[float]:
    """Median seconds of each ``(label, runs, function)``, the repeats interleaved round-robin so
    that a load change on a shared machine hits every row alike (the ratios stay meaningful)."""
    times = [[] for _ in rows]
    for repeat in range(REPEATS):
        for timing, (_, runs, function) in zip(times, rows):
            rng = np.random.default_rng(repeat)
            start = time.perf_counter()
            function(rng, runs)
            timing.append(time.perf_counter() - start)
    return [statistics.median(timing) for timing in times]


def main() -> None:
    for length in LENGTHS:
        queries = [1.0] * length
        draws = draws_per_run(queries)
        rows = [("exactdp (sample + post-process + count)", RUNS, ours(queries)),
                ("StatDP-style per-run loop", LOOP_RUNS, statdp_loop(queries)),
                ("numpy Laplace draws (ceiling)", RUNS, ceiling(draws))]
        print(f"StatDP SVT test, {length} queries, N={N}; medians of {REPEATS} interleaved "
              f"repeats; {draws:.2f} Laplace draws per run")
        rates = {}
        for (label, runs, _), seconds in zip(rows, medians(rows)):
            rates[label] = runs / seconds
            print(f"  {label:<42} {runs:>7} runs  {seconds * 1e3:8.1f} ms  "
                  f"{runs / seconds:12,.0f} runs/s")
        ours_rate = rates[rows[0][0]]
        print(f"  speed-up over the per-run loop: {ours_rate / rates[rows[1][0]]:.1f}x "
              f"(target >= 20)")
        print(f"  fraction of the Laplace-draw ceiling: {ours_rate / rates[rows[2][0]]:.2f} "
              f"(target >= 0.5)")


if __name__ == "__main__":
    main()
