"""``δ(ε)`` of the ``K``-fold composition of a pair: ``M`` run ``K`` times independently on
``d1`` against ``K`` times on ``d2``.

Discrete outputs: the privacy loss of ``K`` independent runs is the sum of their losses, so
the composed privacy-loss distribution is the ``K``-fold convolution of the pair's
(``divergences/loss_distribution.py``).  With atoms ``(ℓ_j, P_j)``, ``j = 1…m``, and
``i = Pr[L = ∞]``, the composed atoms are the types ``n = (n_1, …, n_m)``, ``Σ n_j = K``:

    δ_K(ε) = 1 − (1 − i)^K + Σ_n  K!/(n_1!⋯n_m!) · Π_j P_j^{n_j} · (1 − e^{ε − Σ_j n_j ℓ_j})₊,

summed in balls with ``Σ_j n_j ℓ_j`` an enclosure of every composed output's loss (an atom's ball
encloses the losses of all outputs grouped in it, so the sum contains the exact δ whichever
outputs were grouped; docs/mathematics.md §15).  Their number is ``C(K + m − 1, m − 1)``;
compositions with more than :data:`MAX_COMPOSED_ATOMS` are bracketed on a grid instead
(``coarsened_composition.py``), decided before any work.  A subtree of
the enumeration whose largest reachable loss is at most ``ε`` contributes exactly 0 and is skipped
(the atoms are taken in decreasing order of loss); one generator per atom holds the enumeration
(memory ``O(m)``), and each binomial weight comes from the previous one by a ratio in balls.

A Gaussian location shift ``Δ`` with ``σ``: the ``K``-fold product of ``N(Δ, σ²)`` against
``N(0, σ²)`` is a Gaussian shift by ``√K·Δ`` (the log-likelihood ratio of ``K`` independent
shifts is that of their sum), whose δ is Balle & Wang's formula (``profile.py``).
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb

from ...mechanisms.catalogue import to_count
from ...precision import to_arb
from .loss_distribution import LossAtoms

#: Most composed atoms enumerated: ``benchmarks/compose_speed.py`` measures 9 to 14 µs per atom
#: (11 distinct losses composed 12 times, 646,646 atoms, at ε = 0, where the fewest branches
#: are skipped, on a shared 2-core machine), so this bound is 10 to 15 s per ε; the next size up
#: of that pair, K = 13, has 1.1·10^6 atoms and is bracketed on a grid instead.
MAX_COMPOSED_ATOMS = 10**6


def check_compositions(compositions) -> int:
    """``K`` as a positive integer (``1``: the pair itself; ``"3"`` as typed), else
    :class:`~exactdp.errors.InputError`."""
    return to_count("compose", compositions)


def composed_atom_count(atoms: int, compositions: int) -> int:
    """``C(K + m − 1, m − 1)``: the types of ``K`` draws from ``m`` atoms (``1`` for none)."""
    return math.comb(compositions + atoms - 1, atoms - 1) if atoms else 1


def composed_infinite_mass(atoms: LossAtoms, compositions: int) -> arb:
    """``1 − (1 − m)^K``: the mass of an infinite loss after ``K`` runs, some run's loss being
    infinite (``m = atoms.infinity_mass``), a ball at flint's current precision."""
    return 1 - (1 - atoms.infinity_mass) ** compositions


def composed_delta(atoms: LossAtoms, eps: Fraction, compositions: int) -> arb:
    """``δ_K(ε)`` of the ``K``-fold composition of ``atoms``, a ball at flint's current precision
    (module docstring; the caller checks the size with :func:`composed_atom_count`)."""
    infinity = composed_infinite_mass(atoms, compositions)
    order = sorted(range(len(atoms.losses)), key=lambda j: -atoms.losses[j].mid())
    losses = [atoms.losses[j] for j in order]  # decreasing
    masses = [atoms.masses[j] for j in order]
    threshold = to_arb(eps)
    total, last = arb(0), len(order) - 1

    def children(j: int, left: int, weight: arb, loss: arb):
        """The types that give ``draws`` of the ``left`` draws to atom ``j``: (next atom,
        draws left, weight × C(left, draws)·P_j^draws, loss + draws·ℓ_j), the binomial
        weights by their ratio ``(left − draws)/(draws + 1)`` in balls (no integer of
        ``K`` digits)."""
        term = weight
        for draws in range(left + 1):
            yield j + 1, left - draws, term, loss + draws * losses[j]
            term = term * masses[j] * (left - draws) / (draws + 1)

    # depth first, one generator per atom: memory O(m), however many types
    stack = [iter([(0, compositions, arb(1), arb(0))])] if order else []
    while stack:
        node = next(stack[-1], None)
        if node is None:
            stack.pop()
            continue
        j, left, weight, loss = node
        largest = loss + left * losses[j]  # every draw left on the largest remaining loss
        if not largest.upper() > threshold.lower():
            continue  # every loss reachable from here is ≤ ε: (1 − e^{ε−L})₊ = 0
        if j == last:
            total += weight * masses[j] ** left * _hinge(threshold, largest)
        else:
            stack.append(children(j, left, weight, loss))
    return infinity + total


def _hinge(eps: arb, loss: arb) -> arb:
    """``(1 − e^{ε − L})₊`` on a ball of losses: ``[0, …]`` where the ball meets ``ε``."""
    return (1 - (eps - loss).exp()).max(arb(0))

