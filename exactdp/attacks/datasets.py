"""Histograms to reconstruct: the UCI Adult capital-loss histogram, Zipf histograms, CSV files.

A :class:`Histogram` is a vector of non-negative integer counts over a domain of cells, with the
columns of Chen & Machanavajjhala's Table 1 [1]_: the domain size, the scale (number of tuples)
and ``k``, the largest ``k`` such that every count ``0, 1, …, k`` occurs (the hypothesis of their
Theorem 5.12).

References
----------
.. [1] Y. Chen and A. Machanavajjhala, "On the Privacy Properties of Variants on the Sparse
   Vector Technique", arXiv:1508.07306, 2015, §5, Table 1.
.. [2] B. Becker and R. Kohavi, "Adult", UCI Machine Learning Repository, 1996,
   doi:10.24432/C5XW20 (CC BY 4.0).
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

from ..checks import check_positive, check_seed
from ..errors import InputError

#: The packaged Adult histogram (derived by ``scripts/derive_adult_histogram.py``).
ADULT_RESOURCE = "adult_capital_loss.csv"
#: Largest domain a histogram may have (the exact computation is O(domain · log domain) per
#: threshold value, the simulation O(repetitions · domain)).
MAX_DOMAIN = 10**6
#: Largest number of tuples (2·|P|·count stays within int64 for every part P, and part totals
#: stay exact binary floats in the simulation).
MAX_COUNT = 2**40


@dataclass(frozen=True)
class Histogram:
    """Counts over a domain of cells.

    Attributes
    ----------
    name : str
        How the data set is called in tables (``Adult``, ``Zipf(4096, 100000, 1.1, seed 0)``, a
        file name).
    counts : numpy.ndarray
        Non-negative ``int64`` counts, one per cell (read-only).
    """

    name: str
    counts: np.ndarray

    def __post_init__(self):
        counts = np.asarray(self.counts)
        if counts.ndim != 1 or counts.size == 0:
            raise InputError(f"{self.name}: a histogram needs at least one cell, got shape "
                             f"{counts.shape}")
        if counts.size > MAX_DOMAIN:
            raise InputError(f"{self.name}: at most {MAX_DOMAIN} cells, got {counts.size}")
        if not np.issubdtype(counts.dtype, np.integer):
            raise InputError(f"{self.name}: counts must be integers, got dtype {counts.dtype}")
        if counts.min() < 0:
            raise InputError(f"{self.name}: counts must be non-negative, got {int(counts.min())}")
        if sum(counts.tolist()) > MAX_COUNT:
            raise InputError(f"{self.name}: at most {MAX_COUNT} tuples in all")
        counts = counts.astype(np.int64)
        counts.setflags(write=False)
        object.__setattr__(self, "counts", counts)

    @property
    def domain(self) -> int:
        """Number of cells, ``|T|``."""
        return int(self.counts.size)

    @property
    def scale(self) -> int:
        """Number of tuples, the sum of the counts."""
        return int(self.counts.sum())

    @property
    def support_k(self) -> int:
        """The largest ``k`` with every count ``0, …, k`` present (Table 1's ``k``); −1 when no
        cell is empty."""
        present = np.zeros(self.domain + 1, dtype=bool)
        small = self.counts[self.counts <= self.domain]
        present[small] = True
        return int(np.argmin(present)) - 1       # |T| cells cannot hold all of 0..|T|

    def small_cells(self, largest: int = 5) -> int:
        """Number of cells with a count in ``[0, largest]`` (Table 3's "# of cells")."""
        return int((self.counts <= largest).sum())


def adult() -> Histogram:
    """The UCI Adult capital-loss histogram over 4096 cells (packaged data; its provenance,
    binning and licence are in ``exactdp/data/adult_capital_loss.md``)."""
    text = resources.files("exactdp.data").joinpath(ADULT_RESOURCE).read_text(encoding="utf-8")
    return Histogram("Adult", _column(text, "count", ADULT_RESOURCE))


def zipf(domain: int, total: int, exponent: float, seed: int) -> Histogram:
    """``total`` tuples drawn independently over ``domain`` cells, cell ``r`` (1-based) with
    probability ``r^{−exponent} / Σ_j j^{−exponent}`` (a Zipf law truncated to the domain; the
    multinomial draw uses ``numpy.random.default_rng(seed)``).
    """
    domain, total, seed = (check_positive("Zipf domain", domain),
                           check_positive("Zipf total", total), check_seed(seed))
    if domain > MAX_DOMAIN:
        raise InputError(f"Zipf domain must be at most {MAX_DOMAIN}, got {domain}")
    if total > MAX_COUNT:
        raise InputError(f"Zipf total must be at most {MAX_COUNT}, got {total}")
    if not (isinstance(exponent, (int, float)) and np.isfinite(exponent) and exponent > 0):
        raise InputError(f"Zipf exponent must be a positive number, got {exponent!r}")
    weights = np.arange(1, domain + 1, dtype=float) ** -float(exponent)
    counts = np.random.default_rng(seed).multinomial(total, weights / weights.sum())
    return Histogram(f"Zipf({domain}, {total}, {exponent:g}, seed {seed})", counts)


def from_csv(path: str | Path, column: str | None = None) -> Histogram:
    """A histogram from a CSV file: one count per line, or the column named ``column`` of a file
    with a header line."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot read the histogram file {path}: {exc.strerror or exc}") from None
    return Histogram(path.name, _column(text, column, str(path)))


def _column(text: str, column: str | None, where: str) -> np.ndarray:
    """The counts of ``text``: the named column (after a header), or the only column."""
    rows = [row for row in csv.reader(io.StringIO(text)) if any(cell.strip() for cell in row)]
    if column is not None:
        if not rows or column not in [cell.strip() for cell in rows[0]]:
            header = ", ".join(cell.strip() for cell in rows[0]) if rows else "nothing"
            raise InputError(f"{where}: no column named {column!r} (header: {header})")
        index = [cell.strip() for cell in rows[0]].index(column)
        rows = rows[1:]
    else:
        index = 0
    if not rows:
        raise InputError(f"{where}: no counts")
    counts = []
    for number, row in enumerate(rows, start=2 if column is not None else 1):
        if column is None and len(row) != 1:
            raise InputError(f"{where}, line {number}: expected one count per line (or choose a "
                             f"column with --column), got {','.join(row)!r}")
        if index >= len(row):
            raise InputError(f"{where}, line {number}: no value in column {column!r}")
        cell = row[index].strip()
        if not cell.isdigit():
            raise InputError(f"{where}, line {number}: a count must be a non-negative integer, "
                             f"got {cell!r}")
        counts.append(int(cell))
    if max(counts) > MAX_COUNT:
        raise InputError(f"{where}: counts must be at most {MAX_COUNT}, got {max(counts)}")
    return np.array(counts, dtype=np.int64)


def parse_dataset(spec: str, column: str | None = None) -> Histogram:
    """The data set named on the command line: ``adult``,
    ``zipf:DOMAIN,TOTAL,EXPONENT,SEED`` or the path of a CSV file."""
    if spec == "adult":
        if column is not None:
            raise InputError("--column applies to a CSV file, not to --dataset adult")
        return adult()
    if spec.startswith("zipf:"):
        parts = spec[len("zipf:"):].split(",")
        try:
            domain, total, exponent, seed = int(parts[0]), int(parts[1]), float(parts[2]), \
                int(parts[3])
            if len(parts) != 4:
                raise ValueError
        except (ValueError, IndexError):
            raise InputError(f"--dataset zipf needs zipf:DOMAIN,TOTAL,EXPONENT,SEED (integers "
                             f"and an exponent), got {spec!r}") from None
        return zipf(domain, total, exponent, seed)
    if not spec.lower().endswith(".csv") or not Path(spec).is_file():
        raise InputError(f"--dataset must be adult, zipf:DOMAIN,TOTAL,EXPONENT,SEED or an "
                         f"existing .csv file, got {spec!r}")
    return from_csv(spec, column)
