"""Declarative mechanism descriptions and the catalogue registry (spec §3)."""

from . import checkdp, gptt, histogram, noisy_max, statdp, sums, svt  # noqa: F401  (registers them)
from .catalogue import CatalogueEntry, Param, catalogue, entry, mechanism
from .description import Release, ThresholdMechanism

__all__ = ["CatalogueEntry", "Param", "Release", "ThresholdMechanism", "catalogue", "entry",
           "mechanism"]
