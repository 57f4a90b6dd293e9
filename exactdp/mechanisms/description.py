"""The declarative description of a Sparse-Vector-family mechanism.

A mechanism is written down once, as data, and read by two interpreters: the exact engine
(``exactdp.exact``) and the vectorised sampler (``exactdp.sampling.sampler``).  The run of every
mechanism of this family is (spec §1–2, Lyu et al. Alg. 1–7)::

    ρ ~ Lap(threshold_scale)
    for each query q_i:
        ν_i ~ Lap(query_scale)                       (no noise when query_scale = 0)
        if q_i + ν_i ≥ threshold + ρ:  release ⊤     (or a number, see ``release``)
            if redraw_threshold: ρ ~ Lap(threshold_scale)
            stop after the ``cutoff``-th ⊤           (never when cutoff is None)
        else:                          release ⊥
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping

from ..sequences import format_number


class Release(enum.Enum):
    """What the mechanism outputs at a position whose noisy answer is above the noisy threshold."""

    #: the flag ⊤ only
    FLAG = "flag"
    #: the same noisy answer ``q_i + ν_i`` that was compared (Lyu Alg. 3, StatDP iSVT4)
    NOISY_VALUE = "noisy value"
    #: ``q_i + Lap(release_scale)`` with fresh noise (Lyu Alg. 7 with ε3 > 0, NumSVT)
    FRESH_VALUE = "fresh noisy value"
    #: the gap ``q_i + ν_i − (T + ρ) ≥ 0`` between noisy answer and noisy threshold (GapSVT)
    GAP = "gap"


@dataclass(frozen=True)
class ThresholdMechanism:
    """A fully parametrised mechanism of the Sparse Vector family.

    Attributes
    ----------
    name : str
        Catalogue name (``svt1``, ``gptt``, ``statdp.iSVT3``, ...).
    threshold_scale : Fraction
        Scale ``b_ρ > 0`` of the Laplace threshold noise.
    query_scale : Fraction
        Scale ``b_ν ≥ 0`` of the Laplace noise added to each query (0: no noise).
    threshold : Fraction
        The public threshold ``T``.
    sensitivity : Fraction
        ``Δ``: neighbouring inputs differ by at most this much in each query.
    cutoff : int or None
        The run stops right after the ``cutoff``-th ⊤; ``None`` means never.
    release : Release
        What is output at a ⊤ position.
    release_scale : Fraction or None
        Scale of the fresh noise when ``release`` is ``Release.FRESH_VALUE``.
    redraw_threshold : bool
        Whether ρ is drawn afresh after each ⊤ (Lyu Alg. 2).
    monotone : bool
        Whether neighbouring inputs must move every query in the same direction (Lyu §4.3).
    one_differ : bool
        Whether neighbouring inputs differ in one query only (histogram-style); otherwise every
        query may move by up to the sensitivity (StatDP's "all differ").
    claimed_eps : Fraction or None
        The privacy budget the source claims (``None`` if the source claims none).
    params : Mapping
        The user-facing parameters the description was built from (for display).
    """

    name: str
    threshold_scale: Fraction
    query_scale: Fraction
    threshold: Fraction = Fraction(0)
    sensitivity: Fraction = Fraction(1)
    cutoff: int | None = None
    release: Release = Release.FLAG
    release_scale: Fraction | None = None
    redraw_threshold: bool = False
    monotone: bool = False
    one_differ: bool = False
    claimed_eps: Fraction | None = None
    params: Mapping = field(default_factory=dict, compare=False)

    def __post_init__(self):
        if self.threshold_scale <= 0 or self.query_scale < 0:
            raise ValueError(f"{self.name}: noise scales must be positive (threshold) and "
                             f"non-negative (queries), got {self.threshold_scale}, {self.query_scale}")
        if self.release in (Release.NOISY_VALUE, Release.GAP) and self.query_scale == 0:
            raise ValueError(f"{self.name}: releasing the noisy answer needs query noise")
        if self.release is Release.FRESH_VALUE and not self.release_scale:
            raise ValueError(f"{self.name}: a fresh-noise release needs a positive release_scale")
        if self.redraw_threshold and self.release is not Release.FLAG:
            raise ValueError(f"{self.name}: a redrawn threshold is only declared with ⊤ outputs")

    @property
    def releases_numbers(self) -> bool:
        """True when a ⊤ position outputs a number (a density) rather than the flag ⊤."""
        return self.release is not Release.FLAG

    def __str__(self) -> str:
        shown = ", ".join(f"{key}={format_number(value) if isinstance(value, Fraction) else value}"
                          for key, value in self.params.items())
        return f"{self.name}({shown})"
