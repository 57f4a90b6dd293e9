"""The one timing rule of the benchmarks: the median wall-clock (and CPU) time of repeated calls.

Machines are shared and noisy, so every benchmark quotes medians, and ratios against a baseline
timed in the same run.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
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


def cpu_seconds() -> float:
    """CPU time of this process and of its finished children (worker processes)."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def medians(function: Callable[[], object], repeats: int) -> tuple[float, float, object]:
    """``(median wall-clock seconds, median CPU seconds (:func:`cpu_seconds`), result of the
    last call)`` of ``repeats`` calls of ``function()``: on a shared machine the CPU time says
    how much work was done, the wall-clock time how long it took among the other loads."""
    walls, cpus, result = [], [], None
    for _ in range(repeats):
        wall, cpu = time.perf_counter(), cpu_seconds()
        result = function()
        walls.append(time.perf_counter() - wall)
        cpus.append(cpu_seconds() - cpu)
    return statistics.median(walls), statistics.median(cpus), result


def measured_in_process(script: str, code: Path, options: list[str]) -> dict:
    """``{case: record}`` of the checkout ``code``: ``script`` run again as
    ``script --measure code *options`` in a process of its own (so that it imports that
    checkout's exactdp), which prints one JSON record with a ``"name"`` per line."""
    lines = subprocess.run([sys.executable, script, "--measure", str(code), *options],
                           check=True, capture_output=True, text=True, cwd=code).stdout
    return {record["name"]: record for record in map(json.loads, lines.splitlines())}
