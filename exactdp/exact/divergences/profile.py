"""The privacy profile ``δ(ε)`` of a mechanism on two neighbouring inputs.

``δ(ε) = sup_E Pr[M(d1) ∈ E] − e^ε Pr[M(d2) ∈ E]``, the smallest ``δ`` for which the pair
satisfies ``(ε, δ)``-DP in the direction ``d1 → d2`` (Balle, Barthe & Gaboardi, "Privacy
Amplification by Subsampling: Tight Analyses via Couplings and Divergences", NeurIPS 2018,
Section 2).  The supremum is reached by ``E = {a : p1(a) > e^ε p2(a)}``:

* discrete outputs (⊤/⊥ patterns, return values of a program):
  ``δ(ε) = Σ_a max(0, p1(a) − e^ε p2(a))``, one enumeration of the outputs shared by every ε;
* one released number ``μ_d + η`` with ``η`` Laplace or Gaussian (a location shift by
  ``Δ = |μ1 − μ2|``): the log ratio is monotone in the output, so ``E`` is a half-line
  ``{x > t}`` and ``δ(ε) = S(t − Δ) − e^ε S(t)`` with ``S`` the law's survival function
  (docs/mathematics.md, "Privacy profiles and Rényi divergences").
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

from flint import arb

from ...discrete_gaussian_law import DiscreteGaussian
from ...errors import InputError, MethodUnavailableError
from ...noise import Gaussian, Kind, Laplace
from ...precision import PART_GUARD_DIGITS, check_dps, to_arb
from ...sequences import Runs, to_fraction
from ..losses.privacy_loss import neighbouring_pair
from ...precision import Enclosure
from .coarsened_composition import MAX_GRID_COMPOSITIONS, coarsened_profile
from .composition import (MAX_COMPOSED_ATOMS, check_compositions, composed_atom_count,
                          composed_delta)
from .discrete_shift import discrete_shift_delta
from .loss_distribution import pair_loss_atoms
from .output_pairs import (LocationShift, complete_pairs, known_digits, location_shift,
                           refined)


@dataclass(frozen=True)
class ProfilePoint:
    """``δ(ε)`` at one ``ε``.

    Attributes
    ----------
    eps : Fraction
        ``ε``, exactly as given.
    delta : Enclosure
        ``δ(ε)`` and its certified enclosure (exact ``0`` where it is decided exactly).
    grid_step : Fraction or None
        The grid step ``h`` of a coarsened composition, whose ``delta`` is the bracket
        ``[δ_lower, δ_upper]`` and may be wider than the digits asked
        (``divergences/coarsened_composition.py``); ``None`` for an exact one.
    """

    eps: Fraction
    delta: Enclosure
    grid_step: Fraction | None = None


#: Digits of the output probabilities a pair is first compared with at one ``ε``: where every
#: output's ``p1`` is certified below ``e^ε·p2`` with them, ``δ(ε)`` is exactly 0 whatever the
#: digits asked, and the probabilities are not computed to ``dps + PART_GUARD_DIGITS`` digits
#: (Gaussian k-Min-Max on 3 queries: one pair's probabilities to 3 digits take about a third of
#: the time of 22; where δ is positive the first comparison is the time lost, and a profile of
#: several ``ε``, positive where it is of interest, is not screened).
SCREEN_DIGITS = 3


def check_eps_list(eps_list) -> list[Fraction]:
    """The values of ``ε`` as exact rationals: a non-empty list of finite numbers ``≥ 0``."""
    values = [to_fraction(eps, "eps") for eps in (eps_list or ())]
    if not values:
        raise InputError(f"the list of eps must not be empty, got {eps_list!r}")
    for eps in values:
        if eps < 0:
            raise InputError(f"eps must be at least 0, got eps={float(eps):g}")
    return values


@functools.singledispatch
def profile_by_runs(mech, d1: Runs, d2: Runs,
                    dps: int) -> Callable[[Fraction], Enclosure] | None:
    """``ε ↦ δ(ε)`` of ``d1 → d2`` where the family computes it run by run of equal queries
    instead of output by output (a generic function: ⊤/⊥ Sparse Vector with a cutoff of 1
    beyond the enumeration's limit, ``divergences/threshold_runs.py``, registered by
    ``form/threshold_rules.py``); ``None`` (the default) otherwise."""
    return None


def privacy_profile(mech, d1, d2, eps_list, dps: int = 30, allow_any_pair: bool = False,
                    compositions: int = 1) -> list[ProfilePoint]:
    """The exact privacy profile ``δ(ε) = sup_E P[M(d1) ∈ E] − e^ε P[M(d2) ∈ E]`` at every
    ``ε`` of ``eps_list``, of the pair or of its ``compositions``-fold composition.

    Parameters
    ----------
    mech : mechanism description or program
        A ⊤/⊥ Sparse Vector variant, a program with discrete return values, or a program
        returning one number ``q + η`` with Laplace or Gaussian ``η``.
    d1, d2 : str or sequence of numbers
        Query answers on the two inputs.
    eps_list : sequence of numbers
        Values ``ε ≥ 0`` (finite).
    dps : int
        Significant digits of each ``δ`` (an enclosure of relative width ``10^{−dps}``, or
        absolute width ``10^{−dps}`` where ``δ`` cancels to nearly 0).
    allow_any_pair : bool
        Skip the neighbour check.
    compositions : int
        ``K ≥ 1``: the profile of ``K`` independent runs on ``d1`` against ``K`` on ``d2``
        (finitely many outputs, or a Gaussian release).  Unless the pair is a dominating pair
        of the mechanism (Zhu, Dong & Wang, "Optimal Accounting of Differential Privacy via
        Characteristic Function", AISTATS 2022, arXiv:2106.08567), this is a lower bound on
        the composed mechanism's δ(ε), not its guarantee.

    Returns
    -------
    list of ProfilePoint

    Notes
    -----
    Discrete outputs: ``δ(ε) = Σ_a max(0, p1(a) − e^ε p2(a))`` over every output, each
    probability a ball (for one ``ε`` first to :data:`SCREEN_DIGITS` digits, unless
    ``output_pairs.known_results`` holds them to the digits asked already: where they
    certify every term 0, ``δ(ε)`` is exactly 0 and no more digits are computed); composed
    ``K`` times, the convolution of the privacy-loss distribution's atoms
    (``divergences/composition.py``), exact up to ``composition.MAX_COMPOSED_ATOMS`` composed
    atoms and beyond that a certified bracket from losses coarsened to a grid
    (``divergences/coarsened_composition.py``; its points carry the ``grid_step`` and may prove
    fewer digits than ``dps``).  A Gaussian shift by ``Δ`` with ``σ``: Balle & Wang,
    "Improving the Gaussian Mechanism for Differential Privacy: Analytical Calibration and
    Optimal Denoising", ICML 2018, Theorem 8,
    ``δ(ε) = Φ(Δ/(2σ) − εσ/Δ) − e^ε Φ(−Δ/(2σ) − εσ/Δ)``, and with ``√K·Δ`` for ``Δ`` composed
    ``K`` times.
    A Laplace shift by ``Δ`` with scale ``b``: ``δ(ε) = 1 − e^{(ε − Δ/b)/2}`` for
    ``ε < Δ/b``, exactly 0 beyond (docs/mathematics.md).

    Examples
    --------
    >>> import exactdp
    >>> m = exactdp.mechanism("svt1", eps=1)
    >>> [p.delta.value == 0 for p in exactdp.privacy_profile(m, [0, 0], [1, 1], [0, 2])]
    [False, True]
    """
    check_dps(dps)
    values = check_eps_list(eps_list)
    compositions = check_compositions(compositions)
    d1, d2 = neighbouring_pair(mech, d1, d2, allow_any_pair)
    shift = location_shift(mech, d1, d2)
    if shift is not None:
        if compositions > 1 and not isinstance(shift.law, Gaussian):
            raise MethodUnavailableError(
                f"{mech.name} releases a number with {shift.law} noise: its composition is "
                f"computed for finitely many outputs and Gaussian releases only")
        return [ProfilePoint(eps, _shift_delta(shift, eps, dps, compositions))
                for eps in values]
    if compositions > 1:
        return _composed_profile(mech, d1, d2, values, dps, compositions)
    by_runs = profile_by_runs(mech, d1, d2, dps)
    if by_runs is not None:
        return [ProfilePoint(eps, by_runs(eps)) for eps in values]
    pairs = _output_pairs(mech, d1, d2, dps, None if len(values) > 1 else
                          lambda pairs: _exactly_zero(pairs, values[0]))
    return [ProfilePoint(eps, _discrete_delta(pairs, eps, dps, mech.name)) for eps in values]


def _composed_profile(mech, d1, d2, values: list[Fraction], dps: int,
                      compositions: int) -> list[ProfilePoint]:
    """δ(ε) of the ``K``-fold composition of a pair with finitely many outputs: exact
    (``composition.composed_delta``) when it has at most ``MAX_COMPOSED_ATOMS`` types, else
    bracketed on a grid (``coarsened_composition.coarsened_profile``) up to
    ``MAX_GRID_COMPOSITIONS`` runs, else refused with its size before composing; the output
    probabilities carry ``log10 K`` more digits, which the ``K``-fold products and loss sums
    use up."""
    atoms = pair_loss_atoms(mech, d1, d2, dps + PART_GUARD_DIGITS + len(str(compositions)))
    count = composed_atom_count(len(atoms.losses), compositions)
    if count > MAX_COMPOSED_ATOMS:
        if compositions > MAX_GRID_COMPOSITIONS:
            digits = str(count)   # a float would overflow beyond 10^308
            size = (f"{count:,}" if count < 10**15
                    else f"{digits[0]}.{digits[1:4]}e+{len(digits) - 1}")
            raise InputError(f"{mech.name}: the {compositions}-fold composition of "
                             f"{len(atoms.losses)} distinct losses has {size} atoms, more than "
                             f"the {MAX_COMPOSED_ATOMS:,} summed exactly, and more than "
                             f"{MAX_GRID_COMPOSITIONS:,} runs are not bracketed on a grid; "
                             f"compose fewer times")
        return [ProfilePoint(eps, bracket.delta, bracket.grid_step) for eps, bracket in
                zip(values, coarsened_profile(atoms, values, compositions, dps))]
    return [ProfilePoint(eps, refined(lambda eps=eps: composed_delta(atoms, eps, compositions),
                                      dps, f"{mech.name}: δ(ε = {eps}) of {compositions} "
                                      f"compositions", absolute=True))
            for eps in values]


def profile_both_ways(mech, d1, d2, eps, dps: int = 30,
                      allow_any_pair: bool = False) -> tuple[ProfilePoint, ProfilePoint]:
    """``δ(ε)`` in both directions, ``d1 → d2`` and ``d2 → d1``, from one computation of the two
    output distributions (:func:`privacy_profile` computes them once per direction).

    A location shift of a symmetric law (Laplace, Gaussian) depends on ``|μ1 − μ2|`` alone, so
    both directions agree; for discrete outputs the pairs ``(p1(a), p2(a))`` are swapped.

    Examples
    --------
    >>> import exactdp
    >>> m = exactdp.mechanism("svt1")
    >>> forward, backward = profile_both_ways(m, [0, 0], [1, 1], 0)
    >>> [forward, backward] == [privacy_profile(m, [0, 0], [1, 1], [0])[0],
    ...                         privacy_profile(m, [1, 1], [0, 0], [0])[0]]
    True
    """
    check_dps(dps)
    eps, = check_eps_list([eps])
    d1, d2 = neighbouring_pair(mech, d1, d2, allow_any_pair)
    shift = location_shift(mech, d1, d2)
    if shift is not None:
        point = ProfilePoint(eps, _shift_delta(shift, eps, dps))
        return point, point
    by_runs = [profile_by_runs(mech, one, two, dps) for one, two in ((d1, d2), (d2, d1))]
    if by_runs[0] is not None:
        return tuple(ProfilePoint(eps, delta(eps)) for delta in by_runs)
    pairs = _output_pairs(mech, d1, d2, dps, lambda pairs: _exactly_zero(pairs, eps) and
                          _exactly_zero([pair.swapped() for pair in pairs], eps))
    forward, backward = (_discrete_delta(side, eps, dps, mech.name)
                         for side in (pairs, [pair.swapped() for pair in pairs]))
    return ProfilePoint(eps, forward), ProfilePoint(eps, backward)


def _output_pairs(mech, d1: Runs, d2: Runs, dps: int,
                  settled: Callable[[list], bool] | None) -> list:
    """The :class:`~.output_pairs.OutputPair` of every class of outputs to ``dps +
    PART_GUARD_DIGITS`` digits, or with ``settled`` first to :data:`SCREEN_DIGITS` digits, kept
    where ``settled(pairs)`` (the one ``δ`` asked is exactly 0 with them,
    :func:`_exactly_zero`) — unless the caller holds the forms' probabilities to those digits
    already (``output_pairs.known_results``, ``exactdp verify``): the screen would read the
    very results, and its enumeration of the outputs would be done twice."""
    digits = dps + PART_GUARD_DIGITS
    if settled is not None and SCREEN_DIGITS < digits and known_digits() < digits:
        pairs = complete_pairs(mech, d1, d2, SCREEN_DIGITS)
        if settled(pairs):
            return pairs
    return complete_pairs(mech, d1, d2, digits)


def _exactly_zero(pairs: list, eps: Fraction) -> bool:
    """Whether ``δ(ε) = Σ max(0, p1 − e^ε p2)`` is exactly 0: every output has ``p1 = 0`` or
    ``p1 < e^ε p2`` certified (balls of any width)."""
    factor = to_arb(eps).exp()
    return all(p1 == 0 or p1 < factor * p2 for p1, p2, _, _ in pairs)


def _discrete_delta(pairs: list, eps: Fraction, dps: int, name: str) -> Enclosure:
    """``Σ max(0, p1 − e^ε p2)`` over the outputs, each class of exchangeable outputs
    (``output_pairs.OutputPair``) once times its count; exactly 0 when every output has
    ``p1 = 0`` or ``p2`` certified above ``e^{−ε} p1``."""
    def compute() -> arb:
        factor = to_arb(eps).exp()
        total = arb(0)
        for p1, p2, count, _ in pairs:
            if p1 != 0:
                total += count * (p1 - factor * p2).max(arb(0))
        return total

    return refined(compute, dps, f"{name}: δ(ε = {eps})", absolute=True)


def _shift_delta(shift: LocationShift, eps: Fraction, dps: int,
                 compositions: int = 1) -> Enclosure:
    """``S(t − Δ) − e^ε S(t)`` with ``{x > t}`` the set where the density of ``Δ + η`` exceeds
    ``e^ε`` times that of ``η``: ``t = (εb + Δ)/2`` for Laplace (none when ``ε ≥ Δ/b``: δ is
    exactly 0), ``t = Δ/2 + εσ²/Δ`` for Gaussian, there with ``Δ`` replaced by ``√K·Δ`` for
    ``K`` compositions (Gaussian only); the same sum over the integers for a discrete Gaussian
    (``discrete_shift.py``)."""
    law, distance = shift.law, shift.distance
    if isinstance(law, DiscreteGaussian):
        return discrete_shift_delta(shift, eps, dps)
    if distance == 0 or (isinstance(law, Laplace) and eps >= distance / law.scale):
        return Enclosure.of_ball(arb(0))

    def survival(x: arb, side: int) -> arb:
        return law.ball_log(Kind.SF, side).value(x)

    def compute() -> arb:
        if isinstance(law, Laplace):
            cut = (eps * law.scale + distance) / 2
            low, high = ((to_arb(x), law.side(x)) for x in (cut - distance, cut))
        else:  # one side: no kink
            shifted = to_arb(distance) * arb(compositions).sqrt()
            cut = shifted / 2 + to_arb(eps * law.scale ** 2) / shifted
            low, high = (cut - shifted, 1), (cut, 1)
        return survival(*low) - to_arb(eps).exp() * survival(*high)

    times = "" if compositions == 1 else f", {compositions} compositions"
    return refined(compute, dps, f"{law} shift by {distance}{times}: δ(ε = {eps})")
