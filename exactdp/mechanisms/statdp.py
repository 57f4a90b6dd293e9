"""StatDP's benchmark SVT variants (Ding et al., CCS 2018, Algorithms 11–15), with StatDP's own
parameter names (ε, N, T).  They coincide with Lyu's variants (Lyu, Su & Li, PVLDB 2017):
SVT = Alg. 1, iSVT1 = Alg. 5, iSVT2 = Alg. 6, iSVT3 = Alg. 4, iSVT4 = Alg. 3.  Outputs are raw
vectors.
"""

from __future__ import annotations

from .catalogue import Param
from .svt import alg1_fields, alg3_fields, alg4_fields, alg5_fields, alg6_fields, declare

STATDP = "Ding et al., CCS 2018"
N = Param("N", "count", 1, "stop after the N-th ⊤")
#: StatDP's signatures take N for every SVT variant; the variants without cutoff ignore it.
N_IGNORED = Param("N", "count", 1, "accepted as in StatDP's signature; no effect (no cutoff)")

declare("statdp.SVT", f"{STATDP}, Alg. 11", "ρ~Lap(2Δ/ε), ν~Lap(4NΔ/ε), cutoff N", N,
        alg1_fields, true_privacy="ε (tight)", statdp_view="false_count")
declare("statdp.iSVT1", f"{STATDP}, Alg. 12",
        "ρ~Lap(2Δ/ε), no query noise, no cutoff (N has no effect)", N_IGNORED, alg5_fields,
        true_privacy="not private", statdp_view="hamming_half")
declare("statdp.iSVT2", f"{STATDP}, Alg. 14",
        "ρ~Lap(2Δ/ε), ν~Lap(2Δ/ε), no cutoff (N has no effect)", N_IGNORED, alg6_fields,
        true_privacy="not private", statdp_view="hamming_half")
declare("statdp.iSVT3", f"{STATDP}, Alg. 13", "ρ~Lap(4Δ/ε), ν~Lap(4Δ/(3ε)), cutoff N", N,
        alg4_fields, true_privacy="(1+6N)ε/4", statdp_view="hamming_half")
declare("statdp.iSVT4", f"{STATDP}, Alg. 15",
        "ρ~Lap(2Δ/ε), ν~Lap(2NΔ/ε), cutoff N, outputs q_i+ν_i at ⊤", N, alg3_fields,
        true_privacy="not private for any finite ε", statdp_view="false_count_last")
