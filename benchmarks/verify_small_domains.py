"""Benchmark: ``exactdp verify`` on small whole domains ``{0,1}^N``, two ways of each choice
that depends on the domain's size, timed in the same run:

* Gaussian ``svt_gaussian`` (``sigma1=4``, ``sigma2=8``, ``T=0``, ``c=1``; claim
  ``(1.24, 0.01)``) and ``noisy_max_gaussian`` (``sigma=4``; claim ``(0.5, 0.01)``): each
  input's outputs at once on shared nodes (*pass*), or the domain's distinct integral forms
  collected and each evaluated once (*forms*): ``FORMS_SHARED_FROM`` of
  ``exact/form/threshold_rules.py`` and ``exact/form/noisy_max.py``;
* a program of a Laplace threshold and Gaussian queries (DiPApprox's ``svt_mix1_max``, written
  in ``dipapprox_side_by_side.py``; claim ``(1.24, 0.01)``) and Gaussian ``svt_gaussian``: the
  forms certified to the digits the worst pair's certification asks for and taken from there
  (*reuse*), or to ``BULK_DIGITS`` and that pair's forms evaluated again (*anew*):
  ``REUSED_UP_TO`` of ``verify.py``;
* the same program and DiPApprox's ``new_nonpriv_svt`` (no threshold noise, Gaussian queries of
  σ = 1/4, the first below 0; claim ``(4, 0.01)``): each input traced on its own (*input*), or
  from the program's template, traced once with the queries as symbols (*tmpl*):
  ``TEMPLATES_PER_LENGTH`` of ``programs/templates.py``.

Every ordered pair of distinct inputs is compared (``allow_any_pair``), 12 digits.  Each time
is the CPU seconds of one ``verify`` in a process of its own, after an untimed ``verify`` on
another ``N`` (the modules imported, no result shared); medians of ``--repeats``; the verdicts
of the two ways must agree.

Run: ``python benchmarks/verify_small_domains.py [--repeats 3] [--sizes 1,2,3,4,5,6,7,8]`` from
the repository root.
"""

from __future__ import annotations

import argparse
import importlib
import json
import statistics
import subprocess
import sys
import time
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: The mechanisms: (name, ε of the claim).
MECHANISMS = {"svt_gaussian": "1.24", "noisy_max_gaussian": "0.5", "svt_mix1_max": "1.24",
              "new_nonpriv_svt": "4"}
#: The choices: (module of ``exactdp``, its constant, {way: the constant's value}).
CHOICES = {
    "threshold": ("exact.form.threshold_rules", "FORMS_SHARED_FROM",
                  {"pass": 10 ** 9, "forms": 0}),
    "noisy max": ("exact.form.noisy_max", "FORMS_SHARED_FROM", {"pass": 10 ** 9, "forms": 0}),
    "reuse": ("verify", "REUSED_UP_TO", {"reuse": 10 ** 9, "anew": 0}),
    "templates": ("programs.templates", "TEMPLATES_PER_LENGTH", {"input": 0, "tmpl": 4}),
}
#: What is measured: (choice, mechanism).
CASES = [("threshold", "svt_gaussian"), ("noisy max", "noisy_max_gaussian"),
         ("reuse", "svt_mix1_max"), ("reuse", "svt_gaussian"),
         ("templates", "svt_mix1_max"), ("templates", "new_nonpriv_svt")]


def _mechanism(name: str):
    """The mechanism or program called ``name`` (:data:`MECHANISMS`)."""
    import exactdp
    if name in ("svt_mix1_max", "new_nonpriv_svt"):
        from dipapprox_side_by_side import threshold_test
        scales = (4, 8) if name == "svt_mix1_max" else (0, Fraction(1, 4))
        return exactdp.program(threshold_test, threshold_scale=scales[0],
                               query_scale=scales[1], threshold_gaussian=name != "svt_mix1_max",
                               query_gaussian=True, below=name == "new_nonpriv_svt")
    params = {"svt_gaussian": {"sigma1": 4, "sigma2": 8, "T": 0, "c": 1},
              "noisy_max_gaussian": {"sigma": Fraction(4)}}[name]
    return exactdp.mechanism(name, **params)


def _child(choice: str, name: str, n: int, way: str) -> None:
    """Print the CPU seconds of one ``verify`` on ``{0,1}^n`` the given way."""
    sys.path.insert(0, str(ROOT))
    from exactdp.verify import verify

    module, constant, values = CHOICES[choice]
    setattr(importlib.import_module(f"exactdp.{module}"), constant, values[way])
    mech = _mechanism(name)
    claim = {"eps": MECHANISMS[name], "delta": "0.01", "dps": 12, "allow_any_pair": True}
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
        choice, name, n, way = args.child
        _child(choice, name, int(n), way)
        return
    print(f"CPU seconds of one verify on {{0,1}}^N, medians of {args.repeats}")
    print(f"{'choice':<10} {'mechanism':<20} {'N':>2} {'inputs':>6}  way A   way B  "
          f"{'B/A':>5}")
    for choice, name in CASES:
        ways = list(CHOICES[choice][2])
        for n in map(int, args.sizes.split(",")):
            seconds, verdicts = {}, set()
            for way in ways:
                runs = [json.loads(subprocess.run(
                    [sys.executable, __file__, "--child", choice, name, str(n), way],
                    check=True, capture_output=True, text=True, cwd=ROOT).stdout)
                    for _ in range(args.repeats)]
                verdicts |= {run["private"] for run in runs}
                if len(verdicts) != 1:
                    raise RuntimeError(f"{name} N={n}: the verdicts differ")
                seconds[way] = statistics.median(run["cpu"] for run in runs)
            first, second = (seconds[way] for way in ways)
            print(f"{choice:<10} {name:<20} {n:>2} {2 ** n:>6}  {ways[0]:<5} {first:6.3f}  "
                  f"{ways[1]:<5} {second:6.3f}  {second / first:5.2f}", flush=True)


if __name__ == "__main__":
    main()
