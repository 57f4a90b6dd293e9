"""Benchmark: the sampling interpreter of programs (``exactdp.programs.sampling``).

For StatDP's SVT (N = 1) and noisy max (Ding et al., CCS 2018; StatDP's ``algorithms.py``) on
``n`` queries, the time to draw ``--runs`` outputs

* **loop** — the baseline: the function called in a plain Python loop with one seeded generator,
  as StatDP's ``run_algorithm`` does;
* **program** — ``exactdp.sample(exactdp.program(f, ...), ...)``: the same calls plus the
  recording of every entry's kind and value (what the tester counts on);
* **catalogue** — the vectorised sampler of the same catalogue mechanism
  (``statdp.SVT``, ``statdp.noisy_max_v1a``).

Medians of ``--repeats`` timings; the ratios program/loop (the interpreter's overhead) and
loop/catalogue (what the vectorised samplers save) do not depend on the machine's speed as much
as the times do.  Last, the cost of the fence every call of the sampler puts around the program
(``exactdp.programs.sandbox``: guards installed and removed, a watchdog thread started and
joined): the sampler's CPU time with and without it, interleaved, and the fence alone per call.

Run: ``python benchmarks/program_sampling.py [--runs 20000] [--repeats 5]`` from the repository
root.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import median_time  # noqa: E402
import exactdp  # noqa: E402
from exactdp.programs import program  # noqa: E402
from exactdp.programs import sampling as program_sampling  # noqa: E402
from exactdp.programs.sandbox import TRACE_TIMEOUT, sandbox  # noqa: E402


def svt(prng, queries, epsilon, N, T):
    out = []
    noisy_T = T + prng.laplace(scale=2.0 / epsilon)
    count = 0
    for query in queries:
        if query + prng.laplace(scale=4.0 * N / epsilon) >= noisy_T:
            out.append(True)
            count += 1
            if count >= N:
                break
        else:
            out.append(False)
    return out.count(False)


def noisy_max(prng, queries, epsilon):
    noisy = np.asarray(queries, dtype=np.float64) + prng.laplace(scale=2.0 / epsilon,
                                                                 size=len(queries))
    return noisy.argmax()


CASES = [("SVT", svt, dict(epsilon=0.7, N=1, T=1), "statdp.SVT", dict(eps=0.7, N=1, T=1)),
         ("noisy max", noisy_max, dict(epsilon=0.7), "statdp.noisy_max_v1a", dict(eps=0.7))]



class _NoFence:
    """Stands for :func:`~exactdp.programs.sandbox.sandbox` in the runs timed without it."""

    def __init__(self, *args, **kwargs):
        pass

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def tick(self) -> None:
        pass


def _enter_and_leave() -> None:
    with sandbox(svt, np.random.default_rng(0), TRACE_TIMEOUT):
        pass


def fence_cost(mech, queries, runs: int, repeats: int) -> tuple[float, float]:
    """Median CPU seconds of one call of the sampler on ``mech`` with and without the fence
    around the program, the two interleaved."""
    times = {True: [], False: []}
    for _ in range(repeats):
        for fenced in (True, False):
            program_sampling.sandbox = sandbox if fenced else _NoFence
            start = time.process_time()
            exactdp.sample(mech, queries, runs, np.random.default_rng(0))
            times[fenced].append(time.process_time() - start)
    program_sampling.sandbox = sandbox
    return statistics.median(times[True]), statistics.median(times[False])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=20_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--queries", type=int, default=10, help="n (default 10)")
    args = parser.parse_args()
    queries = [1.0] * args.queries
    print(f"{args.runs:,} runs on {args.queries} queries, median of {args.repeats}")
    print(f"{'mechanism':<10} {'loop s':>8} {'program s':>10} {'catalogue s':>12} "
          f"{'program/loop':>13} {'loop/catalogue':>15}")
    for name, func, kwargs, catalogue, params in CASES:
        floats = {k: float(v) if k == "epsilon" else v for k, v in kwargs.items()}

        def loop():
            rng = np.random.default_rng(0)
            return [func(rng, list(queries), **floats) for _ in range(args.runs)]

        mech = program(func, **kwargs)
        declared = exactdp.mechanism(catalogue, **params)
        loop_s, _ = median_time(loop, args.repeats)
        program_s, _ = median_time(
            lambda: exactdp.sample(mech, queries, args.runs, np.random.default_rng(0)),
            args.repeats)
        catalogue_s, _ = median_time(
            lambda: exactdp.sample(declared, queries, args.runs, np.random.default_rng(0)),
            args.repeats)
        print(f"{name:<10} {loop_s:>8.3f} {program_s:>10.3f} {catalogue_s:>12.4f} "
              f"{program_s / loop_s:>13.2f} {loop_s / catalogue_s:>15.0f}")

    print(f"the fence (CPU time, {args.runs:,} runs per call, interleaved medians of "
          f"{3 * args.repeats}):")
    for name, func, kwargs, _, _ in CASES:
        fenced, bare = fence_cost(program(func, **kwargs), queries, args.runs, 3 * args.repeats)
        print(f"  {name:<10} fenced {fenced * 1e3:8.1f} ms, without the fence "
              f"{bare * 1e3:8.1f} ms: fenced/without {fenced / bare:.3f}")
    calls = 200
    alone, _ = median_time(lambda: [_enter_and_leave() for _ in range(calls)], args.repeats)
    print(f"  entering and leaving the fence alone: {alone / calls * 1e6:.0f} µs per call")

if __name__ == "__main__":
    main()
