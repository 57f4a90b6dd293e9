"""Benchmark: ``exactdp verify`` on whole domains (goals: Gaussian Sparse Vector on {0,1}^10,
1,047,552 ordered pairs, ≤ 60 s; Gaussian noisy max on {0,1}^5 ≤ 30 s), against one certified
privacy profile of one pair (``exactdp.privacy_profile``, 30 digits) timed in the same run.

* ``verify svt_gaussian --param sigma1=4 --param sigma2=8 --values 0,1 --length 10 --eps 0.5
  --delta 0.01``;
* ``verify noisy_max_gaussian --param sigma=4 --values 0,1 --length 5 --eps 0.5 --delta 0.01``;
* with ``--jobs 2`` too (``--jobs``), and with ``--domain-limit`` the bulk comparison alone
  (float bounds and neighbour masks, no probabilities) on a domain of ``MAX_INPUTS`` inputs
  with 13 outputs: the measurement behind the limit.

Run: ``python benchmarks/verify_speed.py [--repeats 3] [--jobs 2] [--domain-limit]`` from the
repository root.
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import median_time  # noqa: E402
import exactdp  # noqa: E402
from exactdp.exact.divergences.pair_bounds import Comparison  # noqa: E402
from exactdp.verify import MAX_INPUTS, _compare, _Neighbours, verify  # noqa: E402

CASES = [("svt_gaussian", {"sigma1": 4, "sigma2": 8}, 10),
         ("noisy_max_gaussian", {"sigma": 4}, 5)]


def _domain_limit() -> None:
    """The bulk step alone on ``MAX_INPUTS`` inputs of {0,1}^N with 13 outputs (random
    probabilities: the cost does not depend on them)."""
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--jobs", type=int, default=1, help="also time with this many workers")
    parser.add_argument("--domain-limit", action="store_true")
    args = parser.parse_args()
    for name, params, length in CASES:
        mech = exactdp.mechanism(name, **params)
        runs = {}
        for jobs in sorted({1, args.jobs}):
            runs[jobs] = median_time(lambda: verify(mech, "0,1", length, eps="0.5",
                                                    delta="0.01", jobs=jobs), args.repeats)
        verdict = runs[1][1]
        one, _ = median_time(lambda: exactdp.privacy_profile(mech, verdict.d1, verdict.d2,
                                                             ["0.5"]), args.repeats)
        print(f"{name} {params} on {{0,1}}^{length}: "
              f"{'private' if verdict.private else 'not private'}, {verdict.pairs:,} pairs, "
              f"worst δ(0.5) = {float(verdict.value.value):.6g}")
        print(f"  one certified profile of the worst pair: median {one:.3f} s")
        for jobs, (seconds, _) in runs.items():
            print(f"  verify --jobs {jobs}: median {seconds:.2f} s = {seconds / one:.1f} profiles "
                  f"of one pair ({verdict.pairs * one / seconds:,.0f}× a loop over the pairs)")
    if args.domain_limit:
        _domain_limit()


if __name__ == "__main__":
    main()
