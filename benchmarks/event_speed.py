"""Certified event probabilities against the estimate, as the tester asks for them.

The tester computes ``Pr[M(D) ∈ E]`` at start-up, at 10 digits, for the events it selects:
``false_count=k`` on StatDP's input patterns of 10 queries.  For ``statdp.SVT`` (N = 1) and
``svt6`` this prints the median time of every ``k`` on one input with ``method="estimate"``
and ``method="certified"`` (the default), and the ratio certified/estimate measured in the same
run, for both engines: the outputs summed (the default with at most ``MAX_SUMMED_OUTPUTS``
outputs) and the generating polynomial integrated (forced by ``MAX_SUMMED_OUTPUTS = 0``; what
longer inputs use).

Run: ``python benchmarks/event_speed.py`` from the repository root.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from timing import median_time  # noqa: E402
import exactdp  # noqa: E402
from exactdp.exact.event_probability import threshold as threshold_events  # noqa: E402
from exactdp.exact.event_probability.rules import event_probability  # noqa: E402
from exactdp.sampling.tester import EXACT_DPS  # noqa: E402

QUERIES = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0]  # StatDP's "half half" pattern, 10 queries
MECHANISMS = (("statdp.SVT", {"eps": 1, "N": 1}), ("svt6", {"eps": 1}))
REPEATS = 3


def all_counts(mech, method: str) -> None:
    for k in range(len(QUERIES) + 1):
        event_probability(mech, QUERIES, f"false_count={k}", EXACT_DPS, method)


def main() -> None:
    print(f"{'mechanism':>11}  {'engine':>21}  {'estimate s':>10}  {'certified s':>11}  ratio")
    for engine, maximum in (("outputs summed", threshold_events.MAX_SUMMED_OUTPUTS),
                            ("generating polynomial", 0)):
        threshold_events.MAX_SUMMED_OUTPUTS = maximum
        for name, params in MECHANISMS:
            mech = exactdp.mechanism(name, **params)
            times = {method: median_time(lambda: all_counts(mech, method), REPEATS,
                                         threshold_events._programme.cache_clear)[0]
                     for method in ("estimate", "certified")}
            print(f"{name:>11}  {engine:>21}  {times['estimate']:>10.3f}  "
                  f"{times['certified']:>11.3f}  {times['certified'] / times['estimate']:.2f}")


if __name__ == "__main__":
    main()
