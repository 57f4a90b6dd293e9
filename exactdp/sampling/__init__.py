"""Sampling interpreter of the mechanism descriptions (vectorised numpy)."""

from .sampler import ABSENT, Samples, output_counts, sample

__all__ = ["ABSENT", "Samples", "output_counts", "sample"]
