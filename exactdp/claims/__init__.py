"""The published claims of spec §4, computed exactly, judged, drawn: ``exactdp reproduce``.

Importing a claim module registers its claims (:func:`register_claim`); the order of the imports
is the order of the catalogue.
"""

from . import gptt, lyu  # noqa: F401  (importing registers the claims)
from .registry import CONFIRMED, REFUTED, Claim, ClaimResult, claim_ids, get_claim, register_claim

__all__ = ["CONFIRMED", "REFUTED", "Claim", "ClaimResult", "claim_ids", "get_claim",
           "register_claim"]
