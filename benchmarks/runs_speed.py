"""Benchmark: divergences and the largest loss on long runs of equal queries, ``0*n`` against
``1*n``: Gaussian Sparse Vector (cutoff 1) run by run (``exact/divergences/threshold_runs.py``)
and Gaussian noisy max by classes of exchangeable indices (``form/noisy_max.py``), against the
output-by-output path in the same run.

``svt_gaussian`` (σ1 = 4, σ2 = 8, c = 1) and ``noisy_max_gaussian`` (σ = 4), 30 digits.  For
each size: the median time (wall-clock and CPU) of the privacy profile (ε = 0.5), the largest
loss and the Rényi divergence (α = 2; Sparse Vector's beyond 1000 queries by blocks,
``exact/divergences/renyi_runs.py``, each call with the rules' cache cleared), through the API,
and for Sparse Vector the ratio of each size's Rényi CPU time to the first size's (1000 queries:
every output enumerated).  At ``--baseline`` queries (the largest the enumeration takes) the
same profile and largest loss output by output: Sparse Vector's 1001 outputs on its shared nodes
(what the API does up to 1000 queries), noisy max's 1000 indices each a class of its own; and
their ratio.  Last, 40 distinct queries (``maxloss_speed``'s neighbours), which go output by
output.

Run: ``python benchmarks/runs_speed.py [--sizes 1000 10000 1000000] [--repeats 3]`` from the
repository root.
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import median_time, medians  # noqa: E402
import exactdp  # noqa: E402
from benchmarks.maxloss_speed import neighbours  # noqa: E402
from exactdp.exact.backends.discrete_rules import discrete_rule  # noqa: E402
from exactdp.exact.divergences import threshold_runs  # noqa: E402
from exactdp.exact.divergences.output_pairs import OutputPair, output_probabilities  # noqa: E402
from exactdp.exact.divergences.profile import _discrete_delta  # noqa: E402
from exactdp.exact.divergences.renyi import largest_log_ratio  # noqa: E402
from exactdp.sequences import as_queries  # noqa: E402

DPS = 30
EPS = Fraction(1, 2)
#: Gaussian Sparse Vector (cutoff 1) and Gaussian noisy max, at the README's scales
MECHANISMS = (exactdp.mechanism("svt_gaussian", sigma1=4, sigma2=8, c=1),
              exactdp.mechanism("noisy_max_gaussian", sigma=4))


def _runs(mech, d1, d2) -> None:
    """The profile and largest loss run by run (classes for noisy max), whatever n."""
    if mech.name == "svt_gaussian":
        threshold_runs.run_profile(mech, d1, d2, DPS)(EPS)
        best = threshold_runs.run_extremes(mech, d1, d2, DPS)[0]
        exactdp.privacy_loss(mech, d1, d2, best, DPS)
    else:
        exactdp.privacy_profile(mech, d1, d2, [EPS], DPS)
        exactdp.max_privacy_loss(mech, d1, d2, DPS)


def _output_by_output(mech, d1, d2) -> None:
    """The profile and largest loss from every output's probability on each input."""
    if mech.name == "svt_gaussian":  # the API's enumeration up to 1000 queries
        exactdp.privacy_profile(mech, d1, d2, [EPS], DPS)
        exactdp.max_privacy_loss(mech, d1, d2, DPS)
        return
    sides = [output_probabilities(mech, d, DPS + 10) for d in (d1, d2)]
    pairs = [OutputPair(sides[0][key], sides[1][key], 1, key) for key in sides[0]]
    _discrete_delta(pairs, EPS, DPS, mech.name)
    largest_log_ratio(pairs, DPS, mech.name)
    largest_log_ratio([pair.swapped() for pair in pairs], DPS, mech.name)
    for d in (d1, d2):  # the maximiser certified on its own, as max_privacy_loss does
        exactdp.probability(mech, d, 0, DPS, "certified")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000, 1000000])
    parser.add_argument("--baseline", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    for mech in MECHANISMS:
        print(mech.name, flush=True)
        enumerated = None
        for n in args.sizes:
            d1, d2 = as_queries(f"0*{n}"), as_queries(f"1*{n}")
            calls = [("profile", lambda: exactdp.privacy_profile(mech, d1, d2, [EPS], DPS)),
                     ("maxloss", lambda: exactdp.max_privacy_loss(mech, d1, d2, DPS))]
            calls.append(("renyi", lambda: exactdp.renyi_divergence(mech, d1, d2, [2], DPS)))
            line = f"  0*{n} vs 1*{n}:"
            for name, call in calls:
                t, cpu, _ = medians(lambda: discrete_rule.cache_clear() or call(), args.repeats)
                line += f" {name} {t:6.3f} s ({cpu:.3f} s CPU)"
            if mech.name == "svt_gaussian":
                enumerated = enumerated or cpu
                line += f" (renyi CPU ratio to 0*{args.sizes[0]}: {cpu / enumerated:.2f})"
            print(line, flush=True)
        n = args.baseline
        d1, d2 = as_queries(f"0*{n}"), as_queries(f"1*{n}")
        fast, _ = median_time(lambda: _runs(mech, d1, d2), args.repeats)
        slow, _ = median_time(lambda: _output_by_output(mech, d1, d2), args.repeats)
        print(f"  n = {n}, profile + maxloss: {fast:6.3f} s by runs, {slow:6.3f} s output by "
              f"output (ratio {fast / slow:.3f})", flush=True)
        d1, d2 = neighbours(40)
        line = "  40 distinct queries:"
        for name, call in (
                ("profile", lambda: exactdp.privacy_profile(mech, d1, d2, [EPS], DPS)),
                ("renyi", lambda: exactdp.renyi_divergence(mech, d1, d2, [2], DPS)),
                ("maxloss", lambda: exactdp.max_privacy_loss(mech, d1, d2, DPS))):
            t, _ = median_time(call, args.repeats)
            line += f" {name} {t:6.3f} s"
        print(line, flush=True)


if __name__ == "__main__":
    main()
