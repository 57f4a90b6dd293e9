"""Attacks on mechanisms that are not differentially private.

* :mod:`~exactdp.attacks.reconstruction`: Chen & Machanavajjhala's reconstruction of a histogram
  with GPTT (arXiv:1508.07306, §5, Algorithms 3 and 4) and its seeded simulation;
* :mod:`~exactdp.attacks.exact_accuracy`: its exact expected accuracy and the exact probability
  of Theorem 5.12's event;
* :mod:`~exactdp.attacks.datasets`: the histograms it runs on (UCI Adult, Zipf, CSV files).

The mathematics is in ``docs/reconstruction.md``.
"""

from .datasets import Histogram, adult, from_csv, parse_dataset, zipf
from .exact_accuracy import ExactAccuracy, Enclosure, exact_accuracy, theorem_5_12_probability
from .reconstruction import (DEFAULT_DELTA, Budget, Simulation, algorithm_3, algorithm_3_pairwise,
                             simulate)

__all__ = ["DEFAULT_DELTA", "Budget", "ExactAccuracy", "Enclosure", "Histogram", "Simulation",
           "adult", "algorithm_3", "algorithm_3_pairwise", "exact_accuracy", "from_csv",
           "parse_dataset", "simulate", "theorem_5_12_probability", "zipf"]
