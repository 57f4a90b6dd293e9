"""exactdp: exact output probabilities and privacy losses of differential-privacy mechanisms.

Examples
--------
>>> import exactdp
>>> m = exactdp.mechanism("svt1", eps=1)
>>> loss = exactdp.privacy_loss(m, [0, 0, 0], [1, 1, 1], "F,F,F")
>>> print(exactdp.format_value(loss.log_ratio, 12))
0.388482851236
"""

from .errors import ExactDPError, InputError, MethodUnavailableError, PrecisionError
from .exact import (CertifiedPrivacyLoss, CertifiedProbability, MaxPrivacyLoss, PrivacyLoss,
                    Probability, max_privacy_loss, privacy_loss, probability)
from .formatting import format_value
from .mechanisms import ThresholdMechanism, catalogue, mechanism
from .program import program
from .sampling import sample

__version__ = "0.1.0"

__all__ = ["CertifiedPrivacyLoss", "CertifiedProbability", "ExactDPError", "InputError", "MaxPrivacyLoss", "MethodUnavailableError",
           "PrecisionError", "PrivacyLoss", "Probability", "ThresholdMechanism", "catalogue",
           "format_value", "max_privacy_loss", "mechanism", "privacy_loss", "probability", "program",
           "sample"]
