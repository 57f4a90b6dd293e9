"""The nested integral: a group of noises whose comparisons form a tree.

When the noises of a group are compared along the edges of a tree (each comparison a relation
on two noises, no cycle), the group's probability is a nested integral.  Root the tree at a
noise ``r``; every other noise ``v`` with parent ``u`` contributes its *message*

    m_v(z) = ∫_{L_v(z)}^{U_v(z)} p_v(y) · Π_k p_{d_k}(y − s_k) · Π_{c child of v} m_c(y) dy,

the probability, given ``u = z``, that ``v`` lies between its bounds and its subtree satisfies
its own: ``L_v(z) = max_i (α_i + β_i z)`` over its lower bounds, ``U_v(z) = min_i (α_i + β_i z)``
over its upper bounds (a bound with ``β = 0`` is a comparison of ``v`` with a constant),
``p_{d_k}(y − s_k)`` the densities of the values released as ``v`` plus a constant.  The root is
the same expression with constant bounds, and the group's probability is its value.  A tree
whose noises are each compared with the root only is a star: the one-dimensional integral of
``integral_form.py`` (which the programs keep for it).

:class:`Branch` holds one noise of the tree with its subtree; :class:`NestedIntegral` the root.
The certified back-end (``backends/nested_messages.py``) evaluates it; the other methods do
not.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ...noise import NoiseLaw


@dataclass(frozen=True)
class Branch:
    """A noise ``v ~ law`` of the tree and its subtree: ``m_v(z)`` of the module docstring.

    ``lowers`` and ``uppers`` list ``(α, β)``: ``v > α + β·z`` and ``v < α + β·z`` for the
    parent's value ``z`` (``β = 0`` for a constant bound, and at the root); ``densities`` lists
    ``(law, shift)``: a factor ``p_law(y − shift)`` of ``v``'s value ``y``."""

    law: NoiseLaw
    lowers: tuple[tuple[Fraction, Fraction], ...] = ()
    uppers: tuple[tuple[Fraction, Fraction], ...] = ()
    densities: tuple[tuple[NoiseLaw, Fraction], ...] = ()
    children: tuple["Branch", ...] = ()

    def laws(self) -> list[NoiseLaw]:
        """Every law of the subtree (the noises and the densities)."""
        laws = [self.law] + [law for law, _ in self.densities]
        for child in self.children:
            laws += child.laws()
        return laws

    def reach(self) -> Fraction:
        """The largest ``|α|`` and ``|shift|`` of the subtree: how far from 0 it is evaluated."""
        points = [abs(alpha) for alpha, _ in self.lowers + self.uppers]
        points += [abs(shift) for _, shift in self.densities]
        points += [child.reach() for child in self.children]
        return max(points, default=Fraction(0))


@dataclass(frozen=True)
class NestedIntegral:
    """The probability of a tree of compared noises: the message of the root :class:`Branch`,
    whose bounds are constants.  It stands in a term where an
    :class:`~.integral_form.Integral` does."""

    root: Branch

    #: the domain is decided when the messages are computed (an exact zero then)
    is_empty = False

    @property
    def magnitude(self) -> Fraction:
        """How large the logs get, for the working precision: the number of laws times their
        largest ``NoiseLaw.log_size`` at the largest bound or shift (as
        :attr:`~.integral_form.Integral.magnitude`)."""
        return magnitude_of(self.root.laws(), self.root.reach())

    def laws(self) -> list[NoiseLaw]:
        """Every law of the integral."""
        return self.root.laws()


def magnitude_of(laws: list[NoiseLaw], reach: Fraction) -> Fraction:
    """The number of laws times their largest ``NoiseLaw.log_size`` at ``reach``."""
    return len(laws) * max(law.log_size(reach) for law in laws)


@dataclass(frozen=True)
class Leaf:
    """A noise ``v ~ law`` compared with the hubs of a :class:`HubPair` (and constants):
    ``v > α + β₁z₁ + β₂z₂`` for each ``(α, β₁, β₂)`` of ``lowers``, ``<`` for ``uppers``
    (one of ``β₁``, ``β₂`` is 0: a comparison involves two noises); ``densities`` as in
    :class:`Branch`."""

    law: NoiseLaw
    lowers: tuple[tuple[Fraction, Fraction, Fraction], ...] = ()
    uppers: tuple[tuple[Fraction, Fraction, Fraction], ...] = ()
    densities: tuple[tuple[NoiseLaw, Fraction], ...] = ()


@dataclass(frozen=True)
class HubPair:
    """A group whose other noises are compared with two hubs only: the outer hub ``z₁`` and
    the inner hub ``z₂``, each a :class:`Branch` without children (the outer's bounds
    constants, the inner's linear in ``z₁``: the hubs' own comparisons bound the region),
    and the :class:`Leaf` noises.  Its probability is

        ∫ p₁(z₁) ∫_{L₂(z₁)}^{U₂(z₁)} p₂(z₂) Π_i Pr[L_i(z₁, z₂) < v_i < U_i(z₁, z₂)] dz₂ dz₁,

    a product of one-dimensional factors under an integral over the two hubs.  It stands in a
    term where an :class:`~.integral_form.Integral` does."""

    outer: Branch
    inner: Branch
    leaves: tuple[Leaf, ...]

    is_empty = False

    def laws(self) -> list[NoiseLaw]:
        """Every law of the integral."""
        laws = self.outer.laws() + self.inner.laws()
        for leaf in self.leaves:
            laws += [leaf.law] + [law for law, _ in leaf.densities]
        return laws

    @property
    def magnitude(self) -> Fraction:
        """As :attr:`NestedIntegral.magnitude`."""
        points = [self.outer.reach(), self.inner.reach()]
        for leaf in self.leaves:
            points += [abs(bound[0]) for bound in leaf.lowers + leaf.uppers]
            points += [abs(shift) for _, shift in leaf.densities]
        return magnitude_of(self.laws(), max(points))
