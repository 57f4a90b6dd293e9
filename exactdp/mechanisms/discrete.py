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
  ``ρ ~ N_ℤ(0, σ1²)``, ``ν_i ~ N_ℤ(0, σ2²)`` (Canonne, Kamath & Steinke, NeurIPS 2020;
  :class:`~exactdp.discrete_gaussian_law.DiscreteGaussian`), the discrete analogue of the
  Gaussian Sparse Vector (Zhu & Wang, NeurIPS 2020).  Its loss is unbounded (the mass ratio
  ``e^{((k+1)² − k²)/(2σ²)}`` of a unit shift grows without bound in the tails): no pure ε-DP;
  (ε, δ) and Rényi guarantees, as for ``svt_gaussian``.
* ``count_discrete_gaussian`` — noisy counts: every count ``q_i`` released as
  ``q_i + N_ℤ(0, σ²)``, neighbouring data sets differing in one count by 1 (the histogram family,
  :class:`~exactdp.mechanisms.histogram.HistogramMechanism`).  Canonne, Kamath & Steinke show it
  ``ρ``-zCDP with ``ρ = Δ²/(2σ²)`` (their concentrated-DP theorem for the discrete Gaussian
  mechanism); it has no pure ε-DP (the same unbounded ratio).
"""

from __future__ import annotations

from fractions import Fraction

from ..discrete_gaussian_law import DiscreteGaussian
from ..noise import DiscreteLaplace
from .catalogue import CatalogueEntry, Param, register
from .description import ThresholdMechanism
from .base import Neighbours
from .gaussian import NOT_PURE
from .histogram import HistogramMechanism
from .svt import CUTOFF

SENSITIVITY = 1
CANONNE = "Canonne, Kamath & Steinke, NeurIPS 2020"
INTEGER_THRESHOLD = Param("T", "integer", Fraction(0), "public threshold T (an integer)")


def _build_svt_discrete(p):
    claimed = SENSITIVITY / p["threshold_scale"] + 2 * p["c"] * SENSITIVITY / p["query_scale"]
    return ThresholdMechanism(name="svt_discrete", law=DiscreteLaplace,
                              threshold_scale=p["threshold_scale"],
                              query_scale=p["query_scale"], threshold=p["T"], cutoff=p["c"],
                              sensitivity=Fraction(SENSITIVITY), claimed_eps=claimed,
                              params=dict(p))


register(CatalogueEntry(
    "svt_discrete", f"Lyu, Su & Li, PVLDB 2017, Alg. 1 with discrete Laplace noise ({CANONNE})",
    "ρ~DLap(b_ρ), ν~DLap(b_ν), ⊤ when q_i+ν_i ≥ T+ρ, cutoff c, integer queries, outputs ⊤/⊥",
    (Param("threshold_scale", "budget", Fraction(2), "scale b_ρ of the threshold noise"),
     Param("query_scale", "budget", Fraction(4), "scale b_ν of the query noise"),
     CUTOFF, INTEGER_THRESHOLD),
    _build_svt_discrete, "1/b_ρ + 2c/b_ν", "at most 1/b_ρ + 2c/b_ν (Alg. 1's proof)"))


def _build_svt_discrete_gaussian(p):
    return ThresholdMechanism(name="svt_discrete_gaussian", law=DiscreteGaussian,
                              threshold_scale=p["sigma1"], query_scale=p["sigma2"],
                              threshold=p["T"], cutoff=p["c"],
                              sensitivity=Fraction(SENSITIVITY), params=dict(p))


register(CatalogueEntry(
    "svt_discrete_gaussian",
    f"Lyu, Su & Li, PVLDB 2017, Alg. 1 with discrete Gaussian noise ({CANONNE})",
    "ρ~N_Z(0,σ1²), ν~N_Z(0,σ2²), ⊤ when q_i+ν_i ≥ T+ρ, cutoff c, integer queries, outputs ⊤/⊥",
    (Param("sigma1", "budget", Fraction(2), "σ1 of the threshold's discrete Gaussian noise"),
     Param("sigma2", "budget", Fraction(4), "σ2 of the queries' discrete Gaussian noise"),
     CUTOFF, INTEGER_THRESHOLD),
    _build_svt_discrete_gaussian, "(ε, δ) or Rényi DP", NOT_PURE))


def _build_count_discrete_gaussian(p):
    return HistogramMechanism(name="count_discrete_gaussian", noise=DiscreteGaussian(p["sigma"]),
                              first_bin_only=False, sensitivity=Fraction(SENSITIVITY),
                              neighbours=Neighbours.ONE_DIFFER, params=dict(p))


register(CatalogueEntry(
    "count_discrete_gaussian", f"{CANONNE} (the discrete Gaussian mechanism)",
    "q_i + N_Z(0,σ²) per count, outputs every noisy count (one count differs by 1)",
    (Param("sigma", "budget", Fraction(2), "σ of every count's discrete Gaussian noise"),),
    _build_count_discrete_gaussian, "ρ = 1/(2σ²) zCDP", NOT_PURE))
