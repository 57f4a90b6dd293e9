"""A pair's privacy-loss distribution as a ``dp_accounting`` object, rounded pessimistically, so
that it composes soundly with every mechanism Google's ``dp_accounting`` library knows.

``dp_accounting`` (``pip install "exactdp[accounting]"``) represents a PLD by its losses on a
grid ``k·h`` (``value_discretization_interval``), a probability per grid point and the mass of
``L = +∞``, and reads ``δ(ε) = m_∞ + Σ_k p_k (1 − e^{ε − kh})₊`` from them.  That functional is
non-decreasing in every loss (``(1 − e^{ε−L})₊`` grows with ``L``), in every probability and in
``m_∞`` (each term is ``≥ 0``, and ``m_∞`` enters with coefficient 1 while every finite term is
at most its probability); composition convolves the finite parts and combines
``m_∞ = 1 − Π(1 − m_∞^{(i)})``, which keeps each of these monotonicities.  So a representation
whose losses and masses are each at least the exact ones gives, alone and composed with any
other pessimistic PLD, a δ at least the exact one.
"""

from __future__ import annotations

import math
from fractions import Fraction

from flint import arb

from .discrete_gaussian_law import DiscreteGaussian
from .errors import InputError, MethodUnavailableError
from .exact.divergences.discrete_shift import integer_distance
from .exact.divergences.loss_distribution import LossAtoms, loss_atoms
from .exact.divergences.output_pairs import complete_pairs, location_shift
from .exact.losses.privacy_loss import neighbouring_pair
from .noise import Gaussian
from .precision import COMBINE_GUARD_DIGITS, PART_GUARD_DIGITS, check_dps, working_bits
from .exact.backends.piece_series import flint_context

#: The one line a missing optional dependency gives.
MISSING = ('to_dp_accounting needs the dp-accounting package: '
           'pip install "exactdp[accounting]"')


def to_dp_accounting(mech, d1, d2, value_discretization_interval: float = 1e-4,
                     dps: int = 30, allow_any_pair: bool = False):
    """The privacy-loss distribution of the pair ``(d1, d2)`` as a
    ``dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution``, rounded
    pessimistically: its δ(ε), alone or composed with other pessimistic PLDs, is at least the
    exact one.

    Parameters
    ----------
    mech : mechanism description or program
        Finitely many outputs (⊤/⊥ Sparse Vector variants, noisy max's index, a program's
        discrete return values), or one released number ``q + η`` with Laplace, Gaussian or
        discrete Gaussian ``η``.
    d1, d2 : str or sequence of numbers
        Query answers on the two inputs.
    value_discretization_interval : float
        ``dp_accounting``'s grid step ``h > 0`` of the losses (its default ``1e-4``).
    dps : int
        Digits of the output probabilities the rounding starts from.
    allow_any_pair : bool
        Skip the neighbour check.

    Returns
    -------
    dp_accounting.pld.privacy_loss_distribution.PrivacyLossDistribution
        ``M(d1)`` against ``M(d2)`` as the REMOVE direction (``mu_upper = M(d1)``) and ``M(d2)``
        against ``M(d1)`` as the ADD direction; ``get_delta_for_epsilon`` is the larger.

    Notes
    -----
    Why the rounding is pessimistic (the module docstring has the monotonicity): each atom's
    loss ``ℓ`` is enclosed in a ball from the exact output probabilities and rounded *up* to the
    grid, ``⌈ℓ_upper/h⌉`` (computed in balls); each atom's probability under the upper
    distribution is the *upper* end of its enclosure, rounded up to a double (atoms landing on
    one grid point summed in balls first), and so is the mass of ``L = ∞``.  Raising a
    probability is the pessimistic side because every term of δ is non-negative; the masses
    then sum to slightly more than 1, which ``dp_accounting`` accepts (no term is normalised).
    Outputs with ``p1 = 0`` have no mass and are left out.  A location shift uses
    ``dp_accounting``'s own pessimistic Gaussian or Laplace PLD with ``Δ`` rounded up and the
    scale rounded down to doubles (δ grows with ``Δ/σ`` and ``Δ/b``); a discrete Gaussian shift
    by an integer ``Δ`` uses its discrete Gaussian PLD, with ``σ`` only where it is a double.  What
    ``dp_accounting`` then computes in floating point (convolutions, sums) is its own and not
    certified here.

    Examples
    --------
    >>> import exactdp
    >>> pld = exactdp.to_dp_accounting(exactdp.mechanism("svt1", eps=1), [0, 0], [1, 1])
    >>> exact = exactdp.privacy_profile(exactdp.mechanism("svt1", eps=1), [0, 0], [1, 1], [0])
    >>> bool(pld.get_delta_for_epsilon(0.0) >= exact[0].delta.upper)
    True
    """
    try:
        from dp_accounting.pld import privacy_loss_distribution as dp_pld
    except ImportError:
        raise ImportError(MISSING) from None
    check_dps(dps)
    step = _check_interval(value_discretization_interval)
    d1, d2 = neighbouring_pair(mech, d1, d2, allow_any_pair)
    shift = location_shift(mech, d1, d2)
    if shift is not None:
        if shift.distance == 0:
            return dp_pld.identity(step)
        if isinstance(shift.law, DiscreteGaussian):
            return _discrete_gaussian(dp_pld, shift, step)
        distance, scale = _float_up(shift.distance), _float_down(shift.law.scale)
        if isinstance(shift.law, Gaussian):
            return dp_pld.from_gaussian_mechanism(scale, sensitivity=distance,
                                                  value_discretization_interval=step)
        return dp_pld.from_laplace_mechanism(scale, sensitivity=distance,
                                             value_discretization_interval=step)
    digits = dps + PART_GUARD_DIGITS
    pairs = complete_pairs(mech, d1, d2, digits)
    bits = working_bits(digits, guard=COMBINE_GUARD_DIGITS)
    remove, infinity_remove = _rounded(loss_atoms(pairs, bits), step, bits)
    add, infinity_add = _rounded(loss_atoms([pair.swapped() for pair in pairs], bits), step, bits)
    return dp_pld.PrivacyLossDistribution.create_from_rounded_probability(
        remove, infinity_remove, step, pessimistic_estimate=True,
        rounded_probability_mass_function_add=add, infinity_mass_add=infinity_add,
        symmetric=False)


def _check_interval(value) -> float:
    """The grid step as a positive finite double, else :class:`~exactdp.errors.InputError`."""
    try:
        step = float(value)
    except (TypeError, ValueError):
        step = math.nan
    if isinstance(value, bool) or not (math.isfinite(step) and step > 0):
        raise InputError(f"value_discretization_interval must be a positive number, "
                         f"got {value!r}")
    return step


def _discrete_gaussian(dp_pld, shift, step: float):
    """``dp_accounting``'s pessimistic discrete Gaussian PLD (same parametrisation,
    ``Pr[η = k] ∝ e^{−k²/(2σ²)}``) for an integer shift ``Δ`` and a ``σ`` that is a double;
    :class:`~exactdp.errors.MethodUnavailableError` otherwise (a non-integer shift has disjoint
    supports, every loss infinite; rounding ``σ`` has no proven direction here)."""
    distance, sigma = integer_distance(shift), shift.law.scale
    if distance is None:
        raise MethodUnavailableError(f"a {shift.law} release shifted by {shift.distance}, not "
                                     f"an integer: the two supports are disjoint, every loss is "
                                     f"infinite")
    if Fraction(float(sigma)) != sigma:
        raise MethodUnavailableError(f"{shift.law}: σ = {sigma} is not a double, and "
                                     f"dp_accounting's discrete Gaussian PLD takes σ as one")
    return dp_pld.from_discrete_gaussian_mechanism(float(sigma), sensitivity=distance,
                                                   value_discretization_interval=step)


def _rounded(atoms: LossAtoms, step: float, bits: int) -> tuple[dict[int, float], float]:
    """``{⌈ℓ_upper/h⌉: probability rounded up}`` and the infinite mass rounded up (capped at
    1, its exact value's bound), the probabilities of atoms sharing a grid point summed in
    balls before rounding."""
    grid: dict[int, arb] = {}
    with flint_context(bits):
        for loss, mass in zip(atoms.losses, atoms.masses):
            index = int((loss.upper() / arb(step)).upper().ceil().unique_fmpz())
            grid[index] = grid.get(index, arb(0)) + mass.upper()
        return ({index: _float_up(total.upper()) for index, total in grid.items()},
                min(1.0, _float_up(atoms.infinity_mass.upper())))


def _float_up(value: Fraction | arb) -> float:
    """The smallest double ``≥ value``: an exact rational, or an exact ball end ``≥ 0`` (a
    probability; below the least subnormal double it rounds up to that double)."""
    if isinstance(value, Fraction):
        rounded = float(value)
        return rounded if Fraction(rounded) >= value else math.nextafter(rounded, math.inf)
    if not value > 0:
        return 0.0
    if value < arb(2) ** -1074:
        return math.ulp(0.0)
    rounded = float(value)
    return rounded if arb(rounded) >= value else math.nextafter(rounded, math.inf)


def _float_down(value: Fraction) -> float:
    """The largest double ``≤ value`` (an exact rational)."""
    rounded = float(value)
    return rounded if Fraction(rounded) <= value else math.nextafter(rounded, -math.inf)
