"""From (mechanism, queries, output) to the master integral of spec §2.

``Pr[M(D) = a] = C · Π_k I_k`` where each ``I_k`` is a Laplace-threshold integral::

    I = ∫_{lower}^{upper} p_{b_ρ}(z) · Π_j F_{b_ν}(z − s_j)^{m_j} · Π_k S_{b_ν}(z − s_k)^{n_k} dz

with ``s = q_i − T`` (Lyu et al. Eq. 5: answer ⊤ iff ``q_i + ν_i ≥ T + ρ``, so
``Pr[⊥ | ρ = z] = F(T + z − q_i)`` and ``Pr[⊤ | ρ = z] = S(T + z − q_i)``).  Identical factors are
grouped into powers, so the cost depends on the number of distinct factors, never on n.

Variations (spec §2):

* no query noise (``b_ν = 0``): ``F_0``/``S_0`` are indicators, i.e. the bounds ``z > s`` (⊥) and
  ``z ≤ s`` (⊤);
* release of the compared noisy value ``v`` (Lyu Alg. 3): the constant density ``p_{b_ν}(v − q)``
  and the bound ``z ≤ v − T``;
* release of a fresh noisy value (Lyu Alg. 7, ε3 > 0): the ⊤ factor times ``p_{b_3}(v − q)``;
* release of the gap ``g = q + ν − (T + ρ)`` (GapSVT): ``ν = g + T + z − q``, so the ⊤ factor is the
  density ``p_{b_ν}(z − (q − T − g))``; a negative gap is impossible (an exact zero);
* threshold redrawn after each ⊤ (Lyu Alg. 2): one integral per segment ending in a ⊤, identical
  segments grouped into powers;
* cutoff c: the output stops right after the c-th ⊤.
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

from ..errors import InputError
from ..mechanisms.description import Release, ThresholdMechanism
from ..sequences import Runs, as_output, as_queries, format_number, zip_runs


class FactorKind(enum.Enum):
    """How one query contributes to the integrand, as a function of ``x = z − shift``."""

    #: ⊥: ``F_{b_ν}(x)``
    BELOW = "cdf"
    #: ⊤: ``S_{b_ν}(x)``
    ABOVE = "sf"
    #: ⊤ with the gap g released: the density ``p_{b_ν}(x)`` with ``shift = q − T − g``
    GAP = "pdf"


@dataclass(frozen=True)
class CdfFactor:
    """``F_{b_ν}(z − shift)^power`` (⊥), ``S_{b_ν}(z − shift)^power`` (⊤) or
    ``p_{b_ν}(z − shift)^power`` (released gap)."""

    shift: Fraction
    kind: FactorKind
    power: int


@dataclass(frozen=True)
class ThresholdIntegral:
    """``∫_{lower}^{upper} p_{b_ρ}(z) Π factors dz``; ``None`` bounds are infinite."""

    threshold_scale: Fraction
    query_scale: Fraction
    factors: tuple[CdfFactor, ...]
    lower: Fraction | None = None
    upper: Fraction | None = None

    @property
    def is_empty(self) -> bool:
        """True when the constraint interval is empty: the integral is an exact zero."""
        return self.lower is not None and self.upper is not None and self.lower >= self.upper

    @property
    def kinks(self) -> tuple[Fraction, ...]:
        """Points strictly inside (lower, upper) where the integrand is not smooth."""
        points = {Fraction(0)} | {factor.shift for factor in self.factors}
        return tuple(sorted(p for p in points
                            if (self.lower is None or p > self.lower)
                            and (self.upper is None or p < self.upper)))

    @property
    def total_power(self) -> int:
        """Σ powers: how many query factors the integrand multiplies."""
        return sum(factor.power for factor in self.factors)


@dataclass(frozen=True)
class DensityConstant:
    """``p_scale(x)^power``: a Laplace density factor that does not depend on ρ."""

    x: Fraction
    scale: Fraction
    power: int


@dataclass(frozen=True)
class OutputIntegral:
    """``Pr[M(D) = a] = Π densities · Π_k I_k^{m_k}`` (a density when ``is_density``)."""

    integrals: tuple[tuple[ThresholdIntegral, int], ...]
    densities: tuple[DensityConstant, ...]
    is_density: bool

    @property
    def is_zero(self) -> bool:
        """True when some integral has an empty domain: the output is impossible."""
        return any(integral.is_empty for integral, _ in self.integrals)


class _Segment:
    """Accumulates the factors and bounds of one threshold draw."""

    def __init__(self, mech: ThresholdMechanism):
        self.mech = mech
        self.powers: Counter = Counter()
        self.lower: Fraction | None = None
        self.upper: Fraction | None = None

    def add(self, shift: Fraction, kind: FactorKind, count: int) -> None:
        if self.mech.query_scale == 0:  # F_0(z−s) = 1[z > s], S_0(z−s) = 1[z ≤ s]
            if kind is FactorKind.ABOVE:
                self.bound_above(shift)
            else:
                self.bound_below(shift)
        else:
            self.powers[shift, kind] += count

    def bound_below(self, bound: Fraction) -> None:
        self.lower = bound if self.lower is None else max(self.lower, bound)

    def bound_above(self, bound: Fraction) -> None:
        self.upper = bound if self.upper is None else min(self.upper, bound)

    def make_impossible(self) -> None:
        self.lower, self.upper = Fraction(0), Fraction(0)

    def close(self) -> ThresholdIntegral:
        factors = tuple(CdfFactor(shift, kind, power) for (shift, kind), power
                        in sorted(self.powers.items(), key=lambda item: (item[0][0], item[0][1].value)))
        return ThresholdIntegral(self.mech.threshold_scale, self.mech.query_scale, factors,
                                 self.lower, self.upper)


def check_output_shape(mech: ThresholdMechanism, n_queries: int, output: Runs) -> None:
    """Raise :class:`InputError` unless ``output`` is a possible output shape of ``mech`` on
    ``n_queries`` queries (token types, cutoff, length)."""
    what = f"not an output {mech.name} can produce"
    tops = 0
    for token, count in output:
        if token is True and mech.releases_numbers:
            raise InputError(f"{what}: it releases a number at each ⊤, got T")
        if token is not True and token is not False and not mech.releases_numbers:
            raise InputError(f"{what}: it outputs only T/F, got the number {format_number(token)}")
        if token is not False:
            tops += count
    length = len(output)
    if length > n_queries:
        raise InputError(f"{what}: output length {length} exceeds the number of queries {n_queries}")
    cutoff = mech.cutoff
    if cutoff is not None and tops > cutoff:
        raise InputError(f"{what}: it stops after the c-th ⊤ (c={cutoff}), got {tops} ⊤ entries")
    ends_at_cutoff = cutoff is not None and tops == cutoff and output.runs[-1][0] is not False
    if length < n_queries and not ends_at_cutoff:
        raise InputError(f"{what}: output length {length} is shorter than the number of queries "
                         f"{n_queries} but does not end with the c-th ⊤")


def build_output_integral(mech: ThresholdMechanism, queries, output) -> OutputIntegral:
    """Write ``Pr[mech(queries) = output]`` as an :class:`OutputIntegral` (spec §2).

    Parameters
    ----------
    mech : ThresholdMechanism
    queries : Runs, str or sequence of numbers
        The query answers ``q_1..q_n``.
    output : Runs, str or sequence of tokens
        ``T``/``F``/numbers; may stop early right after the c-th ⊤.
    """
    queries, output = as_queries(queries), as_output(output)
    check_output_shape(mech, len(queries), output)
    threshold = mech.threshold
    segments: Counter = Counter()
    densities: Counter = Counter()
    segment = _Segment(mech)
    for (q, token), count in zip_runs(queries.prefix(len(output)), output):
        shift = q - threshold
        if token is False:
            segment.add(shift, FactorKind.BELOW, count)
            continue
        if mech.release is Release.GAP:
            if token < 0:  # q + ν ≥ T + ρ: the released gap is never negative
                segment.make_impossible()
            segment.add(shift - token, FactorKind.GAP, count)
        elif mech.release is Release.NOISY_VALUE:
            # ⊤ iff v = q + ν ≥ T + z; ν has density p_{b_ν}(v − q).
            densities[DensityConstant(token - q, mech.query_scale, 1)] += count
            segment.bound_above(token - threshold)
        else:
            if mech.release is Release.FRESH_VALUE:
                densities[DensityConstant(token - q, mech.release_scale, 1)] += count
            segment.add(shift, FactorKind.ABOVE, count if not mech.redraw_threshold else 1)
        if mech.redraw_threshold:
            # Each ⊤ ends a threshold draw; the remaining count−1 ⊤'s each form a one-factor segment.
            segments[segment.close()] += 1
            if count > 1:
                single = _Segment(mech)
                single.add(shift, FactorKind.ABOVE, 1)
                segments[single.close()] += count - 1
            segment = _Segment(mech)
    if not mech.redraw_threshold or segment.powers or segment.lower is not None or not segments:
        segments[segment.close()] += 1
    return OutputIntegral(
        integrals=tuple(segments.items()),
        densities=tuple(DensityConstant(d.x, d.scale, power) for d, power in densities.items()),
        is_density=mech.releases_numbers,
    )
