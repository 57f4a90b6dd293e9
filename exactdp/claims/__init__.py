"""The published claims, computed exactly, judged, drawn: ``exactdp reproduce``.

Each claim, its source and the closed form it is compared to are described in
``docs/mathematics.md`` §9; the sources are listed in ``docs/bibliography.md``.

Importing a claim module registers its claims (:func:`register_claim`); the order of the imports
is the order of the catalogue.
"""

# The import order is the catalogue's order: Chen & Machanavajjhala's and Lyu et al.'s claims,
# then StatDP's figures, CheckDP's incorrect variants, Chen & Machanavajjhala's reconstruction
# Zhu & Wang's Gaussian Sparse Vector, Lyu et al.'s utility comparisons, OpenDP's zCDP claim
# for report noisy max and SmartNoise's Gaussian scale.
from . import gptt, lyu, statdp_figures, checkdp, reconstruction, zhuwang, lyu_allocation, lyu_svt_vs_em, opendp, smartnoise  # noqa: F401,I001,E501  (registers)
from .registry import CONFIRMED, REFUTED, Claim, ClaimResult, claim_ids, get_claim, register_claim

__all__ = ["CONFIRMED", "REFUTED", "Claim", "ClaimResult", "claim_ids", "get_claim",
           "register_claim"]
