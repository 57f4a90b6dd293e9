"""StatDP's benchmark SVT variants (Ding et al., CCS 2018, Algorithms 11–15), with StatDP's own
parameter names (ε, N, T).  They coincide with Lyu's variants (spec §3): SVT = Alg. 1,
iSVT1 = Alg. 5, iSVT2 = Alg. 6, iSVT3 = Alg. 4, iSVT4 = Alg. 3.  Outputs are raw vectors.
"""

from __future__ import annotations

from fractions import Fraction

from .catalogue import Param
from .description import Release
from .svt import declare

STATDP = "Ding et al., CCS 2018"
N = Param("N", "count", 1, "stop after the N-th ⊤")

declare("statdp.SVT", f"{STATDP}, Alg. 11", "ρ~Lap(2Δ/ε), ν~Lap(4NΔ/ε), cutoff N", N,
        lambda eps, d, n: dict(threshold_scale=2 * d / eps, query_scale=4 * n * d / eps, cutoff=n),
        true_privacy="ε (tight)")
declare("statdp.iSVT1", f"{STATDP}, Alg. 12", "ρ~Lap(2Δ/ε), no query noise, no cutoff", None,
        lambda eps, d, n: dict(threshold_scale=2 * d / eps, query_scale=Fraction(0)),
        true_privacy="not private")
declare("statdp.iSVT2", f"{STATDP}, Alg. 14", "ρ~Lap(2Δ/ε), ν~Lap(2Δ/ε), no cutoff", None,
        lambda eps, d, n: dict(threshold_scale=2 * d / eps, query_scale=2 * d / eps),
        true_privacy="not private")
declare("statdp.iSVT3", f"{STATDP}, Alg. 13", "ρ~Lap(4Δ/ε), ν~Lap(4Δ/(3ε)), cutoff N", N,
        lambda eps, d, n: dict(threshold_scale=4 * d / eps, query_scale=4 * d / (3 * eps), cutoff=n),
        true_privacy="(1+6N)ε/4")
declare("statdp.iSVT4", f"{STATDP}, Alg. 15",
        "ρ~Lap(2Δ/ε), ν~Lap(2NΔ/ε), cutoff N, outputs q_i+ν_i at ⊤", N,
        lambda eps, d, n: dict(threshold_scale=2 * d / eps, query_scale=2 * n * d / eps, cutoff=n,
                               release=Release.NOISY_VALUE),
        true_privacy="not private for any finite ε")
