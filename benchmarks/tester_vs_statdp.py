"""Benchmark: ``exactdp test`` against StatDP on StatDP's SVT test with 5,000,000 test runs.

The test (Ding et al., "Detecting Violations of Differential Privacy", CCS 2018,
arXiv:1805.10277; Alg. 11, SVT with ε = 0.7, N = 1, T = 0.5): one input pair (the first of
exactdp's candidate inputs, StatDP's pattern 1,1,1,1,1 / 2,1,1,1,1), 100,000 selection runs and
5,000,000 test runs per input, test ε = 0.7, two worker processes each (and one, for exactdp).
Both are timed from the command line, interpreter start-up and imports included: what a user
waits for.

* exactdp: ``python -m exactdp test … --jobs J``;
* StatDP: ``statdp.detect_counterexample(SVT, [0.7], {'epsilon': 0.7, 'N': 1, 'T': 0.5},
  databases=(d1, d2), event_iterations=100000, detect_iterations=5000000, cores=2, quiet=True)``
  (its API: ``databases`` is the one pair), run by the Python interpreter named in the
  environment variable ``STATDP_PYTHON`` — StatDP is not a dependency of exactdp and is not on
  PyPI: take its source from https://github.com/cmla-psu/statdp and give it its own environment
  (numpy < 1.24, which still has ``np.bool``; numba; tqdm).  The row is skipped when
  ``STATDP_PYTHON`` is unset or that interpreter cannot import ``statdp``;
* for scale even without StatDP: a per-run Python loop like StatDP's sampler (one
  ``prng.laplace`` per query; ``benchmarks/sampling_speed.py``), timed on 20,000 runs of each
  input in this process and extrapolated to the 10,100,000 runs of the test, sampling only
  (no event counting, no p-values, one process) — a lower bound on StatDP's time, not StatDP.

The runs of the two tools alternate (exactdp ``--jobs 1``, ``--jobs 2``, StatDP, then again), so
a load change on a shared machine hits both; prints the median of ``REPEATS`` runs of each, the
ratios (target: StatDP / exactdp ≥ 10 with two processes each) and the load average.  Beside the
wall clock it prints the CPU seconds of all the processes of each run (from
``getrusage(RUSAGE_CHILDREN)``), which a loaded machine inflates less.

Both run with Python's bytecode cache on, as a user's interpreter does (a
``PYTHONDONTWRITEBYTECODE`` in this process's environment is not passed on: it would make every
run recompile each tool's modules from source).

Run: ``python benchmarks/tester_vs_statdp.py`` from the repository root.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import exactdp  # noqa: E402
from exactdp.sampling.inputs import candidate_inputs  # noqa: E402
from exactdp.sequences import format_number  # noqa: E402

EPS, N, T = 0.7, 1, 0.5
SELECT_RUNS, TEST_RUNS = 100_000, 5_000_000
LOOP_RUNS = 20_000
REPEATS = 5
STATDP_PYTHON = os.environ.get("STATDP_PYTHON")

STATDP_SCRIPT = """
import sys
from statdp import detect_counterexample
from statdp.algorithms import SVT
d1, d2 = eval(sys.argv[1]), eval(sys.argv[2])
detect_counterexample(SVT, [{eps}], {{'epsilon': {eps}, 'N': {n}, 'T': {t}}},
                      databases=(d1, d2), event_iterations={select},
                      detect_iterations={test}, cores=2, quiet=True)
"""


def pair() -> tuple[list, list]:
    """The first of StatDP's input patterns (exact rationals)."""
    mech = exactdp.mechanism("statdp.SVT", eps=EPS, N=N, T=T)
    d1, d2 = candidate_inputs(mech)[0]
    return list(d1), list(d2)


def children_cpu() -> float:
    """CPU seconds (user + system) of every finished child process so far, their own waited-for
    children (worker processes) included."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: list[str]) -> tuple[float, float]:
    """Wall-clock seconds and CPU seconds (all its processes) of one run of ``command`` (it must
    succeed)."""
    env = {name: value for name, value in os.environ.items()
           if name != "PYTHONDONTWRITEBYTECODE"}
    start, start_cpu = time.perf_counter(), children_cpu()
    subprocess.run(command, cwd=ROOT, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL, env={**env, "PYTHONPATH": str(ROOT)})
    return time.perf_counter() - start, children_cpu() - start_cpu


def exactdp_command(d1, d2, jobs: int) -> list[str]:
    return [sys.executable, "-m", "exactdp", "test", "statdp.SVT", "--param", f"eps={EPS}",
            "--param", f"N={N}", "--param", f"T={T}",
            "--d1", ",".join(format_number(v) for v in d1),
            "--d2", ",".join(format_number(v) for v in d2), "--runs", str(TEST_RUNS),
            "--select-runs", str(SELECT_RUNS), "--test-eps", str(EPS), "--jobs", str(jobs),
            "--json"]


def statdp_available() -> bool:
    if not STATDP_PYTHON or not Path(STATDP_PYTHON).exists():
        return False
    probe = subprocess.run([STATDP_PYTHON, "-c", "import statdp"], capture_output=True)
    return probe.returncode == 0


def loop_seconds(d1, d2) -> float:
    """Extrapolated seconds of a StatDP-style per-run loop over every run of the test."""
    from sampling_speed import statdp_loop  # noqa: E402  (same directory)

    rng = np.random.default_rng(0)
    start = time.perf_counter()
    for queries in (d1, d2):
        statdp_loop([float(v) for v in queries])(rng, LOOP_RUNS)
    per_run = (time.perf_counter() - start) / (2 * LOOP_RUNS)
    return per_run * 2 * (SELECT_RUNS + TEST_RUNS)


def main() -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    d1, d2 = pair()
    print(f"StatDP SVT test (eps={EPS}, N={N}, T={T}), d1={','.join(map(format_number, d1))}, "
          f"d2={','.join(map(format_number, d2))}: {SELECT_RUNS:,} "
          f"selection and {TEST_RUNS:,} test runs per input; wall clock, median of {REPEATS}")
    commands = {f"exactdp test --jobs {jobs}": exactdp_command(d1, d2, jobs) for jobs in (1, 2)}
    if statdp_available():
        commands["StatDP detect_counterexample, cores=2"] = [
            STATDP_PYTHON, "-c", STATDP_SCRIPT.format(eps=EPS, n=N, t=T, select=SELECT_RUNS,
                                                      test=TEST_RUNS),
            repr([float(v) for v in d1]), repr([float(v) for v in d2])]
    times: dict[str, list[float]] = {name: [] for name in commands}
    cpus: dict[str, list[float]] = {name: [] for name in commands}
    loads = [os.getloadavg()[0]]
    for _ in range(REPEATS):
        for name, command in commands.items():
            elapsed, cpu = timed(command)
            times[name].append(elapsed)
            cpus[name].append(cpu)
        loads.append(os.getloadavg()[0])
    medians = {name: statistics.median(seconds) for name, seconds in times.items()}
    cpu_medians = {name: statistics.median(seconds) for name, seconds in cpus.items()}
    print(f"  {'':<40} {'wall':>8}    {'CPU':>6}    (wall clock of each run)")
    for name, seconds in times.items():
        runs = ", ".join(f"{t:.1f}" for t in seconds)
        print(f"  {name:<40} {medians[name]:8.2f} s {cpu_medians[name]:6.1f} s  ({runs})")
    ours = {jobs: medians[f"exactdp test --jobs {jobs}"] for jobs in (1, 2)}
    statdp_name = "StatDP detect_counterexample, cores=2"
    if statdp_name in medians:
        ours_cpu = cpu_medians["exactdp test --jobs 2"]
        print(f"  StatDP / exactdp, two processes each: {medians[statdp_name] / ours[2]:.1f}x wall "
              f"clock (target >= 10), {cpu_medians[statdp_name] / ours_cpu:.1f}x CPU time; "
              f"StatDP / exactdp --jobs 1: {medians[statdp_name] / ours[1]:.1f}x wall clock")
    else:
        print("  StatDP: STATDP_PYTHON unset or cannot import statdp: skipped")
    print(f"  1-minute load average during the runs: {min(loads):.1f}-{max(loads):.1f} "
          f"({os.cpu_count()} cores)")
    loop = loop_seconds(d1, d2)
    print(f"  StatDP-style per-run loop, sampling only, one process (extrapolated from "
          f"{LOOP_RUNS:,} runs per input): {loop:.1f} s")
    print(f"  loop (one process) / exactdp --jobs 1: {loop / ours[1]:.1f}x; "
          f"/ exactdp --jobs 2: {loop / ours[2]:.1f}x")


if __name__ == "__main__":
    main()
