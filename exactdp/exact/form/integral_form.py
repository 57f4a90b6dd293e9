"""The one integral form that every exact probability of the one-dimensional families is built as.

An output probability (or density) is a sum of non-negative *terms*; each term is a product of
constant factors and of integrals over one *hub* noise ``z``::

    P = Σ_t  c_t · Π_k h_k(x_k)^{n_k} · Π_l I_l^{m_l},
    I = ∫_{lower}^{upper} p_hub(z) · Π_j g_j(z − s_j)^{m_j} dz

where every ``g_j`` and ``h_k`` is a noise law's CDF, survival function or density
(``exactdp.noise``), evaluated at a point linear in ``z`` (slope 1, shift ``s_j``) or at a
constant point ``x_k``.  Identical factors are grouped into powers, so the cost depends on the
number of distinct factors, never on how often each repeats.

* Sparse Vector variants: the hub is the threshold noise ρ; ⊥ at query ``q`` is
  ``F_ν(z − (q − T))``, ⊤ is ``S_ν(z − (q − T))``, a released gap ``g`` the density
  ``p_ν(z − (q − T − g))``; a released noisy or fresh value is a constant density; a redrawn
  threshold gives one integral per threshold draw (Lyu, Su & Li, PVLDB 2017, Eq. 5).
* Report noisy max: the hub is the winner's noise, ``Pr[argmax = i] =
  ∫ p(z) Π_{j≠i} F(z − (q_j − q_i)) dz``; the largest value ``v`` has the density
  ``Σ_i p(v − q_i) Π_{j≠i} F(v − q_j)``, a sum of terms without integral.
* Histograms: one term of constant densities.

A factor of a point mass (no noise) is a constraint, not a factor: ``F_0(z − s) = 1[z ≥ s]``
becomes the bound ``lower ≥ s``; a law whose density or CDF vanishes on a half-line (the
exponential law) bounds the domain the same way.  An empty domain is an exact zero.

Over an integer-valued hub (discrete Laplace) the "integral" is the sum
``Σ_{lower < k < upper} Pr[ρ = k] Π_j g_j(k − s_j)^{m_j}`` over the integers, the factors the
laws' CDF ``Pr[ν < x]``, survival function ``Pr[ν ≥ x]`` or mass; the same form carries it and
the certified evaluator sums it (``backends/discrete_hub.py``).

The evaluators (closed form, peak-aware quadrature, the discrete sum) read only these
structures.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from fractions import Fraction

from ...hashed_once import hashed_once
from ...noise import Kind, NoiseLaw


@dataclass(frozen=True)
class Factor:
    """``g(z − shift)^power`` with ``g`` the ``kind`` function of ``law``."""

    law: NoiseLaw
    kind: Kind
    shift: Fraction
    power: int


@dataclass(frozen=True)
class Integral:
    """``∫_{lower}^{upper} p_hub(z) Π factors dz``; ``None`` bounds are infinite.

    Build it with :class:`IntegralBuilder`, which normalises constraints and groups factors.
    """

    hub: NoiseLaw
    factors: tuple[Factor, ...]
    lower: Fraction | None = None
    upper: Fraction | None = None

    @property
    def is_empty(self) -> bool:
        """True when the domain is empty: the integral is an exact zero.  Over an
        integer-valued hub: no integer between the bounds, or the mass of an integer-valued law
        at ``k − s`` with ``s`` not an integer."""
        bounded = self.lower is not None and self.upper is not None
        if not self.hub.integer_valued:
            return bounded and self.lower >= self.upper
        return (bounded and math.floor(self.lower) + 1 > math.ceil(self.upper) - 1) or any(
            f.kind is Kind.PDF and f.law.integer_valued and f.shift.denominator != 1
            for f in self.factors)

    @property
    def kinks(self) -> tuple[Fraction, ...]:
        """Points strictly inside (lower, upper) where the integrand is not smooth."""
        points = set(self.hub.kink_points())
        for factor in self.factors:
            points.update(factor.shift + k for k in factor.law.kink_points())
        return tuple(sorted(p for p in points
                            if (self.lower is None or p > self.lower)
                            and (self.upper is None or p < self.upper)))

    @property
    def pieces(self) -> list[tuple[Fraction | None, Fraction | None]]:
        """``[(lo, hi)]``: the domain split at the :attr:`kinks` (``None``: an infinite end)."""
        edges = [self.lower, *self.kinks, self.upper]
        return list(zip(edges, edges[1:]))

    @property
    def total_power(self) -> int:
        """Σ powers: how many factors the integrand multiplies."""
        return sum(factor.power for factor in self.factors)

    @property
    def magnitude(self) -> Fraction:
        """A bound on the size of the logs the integrand sums near its mass, for the working
        precision: ``(total power + 1)`` times the largest ``NoiseLaw.log_size`` of its laws at
        the largest ``|bound|`` or ``|shift|`` (``1 + distance/b`` for the Laplace law,
        ``(1 + distance/σ)²`` for the Gaussian)."""
        points = [abs(p) for p in (self.lower, self.upper) if p is not None]
        distance = max([abs(f.shift) for f in self.factors] + points, default=Fraction(0))
        laws = [self.hub] + [f.law for f in self.factors]
        return (self.total_power + 1) * max(law.log_size(distance) for law in laws)

    @property
    def scale(self) -> Fraction:
        """A length scale of the integrand: the smallest noise scale involved, the finest
        feature the peak and level searches of the quadrature resolve (their steps and
        tolerances are multiples of it)."""
        return min([self.hub.scale] + [f.law.scale for f in self.factors])


def interior_point(lo: Fraction | None, hi: Fraction | None) -> Fraction:
    """A point inside the piece ``(lo, hi)`` (``None``: an infinite end), which tells on which
    side of every kink the piece lies: the midpoint, or 1 inside a half-line."""
    if lo is None and hi is None:
        return Fraction(0)
    if lo is None:
        return hi - 1
    if hi is None:
        return lo + 1
    return (lo + hi) / 2


def _canonical(powers: Counter) -> list:
    """The ``((law, kind, point), power)`` items in a fixed order (point, kind, law), so that
    equal integrals and terms compare and hash equal."""
    return sorted(powers.items(),
                  key=lambda item: (item[0][2], item[0][1].value, str(item[0][0])))


class IntegralBuilder:
    """Collects the factors and bounds of one integral over the hub noise ``hub``."""

    def __init__(self, hub: NoiseLaw):
        self.hub = hub
        self.powers: Counter = Counter()
        self.lower: Fraction | None = None
        self.upper: Fraction | None = None
        self._bound_by_region(hub.positive_region(Kind.PDF), Fraction(0))

    def add(self, law: NoiseLaw, kind: Kind, shift: Fraction, power: int = 1) -> None:
        """Multiply by ``g(z − shift)^power``; a point-mass law or a vanishing half-line
        becomes a bound on ``z``."""
        self._bound_by_region(law.positive_region(kind), shift)
        if not law.is_point_mass:
            self.powers[law, kind, shift] += power

    def bound_below(self, bound: Fraction) -> None:
        """Restrict to ``z > bound``."""
        self.lower = bound if self.lower is None else max(self.lower, bound)

    def bound_above(self, bound: Fraction) -> None:
        """Restrict to ``z < bound``."""
        self.upper = bound if self.upper is None else min(self.upper, bound)

    def make_impossible(self) -> None:
        """Empty the domain (an output the mechanism cannot produce)."""
        self.lower, self.upper = Fraction(0), Fraction(0)

    @property
    def is_trivial(self) -> bool:
        """True when nothing has been multiplied or bounded (the integral is 1)."""
        return not self.powers and self.lower is None and self.upper is None

    def _bound_by_region(self, region: tuple, shift: Fraction) -> None:
        low, high = region
        if low is not None:
            self.bound_below(low + shift)
        if high is not None:
            self.bound_above(high + shift)

    def build(self) -> Integral:
        """The integral, factors in a canonical order (so equal integrals compare equal)."""
        factors = tuple(Factor(law, kind, shift, power)
                        for (law, kind, shift), power in _canonical(self.powers))
        return Integral(self.hub, factors, self.lower, self.upper)


@dataclass(frozen=True)
class Constant:
    """``g(point)^power`` with ``g`` the ``kind`` function of ``law`` (no hub dependence)."""

    law: NoiseLaw
    kind: Kind
    point: Fraction
    power: int


@dataclass(frozen=True)
class Term:
    """``multiplicity · Π constants · Π_l I_l^{m_l}``."""

    constants: tuple[Constant, ...] = ()
    integrals: tuple[tuple[Integral, int], ...] = ()
    multiplicity: int = 1

    @property
    def is_zero(self) -> bool:
        """True when an integral has an empty domain (a constant that vanishes is found when it
        is evaluated)."""
        return any(integral.is_empty for integral, _ in self.integrals)


def make_term(constants: Counter, integrals: Counter, multiplicity: int = 1) -> Term:
    """A :class:`Term` from counters of ``(law, kind, point)`` and of :class:`Integral`."""
    grouped = tuple(Constant(law, kind, point, power)
                    for (law, kind, point), power in _canonical(constants))
    return Term(grouped, tuple(integrals.items()), multiplicity)


@hashed_once
@dataclass(frozen=True)
class IntegralForm:
    """``Σ terms``: the probability, or the density when ``is_density``."""

    terms: tuple[Term, ...]
    is_density: bool

    @property
    def magnitude(self) -> Fraction:
        """How large the logs the terms sum can get, for the working precision: the powers of
        the constants times their laws' ``log_size`` at their points, plus the integrals'
        :attr:`Integral.magnitude`."""
        size = Fraction(1)
        for term in self.terms:
            size += sum(c.power * c.law.log_size(abs(c.point)) for c in term.constants)
            size += sum(m * integral.magnitude for integral, m in term.integrals)
        return size
