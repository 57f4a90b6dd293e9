"""The one timing rule of the benchmarks: the median wall-clock time of repeated calls.

Machines are shared and noisy, so every benchmark quotes medians, and ratios against a baseline
timed in the same run.
"""

from __future__ import annotations

import statistics
import time
from typing import Callable


def median_time(function: Callable[[], object], repeats: int,
                before: Callable[[], None] | None = None) -> tuple[float, object]:
    """``(median seconds, result of the last call)`` of ``repeats`` calls of ``function()``;
    ``before()``, if given, runs untimed before each call (to clear a cache)."""
    times, result = [], None
    for _ in range(repeats):
        if before is not None:
            before()
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return statistics.median(times), result
