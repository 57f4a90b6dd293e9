"""Mechanisms with integer-valued noise: the Sparse Vector on integer queries.

* ``svt_discrete`` — Lyu, Su & Li's Algorithm 1 (PVLDB 2017) with discrete Laplace noise
  (Canonne, Kamath & Steinke, "The Discrete Gaussian for Differential Privacy", NeurIPS 2020,
  §2): threshold ``T + ρ``, ``ρ ~ DLap(b_ρ)``; query answers ``q_i + ν_i``,
  ``ν_i ~ DLap(b_ν)``; ⊤ when ``q_i + ν_i ≥ T + ρ``, stop after the ``c``-th ⊤.  Queries,
  threshold and sensitivity are integers.

The mass of ``DLap(b)`` changes by at most ``e^{|s|/b}`` under an integer shift ``s``, as the
density of ``Lap(b)`` does, so Algorithm 1's proof (shift ρ by Δ, each ⊤'s ν by 2Δ) gives
``ε = Δ/b_ρ + 2cΔ/b_ν`` with Δ = 1.  The description is the Sparse Vector's
(:class:`~exactdp.mechanisms.description.ThresholdMechanism`) with the law
:class:`~exactdp.noise.DiscreteLaplace`.

* ``svt_discrete_gaussian`` — the same algorithm with discrete Gaussian noise
  ``ρ ~ N_ℤ(0, σ1²)``, ``ν_i ~ N_ℤ(0, σ2²)`` (Canonne, Kamath & Steinke, NeurIPS 2020, Def. 1;
  :class:`~exactdp.discrete_gaussian_law.DiscreteGaussian`), the discrete analogue of the
  Gaussian Sparse Vector (Zhu & Wang, NeurIPS 2020).  Its loss is unbounded (the mass ratio
  ``e^{((k+1)² − k²)/(2σ²)}`` of a unit shift grows without bound in the tails): no pure ε-DP;
  (ε, δ) and Rényi guarantees, as for ``svt_gaussian``.
"""

from __future__ import annotations

from fractions import Fraction

from ..discrete_gaussian_law import DiscreteGaussian
from ..noise import DiscreteLaplace
from .catalogue import CatalogueEntry, Param, register
from .description import ThresholdMechanism
from .gaussian import NOT_PURE
from .svt import CUTOFF

SENSITIVITY = 1


def _build_svt_discrete(p):
    claimed = SENSITIVITY / p["threshold_scale"] + 2 * p["c"] * SENSITIVITY / p["query_scale"]
    return ThresholdMechanism(name="svt_discrete", law=DiscreteLaplace,
                              threshold_scale=p["threshold_scale"],
                              query_scale=p["query_scale"], threshold=p["T"], cutoff=p["c"],
                              sensitivity=Fraction(SENSITIVITY), claimed_eps=claimed,
                              params=dict(p))


register(CatalogueEntry(
    "svt_discrete", "Lyu, Su & Li, PVLDB 2017, Alg. 1 with discrete Laplace noise "
    "(Canonne, Kamath & Steinke, NeurIPS 2020)",
    "ρ~DLap(b_ρ), ν~DLap(b_ν), ⊤ when q_i+ν_i ≥ T+ρ, cutoff c, integer queries, outputs ⊤/⊥",
    (Param("threshold_scale", "budget", Fraction(2), "scale b_ρ of the threshold noise"),
     Param("query_scale", "budget", Fraction(4), "scale b_ν of the query noise"),
     CUTOFF, Param("T", "integer", Fraction(0), "public threshold T (an integer)")),
    _build_svt_discrete, "1/b_ρ + 2c/b_ν", "at most 1/b_ρ + 2c/b_ν (Alg. 1's proof)"))


def _build_svt_discrete_gaussian(p):
    return ThresholdMechanism(name="svt_discrete_gaussian", law=DiscreteGaussian,
                              threshold_scale=p["sigma1"], query_scale=p["sigma2"],
                              threshold=p["T"], cutoff=p["c"],
                              sensitivity=Fraction(SENSITIVITY), params=dict(p))


register(CatalogueEntry(
    "svt_discrete_gaussian", "Lyu, Su & Li, PVLDB 2017, Alg. 1 with discrete Gaussian noise "
    "(Canonne, Kamath & Steinke, NeurIPS 2020)",
    "ρ~N_Z(0,σ1²), ν~N_Z(0,σ2²), ⊤ when q_i+ν_i ≥ T+ρ, cutoff c, integer queries, outputs ⊤/⊥",
    (Param("sigma1", "budget", Fraction(2), "σ1 of the threshold's discrete Gaussian noise"),
     Param("sigma2", "budget", Fraction(4), "σ2 of the queries' discrete Gaussian noise"),
     CUTOFF, Param("T", "integer", Fraction(0), "public threshold T (an integer)")),
    _build_svt_discrete_gaussian, "(ε, δ) or Rényi DP", NOT_PURE))
