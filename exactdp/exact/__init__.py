"""Exact interpreter of the mechanism descriptions: the integral form (docs/mathematics.md)."""

# Importing a family's modules registers its rules with the generic functions of each stage
# (``probability``, ``event_rule``, ``worst_output``, ``density_supremum``): one group per family.
from .form import threshold_rules as _threshold_rules  # noqa: F401  (Sparse Vector)
from .event_probability import threshold as _threshold_events  # noqa: F401
from .losses import threshold_worst_output as _threshold_worst  # noqa: F401
from .event_probability import noisy_max as _noisy_max_events  # noqa: F401  (report noisy max)
from .form import noisy_max as _noisy_max  # noqa: F401
from .losses import value_supremum as _value_supremum  # noqa: F401
from .event_probability import histogram as _histogram_events  # noqa: F401  (histograms)
from .form import histogram as _histogram  # noqa: F401
from .event_probability import sums as _sum_events  # noqa: F401  (noisy sums)
from .form import sums as _sums  # noqa: F401
from .losses.privacy_loss import CertifiedPrivacyLoss, MaxPrivacyLoss, PrivacyLoss, privacy_loss
from .losses.supremum import max_privacy_loss
from .probability import Probability, probability
from ..precision import CertifiedProbability

__all__ = ["CertifiedPrivacyLoss", "CertifiedProbability", "MaxPrivacyLoss", "PrivacyLoss",
           "Probability", "max_privacy_loss", "privacy_loss", "probability"]
