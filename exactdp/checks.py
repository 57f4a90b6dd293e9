"""Checks of the integer arguments every command shares: counts and seeds.

Each returns the value as an ``int`` or raises :class:`~exactdp.errors.InputError` naming the
argument and echoing the value.
"""

from __future__ import annotations

import os

import numpy as np

from .errors import InputError

#: Largest number of local worker processes: eight per processor.
MAX_JOBS = 8 * (os.cpu_count() or 1)


def check_positive(name: str, value: object) -> int:
    """``value`` as an ``int`` if it is a positive integer."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(f"{name} must be a positive integer, got {name}={value!r}")
    return int(value)


def check_jobs(value: object) -> int:
    """``value`` as an ``int`` if it is a positive integer of at most :data:`MAX_JOBS` worker
    processes."""
    jobs = check_positive("--jobs", value)
    if jobs > MAX_JOBS:
        raise InputError(f"--jobs must be at most {MAX_JOBS} (8 per processor), got --jobs={jobs}")
    return jobs


def check_seed(seed: object) -> int:
    """``seed`` if it is a non-negative integer (what ``numpy.random.SeedSequence`` accepts)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"seed must be a non-negative integer, got seed={seed!r}")
    return int(seed)
