"""Chen & Machanavajjhala (2015), Algorithm 2: the Generalized Private Threshold Testing (GPTT).

Prior work claimed GPTT is 2ε1-DP; Chen & Machanavajjhala (Thm 4.7) show it is not private for any
finite budget (arXiv:1508.07306).
"""

from __future__ import annotations

from fractions import Fraction

from .catalogue import INF, CatalogueEntry, Param, register
from .description import ThresholdMechanism
from .svt import SENSITIVITY, THRESHOLD


def _build_gptt(p):
    delta = p["sensitivity"]
    return ThresholdMechanism(
        name="gptt", threshold_scale=delta / p["eps1"],
        query_scale=Fraction(0) if p["eps2"] == INF else delta / p["eps2"],
        threshold=p["T"], sensitivity=delta, claimed_eps=2 * p["eps1"], params=dict(p))


register(CatalogueEntry(
    "gptt", "Chen & Machanavajjhala 2015, Alg. 2 (GPTT)",
    "ρ~Lap(Δ/ε1), ν~Lap(Δ/ε2) (none if ε2=inf), no cutoff, outputs ⊤/⊥",
    (Param("eps1", "budget", Fraction(1, 2), "threshold budget ε1"),
     Param("eps2", "budget", Fraction(1, 2), "query budget ε2 (inf: no query noise)",
           allow_inf=True),
     THRESHOLD, SENSITIVITY),
    _build_gptt, "2ε1 (prior work)", "not private for any finite ε"))
