"""CheckDP's Sparse Vector variants with numeric outputs (Wang et al., CCS 2020, appendix D;
arXiv:2008.07485), with CheckDP's parameter names (ε, N, T).

* ``gap_svt`` (GapSVT): ρ ~ Lap(2Δ/ε), ν ~ Lap(4NΔ/ε), cutoff N; at ⊤ it releases the gap
  ``q_i + ν_i − (T + ρ) ≥ 0``.  ε-DP.
* ``bad_gap_svt`` (BadGapSVT, CheckDP Fig. 15): the same noise, but it releases the noisy answer
  ``q_i + ν_i`` instead of the gap (and ⊥ where CheckDP writes 0); docs/mathematics.md gives an
  ln ratio growing like m·ε/(4N).
* ``num_svt`` (NumSVT): ε split in thirds — ρ ~ Lap(3Δ/ε), ν ~ Lap(6NΔ/ε), and at ⊤ the fresh
  ``q_i + Lap(3NΔ/ε)`` — i.e. Lyu Alg. 7 with ε1 = ε2 = ε3 = ε/3 (ε-DP).
"""

from __future__ import annotations

from .description import Release
from .statdp import N
from .svt import declare

CHECKDP = "Wang et al. (CheckDP), CCS 2020"

declare("gap_svt", f"{CHECKDP}, GapSVT",
        "ρ~Lap(2Δ/ε), ν~Lap(4NΔ/ε), cutoff N, outputs the gap at ⊤", N,
        lambda eps, d, n: dict(threshold_scale=2 * d / eps, query_scale=4 * n * d / eps,
                               cutoff=n, release=Release.GAP))
declare("bad_gap_svt", f"{CHECKDP}, BadGapSVT (Fig. 15)",
        "ρ~Lap(2Δ/ε), ν~Lap(4NΔ/ε), cutoff N, outputs q_i+ν_i at ⊤ (not the gap)", N,
        lambda eps, d, n: dict(threshold_scale=2 * d / eps, query_scale=4 * n * d / eps,
                               cutoff=n, release=Release.NOISY_VALUE),
        true_privacy="not private (ln ratio grows like mε/(4N))")
declare("num_svt", f"{CHECKDP}, NumSVT",
        "ρ~Lap(3Δ/ε), ν~Lap(6NΔ/ε), cutoff N, outputs q_i+Lap(3NΔ/ε) at ⊤", N,
        lambda eps, d, n: dict(threshold_scale=3 * d / eps, query_scale=6 * n * d / eps,
                               cutoff=n, release=Release.FRESH_VALUE,
                               release_scale=3 * n * d / eps))
