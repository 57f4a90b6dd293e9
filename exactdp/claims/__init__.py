"""The published claims of spec §4, computed exactly, judged, drawn: ``exactdp reproduce``.

Importing a claim module registers its claims (:func:`register_claim`); the order of the imports
is the order of the catalogue.
"""

# The import order is the catalogue's order: spec §4 items 1–8, then 9 (StatDP) and 10 (CheckDP).
from . import gptt, lyu, statdp_figures, checkdp  # noqa: F401,I001  (importing registers them)
from .registry import CONFIRMED, REFUTED, Claim, ClaimResult, claim_ids, get_claim, register_claim

__all__ = ["CONFIRMED", "REFUTED", "Claim", "ClaimResult", "claim_ids", "get_claim",
           "register_claim"]
