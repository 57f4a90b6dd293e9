"""Benchmark: ``exactdp verify`` on small whole domains ``{0,1}^N``, each Gaussian family's two
ways of computing the output probabilities, timed in the same run: each input's outputs at
once on shared nodes (a *pass* per input), or the domain's distinct integral forms collected
and each evaluated once (*forms*).  ``FORMS_SHARED_FROM`` of ``exact/form/threshold_rules.py``
and ``exact/form/noisy_max.py`` (the fewest inputs from which verify collects the forms) is read
from this table.

* ``svt_gaussian`` (``sigma1=4``, ``sigma2=8``, ``T=0``, ``c=1``), the claim ``(1.24, 0.01)``;
* ``noisy_max_gaussian`` (``sigma=4``), the claim ``(0.5, 0.01)``;

every ordered pair of distinct inputs compared (``allow_any_pair``), 12 digits.  Each time is
the CPU seconds of one ``verify`` in a process of its own, after an untimed ``verify`` on
another ``N`` (the modules imported, no result shared); medians of ``--repeats``.

Run: ``python benchmarks/verify_small_domains.py [--repeats 3] [--sizes 1,2,3,4,5,6,7,8]`` from
the repository root.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: (family module under ``exactdp.exact.form``, mechanism, its parameters, ε of the claim)
CASES = [("threshold_rules", "svt_gaussian", {"sigma1": 4, "sigma2": 8, "T": 0, "c": 1}, "1.24"),
         ("noisy_max", "noisy_max_gaussian", {"sigma": 4}, "0.5")]
#: ``FORMS_SHARED_FROM`` for each way: never collect the forms, always collect them.
WAYS = {"pass": 10 ** 9, "forms": 0}


def _child(module: str, name: str, n: int, way: str) -> None:
    """Print the CPU seconds of one ``verify`` on ``{0,1}^n`` the given way."""
    sys.path.insert(0, str(ROOT))
    import importlib

    import exactdp
    from exactdp.verify import verify

    family_case = next(case for case in CASES if case[0] == module)
    importlib.import_module(f"exactdp.exact.form.{module}").FORMS_SHARED_FROM = WAYS[way]
    mech = exactdp.mechanism(name, **family_case[2])
    claim = {"eps": family_case[3], "delta": "0.01", "dps": 12, "allow_any_pair": True}
    verify(mech, [0, 1], 3 if n == 2 else 2, **claim)
    start = time.process_time()
    verdict = verify(mech, [0, 1], n, **claim)
    print(json.dumps({"cpu": time.process_time() - start, "private": verdict.private}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", default="1,2,3,4,5,6,7,8")
    parser.add_argument("--child", nargs=4, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        module, name, n, way = args.child
        _child(module, name, int(n), way)
        return
    print(f"CPU seconds of one verify on {{0,1}}^N, medians of {args.repeats}")
    print(f"{'mechanism':<20} {'N':>2} {'inputs':>6} {'pass':>7} {'forms':>7} "
          f"{'forms/pass':>10}")
    for module, name, _, _ in CASES:
        for n in map(int, args.sizes.split(",")):
            seconds, verdicts = {}, set()
            for way in WAYS:
                runs = [json.loads(subprocess.run(
                    [sys.executable, __file__, "--child", module, name, str(n), way],
                    check=True, capture_output=True, text=True, cwd=ROOT).stdout)
                    for _ in range(args.repeats)]
                verdicts |= {run["private"] for run in runs}
                if len(verdicts) != 1:
                    raise RuntimeError(f"{name} N={n}: the verdicts differ")
                seconds[way] = statistics.median(run["cpu"] for run in runs)
            print(f"{name:<20} {n:>2} {2 ** n:>6} {seconds['pass']:7.3f} "
                  f"{seconds['forms']:7.3f} {seconds['forms'] / seconds['pass']:10.2f}",
                  flush=True)


if __name__ == "__main__":
    main()
