"""Lyu, Su & Li (PVLDB 2017) Algorithms 1–7 (arXiv:1603.01699): the Sparse Vector variants.

Each declaration only states the noise scales, cutoff, release and threshold rule of its
algorithm; the exact engine and the sampler do the rest.
"""

from __future__ import annotations

from fractions import Fraction

from .base import Neighbours
from .catalogue import CatalogueEntry, Param, register
from .description import Release, ThresholdMechanism

LYU = "Lyu, Su & Li, PVLDB 2017"

EPS = Param("eps", "budget", Fraction(1), "claimed privacy budget ε")
CUTOFF = Param("c", "count", 1, "stop after the c-th ⊤")
THRESHOLD = Param("T", "real", Fraction(0), "public threshold T")
SENSITIVITY = Param("sensitivity", "budget", Fraction(1), "query sensitivity Δ")


def declare(name, source, summary, cutoff, fields, true_privacy="ε", statdp_view=None):
    """Register a single-budget SVT-family mechanism with parameters ε, the cutoff (if any), T, Δ.

    Parameters
    ----------
    cutoff : Param or None
        The cutoff parameter (``c`` or StatDP's ``N``); ``None`` for variants without cutoff.
    fields : callable
        ``fields(eps, sensitivity, cutoff)`` → the remaining :class:`ThresholdMechanism` fields
        (noise scales, cutoff, release, threshold rule).
    statdp_view : str or None
        StatDP's post-processing of the output, for StatDP's own benchmark entries (see
        :class:`~exactdp.mechanisms.description.ThresholdMechanism`).
    """
    params = (EPS, cutoff, THRESHOLD, SENSITIVITY) if cutoff else (EPS, THRESHOLD, SENSITIVITY)

    def make(p):
        return ThresholdMechanism(
            name=name, threshold=p["T"], sensitivity=p["sensitivity"], claimed_eps=p["eps"],
            params=dict(p), statdp_view=statdp_view,
            **fields(p["eps"], p["sensitivity"], p[cutoff.name] if cutoff else None))

    return register(CatalogueEntry(name, source, summary, params, make, "ε", true_privacy))


def alg1_fields(eps, d, c):
    """Lyu Alg. 1: ρ ~ Lap(2Δ/ε), ν ~ Lap(4cΔ/ε), cutoff c."""
    return dict(threshold_scale=2 * d / eps, query_scale=4 * c * d / eps, cutoff=c)


def alg2_fields(eps, d, c):
    """Lyu Alg. 2: ρ ~ Lap(2cΔ/ε) redrawn after each ⊤, ν ~ Lap(4cΔ/ε), cutoff c."""
    return dict(threshold_scale=2 * c * d / eps, query_scale=4 * c * d / eps, cutoff=c,
                redraw_threshold=True)


def alg3_fields(eps, d, c):
    """Lyu Alg. 3: ρ ~ Lap(2Δ/ε), ν ~ Lap(2cΔ/ε), cutoff c, releases q_i + ν_i at ⊤."""
    return dict(threshold_scale=2 * d / eps, query_scale=2 * c * d / eps, cutoff=c,
                release=Release.NOISY_VALUE)


def alg4_fields(eps, d, c):
    """Lyu Alg. 4: ρ ~ Lap(4Δ/ε), ν ~ Lap(4Δ/(3ε)) (not scaled with c), cutoff c."""
    return dict(threshold_scale=4 * d / eps, query_scale=4 * d / (3 * eps), cutoff=c)


def alg5_fields(eps, d, c):
    """Lyu Alg. 5: ρ ~ Lap(2Δ/ε), no query noise, no cutoff."""
    return dict(threshold_scale=2 * d / eps, query_scale=Fraction(0))


def alg6_fields(eps, d, c):
    """Lyu Alg. 6: ρ ~ Lap(2Δ/ε), ν ~ Lap(2Δ/ε), no cutoff."""
    return dict(threshold_scale=2 * d / eps, query_scale=2 * d / eps)


declare("svt1", f"{LYU}, Alg. 1", "ρ~Lap(2Δ/ε), ν~Lap(4cΔ/ε), cutoff c, outputs ⊤/⊥", CUTOFF,
        alg1_fields, true_privacy="ε (tight)")
declare("svt2", f"{LYU}, Alg. 2 (Dwork–Roth book)",
        "ρ~Lap(2cΔ/ε) redrawn after each ⊤, ν~Lap(4cΔ/ε), cutoff c", CUTOFF, alg2_fields)
declare("svt3", f"{LYU}, Alg. 3 (Roth's notes)",
        "ρ~Lap(2Δ/ε), ν~Lap(2cΔ/ε), cutoff c, outputs q_i+ν_i at ⊤", CUTOFF, alg3_fields,
        true_privacy="not private for any finite ε")
declare("svt4", f"{LYU}, Alg. 4 (Lee & Clifton)", "ρ~Lap(4Δ/ε), ν~Lap(4Δ/(3ε)), cutoff c", CUTOFF,
        alg4_fields, true_privacy="(1+6c)ε/4 (tight)")
declare("svt5", f"{LYU}, Alg. 5 (Stoddard et al.)", "ρ~Lap(2Δ/ε), no query noise, no cutoff", None,
        alg5_fields, true_privacy="not private")
declare("svt6", f"{LYU}, Alg. 6 (Chen et al. 2015)", "ρ~Lap(2Δ/ε), ν~Lap(2Δ/ε), no cutoff", None,
        alg6_fields, true_privacy="not private")


def _build_svt7(p):
    c, delta = p["c"], p["sensitivity"]
    query_scale = (c if p["monotone"] else 2 * c) * delta / p["eps2"]
    numeric = p["eps3"] > 0
    return ThresholdMechanism(
        name="svt7", threshold_scale=delta / p["eps1"], query_scale=query_scale,
        threshold=p["T"], sensitivity=delta, cutoff=c,
        release=Release.FRESH_VALUE if numeric else Release.FLAG,
        release_scale=c * delta / p["eps3"] if numeric else None,
        neighbours=Neighbours.MONOTONE if p["monotone"] else Neighbours.ALL_DIFFER,
        claimed_eps=p["eps1"] + p["eps2"] + p["eps3"], params=dict(p))


register(CatalogueEntry(
    "svt7", f"{LYU}, Alg. 7 (generalised SVT)",
    "ρ~Lap(Δ/ε1), ν~Lap(2cΔ/ε2) (Lap(cΔ/ε2) if monotone), cutoff c, ⊤ or q_i+Lap(cΔ/ε3)",
    (Param("eps1", "budget", Fraction(1, 2), "threshold budget ε1"),
     Param("eps2", "budget", Fraction(1, 2), "query budget ε2"),
     Param("eps3", "budget", Fraction(0), "numeric-release budget ε3 (0: output ⊤)",
           allow_zero=True),
     CUTOFF, THRESHOLD, SENSITIVITY,
     Param("monotone", "flag", False, "queries are monotone (Lyu §4.3)")),
    _build_svt7, "ε1+ε2+ε3", "ε1+ε2+ε3"))
