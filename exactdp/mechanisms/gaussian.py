"""Mechanisms with Gaussian noise: the Gaussian Sparse Vector and report noisy max.

* ``svt_gaussian`` — the Sparse Vector Technique with Gaussian noise (Zhu & Wang, "Improving
  Sparse Vector Technique with Rényi Differential Privacy", NeurIPS 2020): threshold
  ``T + ρ``, ``ρ ~ N(0, σ1²)``; query answers ``q_i + ν_i``, ``ν_i ~ N(0, σ2²)``; ⊤ when
  ``q_i + ν_i ≥ T + ρ``, stop after the ``c``-th ⊤.
* ``noisy_max_gaussian`` — the index of the largest ``q_i + N(0, σ²)``.

Gaussian noise gives no pure ε-DP (the loss of a single output is unbounded as the noise
moves into its tails); the papers state (ε, δ) or Rényi guarantees.  Both mechanisms are
declared with the same descriptions as their Laplace siblings and differ only in their law,
:class:`~exactdp.noise.Gaussian`.
"""

from __future__ import annotations

from fractions import Fraction

from ..noise import Gaussian
from .catalogue import CatalogueEntry, Param, register
from .description import ThresholdMechanism
from .noisy_max import NoisyMaxMechanism
from .svt import CUTOFF, SENSITIVITY, THRESHOLD

ZHU_WANG = "Zhu & Wang, NeurIPS 2020 (Gaussian SVT)"
NOT_PURE = "no pure ε-DP (unbounded loss); (ε, δ) and Rényi DP"


def _build_svt_gaussian(p):
    return ThresholdMechanism(name="svt_gaussian", law=Gaussian, threshold_scale=p["sigma1"],
                              query_scale=p["sigma2"], threshold=p["T"], cutoff=p["c"],
                              sensitivity=p["sensitivity"], params=dict(p))


register(CatalogueEntry(
    "svt_gaussian", ZHU_WANG,
    "ρ~N(0,σ1²), ν~N(0,σ2²), ⊤ when q_i+ν_i ≥ T+ρ, cutoff c, outputs ⊤/⊥",
    (Param("sigma1", "budget", Fraction(2), "standard deviation σ1 of the threshold noise"),
     Param("sigma2", "budget", Fraction(4), "standard deviation σ2 of the query noise"),
     CUTOFF, THRESHOLD, SENSITIVITY),
    _build_svt_gaussian, "(ε, δ) or Rényi DP", NOT_PURE))


def _build_noisy_max_gaussian(p):
    return NoisyMaxMechanism(name="noisy_max_gaussian", noise=Gaussian(p["sigma"]),
                             releases_value=False, sensitivity=p["sensitivity"], params=dict(p))


register(CatalogueEntry(
    "noisy_max_gaussian", "Report Noisy Max with Gaussian noise (Dwork & Roth 2014, §3.3)",
    "q_i + N(0,σ²), outputs the index of the largest",
    (Param("sigma", "budget", Fraction(2), "standard deviation σ of every query's noise"),
     SENSITIVITY),
    _build_noisy_max_gaussian, "(ε, δ) or Rényi DP", NOT_PURE))
