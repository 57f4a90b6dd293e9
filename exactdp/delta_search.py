"""The search for (ε, δ) violations: ``exactdp search MECH --delta D`` (docs/search.md).

A mechanism is (ε, δ)-DP when ``δ(ε) = sup_E Pr[M(D1) ∈ E] − e^ε Pr[M(D2) ∈ E] ≤ δ`` for every
ordered pair of neighbours (Dwork & Roth, "The Algorithmic Foundations of Differential Privacy",
2014, Def. 2.4).  The candidate pairs are those of the loss search (:func:`exactdp.search.explore`:
StatDP's patterns, random pairs, mutations, one seeded generator); each pair is scored by its
certified ``δ(ε)`` (:func:`exactdp.exact.divergences.profile.profile_both_ways`), the larger of the
two
directions, and the pair with the largest ``δ(ε)`` is reported with its enclosure.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from fractions import Fraction

from .errors import InputError
from .precision import Enclosure
from .exact.divergences.profile import profile_both_ways
from .formatting import echoed_number, printed_number
from .search import explore, input_options, input_space, param_options
from .sequences import Runs, format_number, to_fraction


@dataclass(frozen=True)
class DeltaWitness:
    """A pair of inputs and the certified ``δ(ε)`` of the direction ``d1 → d2`` (the larger of the
    two directions)."""

    d1: Runs
    d2: Runs
    delta: Enclosure


def delta_witness(mech, d1: Runs, d2: Runs, eps: Fraction, dps: int) -> DeltaWitness:
    """The pair scored by its larger ``δ(ε)``, oriented so that ``d1 → d2`` is that direction."""
    forward, backward = profile_both_ways(mech, d1, d2, eps, dps, allow_any_pair=True)
    if backward.delta.value > forward.delta.value:
        return DeltaWitness(d2, d1, backward.delta)
    return DeltaWitness(d1, d2, forward.delta)


def _score(witness: DeltaWitness):
    return witness.delta.value


@dataclass(frozen=True)
class DeltaSearchResult:
    """The largest ``δ(ε)`` found.

    Attributes
    ----------
    mechanism : object
        The mechanism searched.
    witness : DeltaWitness
        The best pair, oriented, with its enclosure of ``δ(ε)``.
    eps, claimed_delta : Fraction
        ``ε`` and the ``δ`` the mechanism is checked against.
    evaluations, stopped_by, seconds, first_violation
        As in :class:`exactdp.search.SearchResult` (``stopped_by`` is ``"δ = 1"`` when a pair
        reaches the largest possible ``δ``).
    """

    mechanism: object
    witness: DeltaWitness
    eps: Fraction
    claimed_delta: Fraction
    evaluations: int
    stopped_by: str
    seconds: float
    first_violation: int | None

    @property
    def verdict(self) -> str:
        """``"violation"`` when the enclosure's lower end exceeds the claimed ``δ``, ``"within"``
        when its upper end does not, ``"undecided"`` otherwise."""
        return self.witness.delta.compared_with(self.claimed_delta)

    def record(self, dps: int = 15, text: bool = False) -> dict[str, str]:
        """The record of ``exactdp search --delta`` (``text``: the table's spelling)."""
        mech, witness = self.mechanism, self.witness
        d1, d2 = str(witness.d1), str(witness.d2)
        delta = witness.delta
        printed = printed_number(delta.value, dps, enclosure=(delta.lower, delta.upper))
        return {
            "mechanism": str(mech), "d1": d1, "d2": d2,
            "eps": echoed_number(self.eps, dps, text),
            "claimed_delta": echoed_number(self.claimed_delta, dps, text),
            **printed.fields("delta", text),
            "verdict": self.verdict, "evaluations": self.evaluations,
            "stopped_by": self.stopped_by, "first_violation": self.first_violation,
            "recheck": f"exactdp profile {mech.name} {param_options(mech)} {input_options(d1, d2)} "
                       f"--eps {shlex.quote(format_number(self.eps))}",
        }


def check_delta_claim(mech, delta, eps) -> tuple[Fraction, Fraction]:
    """``(δ, ε)`` as exact rationals: ``δ`` in ``[0, 1)``, ``ε ≥ 0`` (default: the mechanism's
    claimed ε), else a one-line :class:`~exactdp.errors.InputError`."""
    delta = to_fraction(delta, "delta")
    if not 0 <= delta < 1:
        raise InputError(f"delta must be in [0, 1), got delta={format_number(delta)}")
    if eps is None:
        eps = getattr(mech, "claimed_eps", None)
        if eps is None:
            raise InputError(f"{mech.name} claims no ε: give the ε of the (ε, δ) claim (--eps)")
    eps = to_fraction(eps, "eps")
    if eps < 0:
        raise InputError(f"eps must be at least 0, got eps={format_number(eps)}")
    return delta, eps


def search_delta(mech, delta, eps=None, max_length: int = 5, seed: int = 0,
                 budget: float | None = None, max_evaluations: int = 200, dps: int = 15,
                 stop_at_violation: bool = False,
                 progress: bool | None = False) -> DeltaSearchResult:
    """Search neighbouring inputs for the largest certified ``δ(ε)`` of ``mech``.

    Parameters
    ----------
    mech
        A mechanism whose outputs :func:`~exactdp.exact.divergences.profile.privacy_profile`
        supports (⊤/⊥
        Sparse Vector variants, noisy max's index, programs with discrete return values, one
        released number with Laplace or Gaussian noise); others are refused in one line.
    delta : number
        The claimed ``δ``, in ``[0, 1)``.
    eps : number, optional
        The claimed ``ε ≥ 0`` (default: the mechanism's claimed ε).
    dps : int
        Significant digits of each ``δ(ε)`` (absolute width ``10^{−dps}`` near 0).

    The other parameters are :func:`exactdp.search.search`'s.

    Returns
    -------
    DeltaSearchResult

    Examples
    --------
    >>> import exactdp
    >>> result = search_delta(exactdp.mechanism("svt1"), 0, max_length=2, max_evaluations=5)
    >>> result.verdict, str(result.witness.delta.value)
    ('within', '0.0')
    """
    input_space(mech)  # a mechanism description, else one line
    delta, eps = check_delta_claim(mech, delta, eps)
    best, explored = explore(
        mech, lambda d1, d2: delta_witness(mech, d1, d2, eps, dps), _score,
        lambda witness: witness.delta.compared_with(delta) == "violation",
        max_length=max_length, seed=seed, budget=budget, max_evaluations=max_evaluations,
        stop_at_violation=stop_at_violation, progress=progress, ceiling=("δ = 1", 1),
        noun="δ(ε)")
    return DeltaSearchResult(mech, best, eps, delta, explored.evaluations, explored.stopped_by,
                             explored.seconds, explored.first_violation)
