"""Checks of the integer arguments every command shares: counts and seeds.

Each returns the value as an ``int`` or raises :class:`~exactdp.errors.InputError` naming the
argument and echoing the value.
"""

from __future__ import annotations

import numpy as np

from .errors import InputError


def check_positive(name: str, value: object) -> int:
    """``value`` as an ``int`` if it is a positive integer."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(f"{name} must be a positive integer, got {name}={value!r}")
    return int(value)


def check_seed(seed: object) -> int:
    """``seed`` if it is a non-negative integer (what ``numpy.random.SeedSequence`` accepts)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise InputError(f"seed must be a non-negative integer, got seed={seed!r}")
    return int(seed)
