"""Privacy loss between neighbouring inputs: ``privacy_loss`` and ``max_privacy_loss``.

The privacy loss of output ``a`` is ``ln(Pr[M(D1) = a] / Pr[M(D2) = a])`` (a ratio of densities
for outputs with released numbers); a mechanism is ε-DP iff its absolute value never exceeds ε on
any neighbouring pair (Dwork & Roth, Def. 2.4).
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath
from mpmath import mpf

from ..errors import InputError, PrecisionError
from ..mechanisms.description import ThresholdMechanism
from ..sequences import Runs, as_queries
from .integrand import check_output_shape
from ..precision import CertifiedProbability, Probability
from .probability import probability

#: ``max_privacy_loss`` enumerates every output, so it is limited to this many queries.
MAX_ENUMERATED_QUERIES = 12


@dataclass(frozen=True)
class PrivacyLoss:
    """Both probabilities of one output and their log ratio.

    Attributes
    ----------
    p1, p2 : Probability
        ``Pr[M(D1) = a]`` and ``Pr[M(D2) = a]``.
    log_ratio : mpf
        ``ln(p1/p2)``; ``+inf`` when only ``p2`` is an exact zero, ``-inf`` when only ``p1`` is.
    error : mpf
        Estimated absolute error of ``log_ratio`` (the sum of both relative errors).
    """

    p1: Probability
    p2: Probability
    log_ratio: mpf
    error: mpf


@dataclass(frozen=True)
class CertifiedPrivacyLoss(PrivacyLoss):
    """A :class:`PrivacyLoss` of two :class:`~exactdp.precision.CertifiedProbability` values:
    the exact ``ln(p1/p2)`` lies in ``[log_ratio_lower, log_ratio_upper]`` (exact differences
    of the ends of the two log enclosures); both ends are ``±inf`` when one side is an exact
    zero (a structural zero certifies an infinite loss)."""

    log_ratio_lower: mpf = mpf(0)
    log_ratio_upper: mpf = mpf(0)


def _certified_loss(p1: CertifiedProbability, p2: CertifiedProbability) -> CertifiedPrivacyLoss:
    if p1.is_zero or p2.is_zero:
        infinity = mpf("-inf") if p1.is_zero else mpf("inf")
        return CertifiedPrivacyLoss(p1, p2, infinity, mpf(0), infinity, infinity)
    lower = mpmath.fsub(p1.log_lower, p2.log_upper, exact=True)
    upper = mpmath.fsub(p1.log_upper, p2.log_lower, exact=True)
    with mpmath.workdps(max(p1.dps, p2.dps) + 20):
        middle = (lower + upper) / 2
        return CertifiedPrivacyLoss(p1, p2, middle, max(upper - middle, middle - lower),
                                    lower, upper)


def neighbouring_pair(mech, d1, d2, allow_any_pair: bool) -> tuple[Runs, Runs]:
    """``d1``, ``d2`` as :class:`Runs`, after the mechanism's neighbour check (only the equal
    length is checked with ``allow_any_pair``)."""
    d1, d2 = as_queries(d1), as_queries(d2)
    mech.check_neighbours(d1, d2, allow_any_pair)
    return d1, d2


def loss_from_probabilities(p1: Probability, p2: Probability) -> PrivacyLoss:
    if p1.is_zero and p2.is_zero:
        raise InputError("the output has probability exactly 0 under both inputs: no ratio")
    if isinstance(p1, CertifiedProbability) and isinstance(p2, CertifiedProbability):
        return _certified_loss(p1, p2)
    if p2.is_zero:
        return PrivacyLoss(p1, p2, mpf("inf"), mpf(0))
    if p1.is_zero:
        return PrivacyLoss(p1, p2, mpf("-inf"), mpf(0))
    with mpmath.workdps(max(p1.dps, p2.dps) + 20):
        return PrivacyLoss(p1, p2, p1.log_value - p2.log_value,
                           p1.relative_error + p2.relative_error)


def privacy_loss(mech, d1, d2, output, dps: int = 30, method: str = "auto",
                 allow_any_pair: bool = False) -> PrivacyLoss:
    """The exact privacy loss ``ln(Pr[M(d1) = output] / Pr[M(d2) = output])``.

    Parameters
    ----------
    mech : mechanism description
    d1, d2 : str or sequence of numbers
        Query answers on the two inputs (``x*k`` repeats allowed in strings).
    output : str or sequence
        The output (see :func:`exactdp.probability`).
    dps, method
        As for :func:`exactdp.probability`; ``method="certified"`` returns a
        :class:`CertifiedPrivacyLoss` (an enclosure of the log ratio).
    allow_any_pair : bool
        Skip the check that ``d1`` and ``d2`` are neighbours (every query moves by at most the
        sensitivity).

    Examples
    --------
    >>> import exactdp
    >>> m = exactdp.mechanism("gptt", eps1=0.5, eps2="inf")
    >>> exactdp.privacy_loss(m, [0, 1], [1, 0], "F,T").log_ratio   # Chen & M., Thm 4.7
    mpf('+inf')
    """
    d1, d2 = neighbouring_pair(mech, d1, d2, allow_any_pair)
    return loss_from_probabilities(probability(mech, d1, output, dps, method),
                                   probability(mech, d2, output, dps, method))


@dataclass(frozen=True)
class MaxPrivacyLoss:
    """The largest privacy loss over every output, in either direction.

    Attributes
    ----------
    output : Runs
        The maximising output.
    loss : PrivacyLoss
        Its loss (``log_ratio`` keeps its sign: negative when ``d2`` is the likelier side).
    outputs : int
        How many outputs were enumerated.
    total1, total2 : mpf
        Σ over outputs of the probabilities under ``d1`` and ``d2`` (both 1 up to rounding).
    """

    output: Runs
    loss: PrivacyLoss
    outputs: int
    total1: mpf
    total2: mpf


def possible_outputs(mech: ThresholdMechanism, n: int):
    """Every output ``mech`` can produce on ``n`` queries (⊤/⊥ mechanisms only), as lists."""
    if not isinstance(mech, ThresholdMechanism):
        raise InputError(f"{mech.name}: only Sparse Vector variants with ⊤/⊥ outputs can be "
                         f"enumerated")
    if mech.releases_numbers:
        raise InputError(f"{mech.name} releases numbers: its outputs cannot be enumerated")

    def extend(prefix, tops):
        if len(prefix) == n or (mech.cutoff is not None and tops == mech.cutoff):
            yield prefix
            return
        yield from extend(prefix + [False], tops)
        yield from extend(prefix + [True], tops + 1)

    yield from extend([], 0)


def max_privacy_loss(mech, d1, d2, dps: int = 30,
                     allow_any_pair: bool = False) -> MaxPrivacyLoss:
    """The exact maximum of ``|ln(Pr[M(d1) = a] / Pr[M(d2) = a])|`` over every output ``a``.

    Every output is enumerated (up to :data:`MAX_ENUMERATED_QUERIES` queries) with the closed
    form; the maximiser is then recomputed with ``method="auto"`` (two independent methods).  The
    probabilities of all outputs must sum to 1 on both sides to ``dps - 5`` digits, or
    :class:`~exactdp.errors.PrecisionError` is raised.
    """
    d1, d2 = neighbouring_pair(mech, d1, d2, allow_any_pair)
    n = len(d1)
    if n > MAX_ENUMERATED_QUERIES:
        raise InputError(f"max_privacy_loss enumerates every output: at most "
                         f"{MAX_ENUMERATED_QUERIES} queries, got {n}")
    best, best_key = None, None
    totals = [mpf(0), mpf(0)]
    count = 0
    with mpmath.workdps(dps + 20):
        for output in possible_outputs(mech, n):
            runs = Runs.from_items(output)
            check_output_shape(mech, n, runs)
            p1 = probability(mech, d1, runs, dps, "closed")
            p2 = probability(mech, d2, runs, dps, "closed")
            totals[0] += p1.value
            totals[1] += p2.value
            count += 1
            if p1.is_zero and p2.is_zero:
                continue
            loss = loss_from_probabilities(p1, p2)
            key = abs(loss.log_ratio)
            if best is None or key > best_key:
                best, best_key = runs, key
        for side, total in enumerate(totals, start=1):
            if abs(total - 1) > mpf(10) ** (5 - dps):
                raise PrecisionError(f"probabilities of all outputs under d{side} sum to "
                                      f"{mpmath.nstr(total, dps)}, not 1")
    return MaxPrivacyLoss(best, privacy_loss(mech, d1, d2, best, dps, allow_any_pair=True),
                          count, totals[0], totals[1])
