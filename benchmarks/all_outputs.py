"""Benchmark: ``max_privacy_loss`` over every output, and single outputs of the redrawn-threshold
and gap variants, at 30 digits.

* ``svt6`` (ε = 1) on 12 queries (4096 outputs), d1 a fixed 0/1 pattern and d2 its complement:
  the outputs evaluated all at once (``exactdp/exact/backends/output_tree.py``) against one at a
  time by
  the closed form (the previous method, kept for mechanisms the tree walk does not cover) —
  medians and their ratio in the same run (goal ≤ 2 s);
* ``svt1`` c = 1 on 100 queries (101 outputs; beyond the former 12-query limit);
* ``svt2`` c = 5 (threshold redrawn) and ``gap_svt`` N = 3 on 50 random queries, one output each
  (goal ≤ 1 s).

Run: ``python benchmarks/all_outputs.py [--repeats 3]`` from the repository root.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import median_time  # noqa: E402
import exactdp  # noqa: E402
from exactdp.exact.losses import privacy_loss as loss  # noqa: E402
from benchmarks.distinct_values import random_queries  # noqa: E402

SVT6_D1 = [0, 1, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0]



def one_at_a_time(mech, d1, d2, dps=30):
    """The previous method: each output's two probabilities by its own closed form."""
    from exactdp.sequences import as_queries
    outputs = list(loss.possible_outputs(mech, len(d1)))
    return loss.separate_best(mech, as_queries(d1), as_queries(d2), outputs, dps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    svt6 = exactdp.mechanism("svt6", eps=1)
    d2 = [1 - q for q in SVT6_D1]
    new, result = median_time(lambda: exactdp.max_privacy_loss(svt6, SVT6_D1, d2), args.repeats)
    print(f"max_privacy_loss svt6, 12 queries ({result.outputs} outputs): median {new:.3f} s, "
          f"worst output {result.output}, loss {float(result.loss.log_ratio):.6f}", flush=True)
    old, (old_best, _) = median_time(lambda: one_at_a_time(svt6, SVT6_D1, d2), 1)
    print(f"  the same outputs one at a time (closed form each): {old:.3f} s; "
          f"new / old = {new / old:.3f}", flush=True)
    svt1 = exactdp.mechanism("svt1", eps=1, c=1)
    d1 = [i % 3 for i in range(100)]
    t, result = median_time(lambda: exactdp.max_privacy_loss(svt1, d1, [q + 1 for q in d1]),
                            args.repeats)
    print(f"max_privacy_loss svt1 c=1, 100 queries ({result.outputs} outputs): median {t:.3f} s",
          flush=True)
    rng = random.Random(7)
    queries = random_queries(50, 3)
    tops = sorted(rng.sample(range(49), 4)) + [49]
    svt2 = exactdp.mechanism("svt2", eps=1, c=5)
    output = ["T" if i in tops else "F" for i in range(50)]
    t, p = median_time(lambda: exactdp.probability(svt2, queries, output), args.repeats)
    print(f"svt2 c=5, 50 queries: median {t:.3f} s ({p.method})", flush=True)
    gap = exactdp.mechanism("gap_svt", eps=1, N=3)
    output = ["0.5" if i in tops[-3:] else "F" for i in range(50)]
    t, p = median_time(lambda: exactdp.probability(gap, queries, output), args.repeats)
    print(f"gap_svt N=3, 50 queries: median {t:.3f} s ({p.method})", flush=True)


if __name__ == "__main__":
    main()
