"""The privacy-loss distribution (PLD) of a pair with finitely many outputs: the law of
``L = ln(p1(a)/p2(a))`` for ``a ~ M(d1)``, as atoms (a loss and its ``d1``-mass) and the mass of
``L = +∞`` (the outputs only ``d1`` can produce).

Every functional of the pair that depends on the outputs only through their losses reads the
PLD: ``δ(ε) = Pr[L = ∞] + E[(1 − e^{ε − L})₊ ; L < ∞]`` (Sommer, Meiser & Mohammadi, "Privacy
Loss Classes: The Central Limit Theorem in Differential Privacy", PoPETs 2019(2)), and the
``K``-fold composition is the PLD of the ``K``-fold product pair, the ``K``-fold convolution of
the atoms (``divergences/composition.py``).

Outputs whose losses are equal form one atom.  The losses are logs of ratios of balls, so
equality cannot be proven; outputs are grouped when their loss balls overlap (sorted by centre,
each ball joined to the group of the previous one when it meets the group's union), and the
atom carries the union of their balls.  This is sound whichever outputs are grouped: a
functional ``Σ_a p1(a)·f(L(a))`` with ``f`` evaluated in balls on an enclosure of every
``L(a)`` of the atom contains the exact sum over its outputs (docs/mathematics.md §15).
Outputs with ``p1 = 0`` (an exact zero) have no mass under ``d1`` and are left out.
"""

from __future__ import annotations

from dataclasses import dataclass

from flint import arb

from ...errors import MethodUnavailableError, PrecisionError
from ...formatting import printed_number
from ...precision import (COMBINE_GUARD_DIGITS, PART_GUARD_DIGITS, Enclosure, check_dps,
                          working_bits)
from ..backends.piece_series import flint_context
from ..losses.privacy_loss import neighbouring_pair
from .output_pairs import complete_pairs, location_shift, refined
from .renyi import log_ball


@dataclass(frozen=True)
class LossAtoms:
    """The PLD of a pair as balls.

    Attributes
    ----------
    losses : list of arb
        Each atom's loss ``ln(p1/p2)``, a ball enclosing the loss of every output grouped in
        it, in increasing order of centre.
    masses : list of arb
        Each atom's mass under ``d1``, the sum of ``p1`` over its outputs.
    infinity_mass : arb
        ``Σ p1(a)`` over the outputs with ``p2(a) = 0`` exactly (an exact ``0`` if none).
    """

    losses: list
    masses: list
    infinity_mass: arb


def loss_atoms(pairs: list, bits: int) -> LossAtoms:
    """The atoms of the PLD of ``pairs = [(p1(a), p2(a))]`` (every output's probability on
    ``d1`` and ``d2`` as balls, :func:`~.output_pairs.complete_pairs`), the logs taken to
    ``bits`` bits after the point; outputs grouped where their loss balls overlap (module
    docstring).

    Examples
    --------
    >>> atoms = loss_atoms([(arb(0.5), arb(0.25)), (arb(0.25), arb(0.125)),
    ...                     (arb(0.25), arb(0)), (arb(0), arb(0.625))], 64)
    >>> [round(float(loss.mid()), 5) for loss in atoms.losses]   # ln 2, both outputs
    [0.69315]
    >>> atoms.masses, atoms.infinity_mass
    ([0.750000000000000], 0.250000000000000)
    """
    infinity, finite = arb(0), []
    with flint_context(bits):
        for p1, p2 in pairs:
            if p1 == 0:
                continue
            if p2 == 0:
                infinity += p1
                continue
            if p1.contains(0) or p2.contains(0):
                raise PrecisionError(f"an output's probabilities {p1.str(5)}, {p2.str(5)} are "
                                     f"not certified positive: no finite enclosure of its loss")
            finite.append((log_ball(p1, bits) - log_ball(p2, bits), p1))
        losses, masses = [], []
        for loss, mass in sorted(finite, key=lambda atom: atom[0].mid()):
            if losses and losses[-1].overlaps(loss):
                losses[-1], masses[-1] = losses[-1].union(loss), masses[-1] + mass
            else:
                losses.append(loss)
                masses.append(mass)
    return LossAtoms(losses, masses, infinity)


@dataclass(frozen=True)
class PrivacyLossDistribution:
    """The certified PLD of one ordered pair ``(d1, d2)``.

    Attributes
    ----------
    losses : list of Enclosure
        Each atom's loss ``ln(p1/p2)`` in nats, increasing (absolute width ``≤ 10^{−dps}``).
    probabilities : list of Enclosure
        Each atom's probability under ``d1`` (relative width ``≤ 10^{−dps}``).
    infinity_mass : Enclosure
        The ``d1``-mass of the outputs ``d2`` cannot produce (exact ``0`` if none).
    """

    losses: list
    probabilities: list
    infinity_mass: Enclosure

    def fields(self, dps: int, text: bool = False) -> dict:
        """``losses``, ``probabilities`` (lists) and ``infinity_mass``, each number to the
        digits its enclosure supports, with the enclosures ``losses_lower``, ``losses_upper``,
        ``probabilities_lower``, … (JSON: lists of the ends rounded outward), or in a table
        one ``…_enclosure`` entry per name, ``[lower, upper]`` for each atom."""
        record = {}
        for name, values in (("losses", self.losses), ("probabilities", self.probabilities),
                             ("infinity_mass", [self.infinity_mass])):
            printed = [printed_number(value.value, dps, enclosure=(value.lower, value.upper))
                       for value in values]
            if text:
                record[name] = ", ".join(number.text for number in printed)
                record[f"{name}_enclosure"] = ", ".join(f"[{number.lower}, {number.upper}]"
                                                        for number in printed)
            elif name == "infinity_mass":
                record.update(printed[0].fields(name, text=False))
            else:
                record[name] = [number.value for number in printed]
                record[f"{name}_lower"] = [number.lower for number in printed]
                record[f"{name}_upper"] = [number.upper for number in printed]
        return record


def privacy_loss_distribution(mech, d1, d2, dps: int = 30,
                              allow_any_pair: bool = False) -> PrivacyLossDistribution:
    """The privacy-loss distribution of ``M(d1)`` against ``M(d2)`` for a mechanism with
    finitely many outputs: the law of ``ln(p1(a)/p2(a))`` for ``a ~ M(d1)``.

    Parameters
    ----------
    mech : mechanism description or program
        A ⊤/⊥ Sparse Vector variant, noisy max releasing its index, or a program with discrete
        return values.
    d1, d2 : str or sequence of numbers
        Query answers on the two inputs.
    dps : int
        Digits of each number: losses to absolute width ``10^{−dps}`` (a loss may be exactly
        0), probabilities to relative width ``10^{−dps}``.
    allow_any_pair : bool
        Skip the neighbour check.

    Returns
    -------
    PrivacyLossDistribution

    Notes
    -----
    Outputs with overlapping loss balls are one atom (module docstring); an output with
    ``p2 = 0 < p1`` adds ``p1`` to ``infinity_mass``.  A released number (a continuous PLD) is
    refused.

    Examples
    --------
    >>> import exactdp
    >>> pld = exactdp.privacy_loss_distribution(exactdp.mechanism("svt1", eps=1), [0], [1], 12)
    >>> [exactdp.format_value(loss.value, 6) for loss in pld.losses]
    ['-0.15167', '0.178859']
    """
    check_dps(dps)
    d1, d2 = neighbouring_pair(mech, d1, d2, allow_any_pair)
    atoms = pair_loss_atoms(mech, d1, d2, dps + PART_GUARD_DIGITS)
    name = mech.name
    return PrivacyLossDistribution(
        [refined(lambda ball=loss: ball, dps, f"{name}: a privacy loss", absolute=True)
         for loss in atoms.losses],
        [refined(lambda ball=mass: ball, dps, f"{name}: an atom's probability")
         for mass in atoms.masses],
        refined(lambda: atoms.infinity_mass, dps, f"{name}: the mass of the infinite loss"))


def pair_loss_atoms(mech, d1, d2, dps: int) -> LossAtoms:
    """:func:`loss_atoms` of the (checked) pair's output distributions computed to ``dps``
    digits; a released number is refused (its PLD has infinitely many losses)."""
    shift = location_shift(mech, d1, d2)
    if shift is not None:
        raise MethodUnavailableError(f"{mech.name} releases a number with {shift.law} noise: its "
                                     f"privacy-loss distribution has infinitely many losses, "
                                     f"computed here for finitely many outputs only")
    pairs = complete_pairs(mech, d1, d2, dps)
    return loss_atoms(pairs, working_bits(dps, guard=COMBINE_GUARD_DIGITS))

