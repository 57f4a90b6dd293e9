"""The declarative description of a Sparse-Vector-family mechanism.

A mechanism is written down once, as data, and read by two interpreters: the exact engine
(``exactdp.exact``) and the vectorised sampler (``exactdp.sampling.sampler``).  The run of every
mechanism of this family is (Lyu, Su & Li, PVLDB 2017, arXiv:1603.01699, Alg. 1–7)::

    ρ ~ law(threshold_scale)                         (law: Laplace unless declared otherwise)
    for each query q_i:
        ν_i ~ law(query_scale)                       (no noise when query_scale = 0)
        if q_i + ν_i ≥ threshold + ρ:  release ⊤     (or a number, see ``release``)
            if redraw_threshold: ρ ~ law(threshold_scale)
            stop after the ``cutoff``-th ⊤           (never when cutoff is None)
        else:                          release ⊥
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from fractions import Fraction

from ..errors import InputError
from ..noise import Laplace, NoiseLaw, noise_or_none
from ..sequences import Runs, format_number
from .base import Mechanism, OutputKind


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


@dataclass(frozen=True, kw_only=True)
class ThresholdMechanism(Mechanism):
    """A fully parametrised mechanism of the Sparse Vector family.

    Attributes
    ----------
    threshold_scale : Fraction
        Scale ``b_ρ > 0`` of the threshold noise.
    query_scale : Fraction
        Scale ``b_ν ≥ 0`` of the noise added to each query (0: no noise).
    threshold : Fraction
        The public threshold ``T``.
    cutoff : int or None
        The run stops right after the ``cutoff``-th ⊤; ``None`` means never.
    release : Release
        What is output at a ⊤ position.
    release_scale : Fraction or None
        Scale of the fresh noise when ``release`` is ``Release.FRESH_VALUE``.
    law : type of NoiseLaw
        The law of every noise, made from its scale (:class:`~exactdp.noise.Laplace`, or
        :class:`~exactdp.noise.Gaussian` with the scale its standard deviation).
    redraw_threshold : bool
        Whether ρ is drawn afresh after each ⊤ (Lyu Alg. 2).
    statdp_view : str or None
        The post-processing StatDP's benchmark applies to this variant's output before testing
        (``"false_count"``, ``"hamming_half"``, ``"false_count_last"``; see
        ``exactdp.events``), or ``None`` for the generic view.
    name, sensitivity, neighbours, claimed_eps, params
        See :class:`~exactdp.mechanisms.base.Mechanism`.
    """

    threshold_scale: Fraction
    query_scale: Fraction
    threshold: Fraction = Fraction(0)
    cutoff: int | None = None
    release: Release = Release.FLAG
    release_scale: Fraction | None = None
    redraw_threshold: bool = False
    statdp_view: str | None = None
    law: type[NoiseLaw] = Laplace

    def __post_init__(self):
        if self.threshold_scale <= 0 or self.query_scale < 0:
            raise ValueError(f"{self.name}: noise scales must be positive (threshold) and "
                             f"non-negative (queries), got {self.threshold_scale}, "
                             f"{self.query_scale}")
        if self.release in (Release.NOISY_VALUE, Release.GAP) and self.query_scale == 0:
            raise ValueError(f"{self.name}: releasing the noisy answer needs query noise")
        if self.release is Release.FRESH_VALUE and not self.release_scale:
            raise ValueError(f"{self.name}: a fresh-noise release needs a positive release_scale")
        if self.redraw_threshold and self.release is not Release.FLAG:
            raise ValueError(f"{self.name}: a redrawn threshold is only declared with ⊤ outputs")

    @property
    def output_kind(self) -> OutputKind:
        """⊤/⊥ flags, or ⊥ and released numbers."""
        return OutputKind.FLAGS if self.release is Release.FLAG else OutputKind.FLAGS_AND_NUMBERS

    def check_queries(self, queries: Runs) -> None:
        """Raise :class:`~exactdp.errors.InputError` naming the first query answer that is not
        an integer when the law is integer-valued (its comparisons are made on the
        integers)."""
        if self.law.integer_valued:
            for value, _ in queries.runs:
                if Fraction(value).denominator != 1:
                    raise InputError(f"{self.name} takes integer query answers, got "
                                     f"{format_number(value)}")

    @property
    def query_origin(self) -> Fraction:
        """The threshold ``T``: answers near it decide the ⊤/⊥ pattern."""
        return self.threshold

    @property
    def threshold_noise(self) -> NoiseLaw:
        """``law(b_ρ)``."""
        return self.law(self.threshold_scale)

    @property
    def query_noise(self) -> NoiseLaw:
        """``law(b_ν)``, or no noise when ``b_ν = 0``."""
        return noise_or_none(self.query_scale, self.law)

    @property
    def release_noise(self) -> NoiseLaw | None:
        """The fresh noise of a ``FRESH_VALUE`` release, ``law(release_scale)``."""
        return self.law(self.release_scale) if self.release_scale else None
