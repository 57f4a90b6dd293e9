"""Benchmark: every output of Gaussian Sparse Vector (cutoff 1) and Gaussian noisy max at once on
shared Gauss–Legendre nodes (``exact/backends/smooth_shared_nodes.py``,
``exact/backends/noisy_max_nodes.py``), against each output's certified probability on its own
(the path the 12-query cap forced), in the same run.

``svt_gaussian`` (σ1 = 2, σ2 = 4, c = 1) and ``noisy_max_gaussian`` (σ = 2), 30 digits; ``d1``
are n random distinct queries in [−3, 3] (seeded), ``d2 = d1`` moved by ±1 per query (seeded
signs).  For each size: the median time of both inputs' output probabilities on the shared nodes
and, up to ``--alone`` queries, one output at a time, and their ratio; then of the privacy profile
(ε = 0.5, 1), the Rényi divergence (α = 2) and the largest loss through the API; last, the runs
``0*1000`` against ``1*1000``.

Run: ``python benchmarks/gaussian_outputs.py [--sizes 12 40 100] [--alone 12] [--repeats 3]``
from the repository root.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import median_time  # noqa: E402
import exactdp  # noqa: E402
from benchmarks.maxloss_speed import neighbours  # noqa: E402
from exactdp.exact.divergences.output_pairs import (certified_balls,  # noqa: E402
                                                    output_probabilities)
from exactdp.exact.form.noisy_max import index_form  # noqa: E402
from exactdp.exact.form.threshold import build_output_integral  # noqa: E402
from exactdp.exact.probability import evaluate  # noqa: E402
from exactdp.sequences import Runs, as_queries  # noqa: E402

DPS = 30


def _one_at_a_time(mech, d: Runs) -> dict:
    """Every output's certified probability on its own (``output_pairs.certified_balls``)."""
    n = len(d)
    if mech.name == "noisy_max_gaussian":
        return certified_balls(mech, {(i,): index_form(mech, d, i) for i in range(n)}, evaluate,
                               DPS)
    outputs = [(False,) * k + (True,) for k in range(n)] + [(False,) * n]
    return certified_balls(mech, {output: build_output_integral(mech, d, Runs.from_items(output))
                                  for output in outputs}, evaluate, DPS)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[12, 40, 100])
    parser.add_argument("--alone", type=int, default=12,
                        help="largest size also timed one output at a time")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    mechanisms = (exactdp.mechanism("svt_gaussian", sigma1=2, sigma2=4, c=1),
                  exactdp.mechanism("noisy_max_gaussian", sigma=2))
    for mech in mechanisms:
        print(mech.name, flush=True)
        for n in args.sizes:
            d1, d2 = (as_queries(d) for d in neighbours(n))
            shared, _ = median_time(lambda: [output_probabilities(mech, d, DPS)
                                             for d in (d1, d2)], args.repeats)
            line = f"  n = {n:4d}: outputs of both inputs {shared:7.3f} s shared"
            if n <= args.alone:
                alone, _ = median_time(lambda: [_one_at_a_time(mech, d) for d in (d1, d2)],
                                       args.repeats)
                line += f", {alone:7.3f} s one at a time (ratio {shared / alone:.3f})"
            print(line, flush=True)
            for name, call in (
                    ("profile", lambda: exactdp.privacy_profile(mech, d1, d2, [0.5, 1])),
                    ("renyi", lambda: exactdp.renyi_divergence(mech, d1, d2, [2])),
                    ("maxloss", lambda: exactdp.max_privacy_loss(mech, d1, d2))):
                t, _ = median_time(call, args.repeats)
                print(f"    {name:8s} {t:7.3f} s", flush=True)
        for name, call in (
                ("profile", lambda: exactdp.privacy_profile(mech, "0*1000", "1*1000", [1])),
                ("maxloss", lambda: exactdp.max_privacy_loss(mech, "0*1000", "1*1000"))):
            t, _ = median_time(call, args.repeats)
            print(f"  0*1000 vs 1*1000 {name:8s} {t:7.3f} s", flush=True)


if __name__ == "__main__":
    main()
