"""Exact interpreter of the mechanism descriptions: the integral form (docs/mathematics.md)."""

# Importing a family's modules registers its rules (``probability``, ``event_rule``,
# ``max_privacy_loss``): one line per family.
from . import threshold_events, threshold_worst_output  # noqa: F401  (Sparse Vector)
from . import histogram, histogram_events  # noqa: F401
from . import noisy_max, noisy_max_events, value_supremum  # noqa: F401
from . import sum_events, sums  # noqa: F401
from .loss import CertifiedPrivacyLoss, MaxPrivacyLoss, PrivacyLoss, privacy_loss
from .loss_supremum import max_privacy_loss
from .probability import Probability, probability
from ..precision import CertifiedProbability

__all__ = ["CertifiedPrivacyLoss", "CertifiedProbability", "MaxPrivacyLoss", "PrivacyLoss",
           "Probability", "max_privacy_loss", "privacy_loss", "probability"]
