"""Declarative mechanism descriptions and the catalogue registry (spec §3)."""

from . import checkdp, gptt, statdp, svt  # noqa: F401  (importing registers the declarations)
from .catalogue import CatalogueEntry, Param, catalogue, entry, mechanism
from .description import Release, ThresholdMechanism

__all__ = ["CatalogueEntry", "Param", "Release", "ThresholdMechanism", "catalogue", "entry",
           "mechanism"]
