"""Exact interpreter of the mechanism descriptions: the master integral of spec §2."""

from .loss import MaxPrivacyLoss, PrivacyLoss, max_privacy_loss, privacy_loss
from .probability import Probability, probability

__all__ = ["MaxPrivacyLoss", "PrivacyLoss", "Probability", "max_privacy_loss", "privacy_loss",
           "probability"]
