"""Checks of the arguments every command shares: counts, seeds, the size of a simulation, worker
processes, time limits, and the paths of output files and folders.

Each returns the value (an ``int``, a :class:`~pathlib.Path`) or raises
:class:`~exactdp.errors.InputError` naming the argument and echoing the value.
"""

from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path

import numpy as np

from .errors import InputError

#: Largest number of local worker processes: eight per processor.
MAX_JOBS = 8 * (os.cpu_count() or 1)
#: Most entries a seeded simulation holds at once, runs × entries per run (the draws, or the
#: selections, of every run are held in arrays of that size: 2·10⁷ doubles are 160 MB).
MAX_SIMULATED_ENTRIES = 20_000_000


def check_positive(name: str, value: object) -> int:
    """``value`` as an ``int`` if it is a positive integer."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InputError(f"{name} must be a positive integer, got {name}={value!r}")
    return int(value)


def check_seconds(name: str, value: object) -> float | None:
    """``value`` as a ``float`` if it is a positive, finite number of seconds (``None``, no limit,
    stays ``None``)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not 0 < value < math.inf:
        raise InputError(f"{name} must be a positive number of seconds, got {name}={value!r}")
    return float(value)


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


def check_simulation_size(name: str, runs: int, width: int, entries: str) -> None:
    """Refuse, in one line and before any draw, ``runs`` runs (the argument ``name``) of
    ``width`` ``entries`` each (``"queries"``, ``"draws"``) beyond :data:`MAX_SIMULATED_ENTRIES`
    entries, naming the most runs allowed."""
    if runs * width > MAX_SIMULATED_ENTRIES:
        raise InputError(f"{name}={runs:,} with {width:,} {entries} per run exceeds the "
                         f"{MAX_SIMULATED_ENTRIES:,} entries simulated at once; use at most "
                         f"{MAX_SIMULATED_ENTRIES // width:,} runs")


def check_writable(path, what: str, suffixes: tuple[str, ...] = (),
                   directory: bool = False) -> Path:
    """``path`` as a :class:`~pathlib.Path` if ``what`` (a file, or with ``directory`` a folder
    made with its missing parents) can be written there, tried before any computation: a file
    ends in one of ``suffixes`` (any, if empty) and its folder exists; a folder is not an
    existing file nor under one.  Writing is tried for real — a temporary file in the folder
    that would receive it, removed at once, or an existing file opened for appending — since
    permission bits do not tell (``/proc``, a read-only mount, root).  Nothing is changed."""
    path = Path(path)
    if suffixes and path.suffix.lower() not in suffixes:
        raise InputError(f"{what} must be a {' or '.join(suffixes)} file, got {str(path)!r}")
    if directory:
        if path.exists() and not path.is_dir():
            raise InputError(f"{what} must not be an existing file, got {path}")
        base = path
        while not base.exists():
            base = base.parent
        if not base.is_dir():
            raise InputError(f"{what} must not lie under the file {base}, got {path}")
    else:
        if path.is_dir():
            raise InputError(f"{what} must be a file, got the folder {str(path)!r}")
        base = path.parent
        if not base.is_dir():
            raise InputError(f"the folder of {what} does not exist: {str(base)!r}")
    try:
        if path.is_file():
            open(path, "ab").close()
        else:
            tempfile.TemporaryFile(dir=base).close()
    except OSError as exc:
        raise InputError(f"{what} cannot be written in {base} ({exc.strerror}), got {path}") \
            from None
    return path
