"""Exact interpreter of the mechanism descriptions: the integral form (docs/mathematics.md)."""

# Importing the engines of the other families registers them with ``probability``.
from . import events, histogram, noisy_max, sums  # noqa: F401
from .loss import CertifiedPrivacyLoss, MaxPrivacyLoss, PrivacyLoss, privacy_loss
from .loss_supremum import max_privacy_loss
from .probability import Probability, probability
from ..precision import CertifiedProbability

__all__ = ["CertifiedPrivacyLoss", "CertifiedProbability", "MaxPrivacyLoss", "PrivacyLoss",
           "Probability", "max_privacy_loss", "privacy_loss", "probability"]
