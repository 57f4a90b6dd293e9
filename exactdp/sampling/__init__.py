"""Sampling interpreter of the mechanism descriptions (vectorised numpy)."""

from . import families, sums  # noqa: F401  (registers the samplers of the other families)
from ..sampled_outputs import ABSENT, Samples
from .sampler import output_counts, sample

__all__ = ["ABSENT", "Samples", "output_counts", "sample"]
