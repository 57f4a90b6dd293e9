"""Declarative mechanism descriptions and the catalogue registry.

Every description is a :class:`~exactdp.mechanisms.base.Mechanism`; each family module declares
its description type and registers its catalogue entries on import.
"""

from . import checkdp, discrete, gaussian, gptt, histogram, noisy_max, selection, statdp, sums, svt  # noqa: F401
from .base import Mechanism, Neighbours, OutputKind
from .catalogue import CatalogueEntry, Param, catalogue, entry, mechanism, utility_catalogue
from .description import Release, ThresholdMechanism

__all__ = ["CatalogueEntry", "Mechanism", "Neighbours", "OutputKind", "Param", "Release",
           "ThresholdMechanism", "catalogue", "entry", "mechanism", "utility_catalogue"]
