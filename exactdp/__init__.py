"""exactdp: exact output probabilities and privacy losses of differential-privacy mechanisms.

Examples
--------
>>> import exactdp
>>> m = exactdp.mechanism("svt1", eps=1)
>>> loss = exactdp.privacy_loss(m, [0, 0, 0], [1, 1, 1], "F,F,F")
>>> print(exactdp.format_value(loss.log_ratio, 12))
0.388482851236
"""

import importlib

from .errors import ExactDPError, InputError, MethodUnavailableError, PrecisionError

#: Public name → the module that defines it, imported at the name's first use (PEP 562), so that
#: ``import exactdp.cli`` and ``exactdp --help`` do not load the engine, numpy and FLINT.
_LAZY = {**dict.fromkeys(["CertifiedPrivacyLoss", "CertifiedProbability", "MaxPrivacyLoss",
                          "PrivacyLoss", "Probability", "max_privacy_loss", "privacy_loss",
                          "probability"], ".exact"),
         "format_value": ".formatting",
         **dict.fromkeys(["ProfilePoint", "privacy_profile"], ".exact.divergences.profile"),
         **dict.fromkeys(["PrivacyLossDistribution", "privacy_loss_distribution"],
                         ".exact.divergences.loss_distribution"),
         "to_dp_accounting": ".accounting",
         **dict.fromkeys(["RenyiPoint", "renyi_divergence"], ".exact.divergences.renyi"),
         **dict.fromkeys(["ZCDPResult", "zcdp"], ".exact.divergences.zcdp"),
         **dict.fromkeys(["ThresholdMechanism", "catalogue", "mechanism"], ".mechanisms"),
         "program": ".programs", "sample": ".sampling",
         **dict.fromkeys(["discrete_gaussian", "discrete_laplace"], ".programs.linear"),
         **dict.fromkeys(["expected_utility", "selection_probabilities"],
                       ".exact.selection")}


def __getattr__(name: str):
    if name not in _LAZY:
        raise AttributeError(f"module 'exactdp' has no attribute {name!r}")
    value = getattr(importlib.import_module(_LAZY[name], __name__), name)
    globals()[name] = value
    return value


def __dir__():
    return sorted([*globals(), *_LAZY])

__version__ = "0.1.0"

__all__ = ["CertifiedPrivacyLoss", "CertifiedProbability", "ExactDPError", "InputError",
           "MaxPrivacyLoss", "MethodUnavailableError", "PrecisionError", "PrivacyLoss",
           "Probability", "ProfilePoint", "RenyiPoint", "ThresholdMechanism", "catalogue",
           "discrete_gaussian", "discrete_laplace", "expected_utility", "format_value",
           "max_privacy_loss", "mechanism", "privacy_loss", "privacy_loss_distribution",
           "privacy_profile", "PrivacyLossDistribution", "probability", "program",
           "renyi_divergence", "sample", "selection_probabilities", "to_dp_accounting",
           "ZCDPResult", "zcdp"]
