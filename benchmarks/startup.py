"""Benchmark: start-up time of ``exactdp --help`` and ``exactdp list`` (target: under 0.5 s each).

Each command is a fresh interpreter (``python -m exactdp …``), timed five times; the script prints
the medians and their ratios to ``python -c pass`` timed in the same run, the machine-independent
figure.  ``--root DIR`` times the checkout at ``DIR`` instead of this one (e.g. an older commit
cloned beside it, for a before/after comparison).

Run: ``python benchmarks/startup.py [--root DIR]`` from the repository root.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from timing import median_time  # noqa: E402

REPEATS = 5
COMMANDS = {"python -c pass": ["-c", "pass"], "exactdp --help": ["-m", "exactdp", "--help"],
            "exactdp list": ["-m", "exactdp", "list"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", default=str(Path(__file__).resolve().parent.parent))
    root = parser.parse_args().root
    medians = {}
    for label, arguments in COMMANDS.items():
        medians[label], _ = median_time(lambda: subprocess.run(
            [sys.executable, *arguments], cwd=root, check=True, stdout=subprocess.DEVNULL),
            REPEATS)
    baseline = medians["python -c pass"]
    print(f"start-up of {root}, median of {REPEATS} runs")
    for label, seconds in medians.items():
        print(f"  {label:16s} {seconds * 1000:7.0f} ms  {seconds / baseline:6.1f}× python -c pass")


if __name__ == "__main__":
    main()
