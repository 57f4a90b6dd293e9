"""StatDP's benchmark SVT variants (Ding et al., CCS 2018, Algorithms 11–15), with StatDP's own
parameter names (ε, N, T).  They coincide with Lyu's variants (spec §3): SVT = Alg. 1,
iSVT1 = Alg. 5, iSVT2 = Alg. 6, iSVT3 = Alg. 4, iSVT4 = Alg. 3.  Outputs are raw vectors.
"""

from __future__ import annotations

from fractions import Fraction

from .catalogue import CatalogueEntry, Param, register
from .description import Release, ThresholdMechanism
from .svt import EPS, SENSITIVITY, THRESHOLD

STATDP = "Ding et al., CCS 2018"
N = Param("N", "count", 1, "stop after the N-th ⊤")


def _statdp(name, algorithm, summary, build, with_cutoff, true_privacy):
    params = (EPS, N, THRESHOLD, SENSITIVITY) if with_cutoff else (EPS, THRESHOLD, SENSITIVITY)

    def make(p):
        return ThresholdMechanism(name=name, threshold=p["T"], sensitivity=p["sensitivity"],
                                  claimed_eps=p["eps"], params=dict(p), **build(p["eps"],
                                  p["sensitivity"], p.get("N")))

    register(CatalogueEntry(name, f"{STATDP}, {algorithm}", summary, params, make, "ε", true_privacy))


_statdp("statdp.SVT", "Alg. 11", "ρ~Lap(2Δ/ε), ν~Lap(4NΔ/ε), cutoff N",
        lambda eps, d, n: dict(threshold_scale=2 * d / eps, query_scale=4 * n * d / eps, cutoff=n),
        True, "ε (tight)")
_statdp("statdp.iSVT1", "Alg. 12", "ρ~Lap(2Δ/ε), no query noise, no cutoff",
        lambda eps, d, n: dict(threshold_scale=2 * d / eps, query_scale=Fraction(0)),
        False, "not private")
_statdp("statdp.iSVT2", "Alg. 14", "ρ~Lap(2Δ/ε), ν~Lap(2Δ/ε), no cutoff",
        lambda eps, d, n: dict(threshold_scale=2 * d / eps, query_scale=2 * d / eps),
        False, "not private")
_statdp("statdp.iSVT3", "Alg. 13", "ρ~Lap(4Δ/ε), ν~Lap(4Δ/(3ε)), cutoff N",
        lambda eps, d, n: dict(threshold_scale=4 * d / eps, query_scale=4 * d / (3 * eps), cutoff=n),
        True, "(1+6N)ε/4")
_statdp("statdp.iSVT4", "Alg. 15", "ρ~Lap(2Δ/ε), ν~Lap(2NΔ/ε), cutoff N, outputs q_i+ν_i at ⊤",
        lambda eps, d, n: dict(threshold_scale=2 * d / eps, query_scale=2 * n * d / eps, cutoff=n,
                               release=Release.NOISY_VALUE),
        True, "not private for any finite ε")
