"""Privacy loss between neighbouring inputs: ``privacy_loss``, and the enumeration of every ⊤/⊥
output from which ``max_privacy_loss`` (``losses/supremum.py``) takes the largest.

The privacy loss of output ``a`` is ``ln(Pr[M(D1) = a] / Pr[M(D2) = a])`` (a ratio of densities
for outputs with released numbers); a mechanism is ε-DP iff its absolute value never exceeds ε on
any neighbouring pair (Dwork & Roth, Def. 2.4).
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass

import mpmath
from flint import arb
from mpmath import mpf

from ...errors import InputError, PrecisionError
from ...mechanisms.description import ThresholdMechanism
from ...precision import (COMBINE_GUARD_DIGITS, CertifiedPrivacyLoss, CertifiedProbability,
                         PrivacyLoss, Probability, working_bits)
from ...sequences import Runs, as_queries
from ..backends import output_tree, shared_nodes, smooth_shared_nodes
from ..form.threshold import check_output_shape
from ..backends.piece_series import flint_context
from ..probability import probability

#: ``max_privacy_loss`` enumerates every output, so it is limited to this many queries ...
MAX_ENUMERATED_QUERIES = 12
#: ... or, where every output is evaluated at once, to this many queries with a cutoff of 1
#: (``backends/shared_nodes.py`` and ``smooth_shared_nodes.py``: ``svt1`` and ``svt_gaussian``
#: with c = 1 have n + 1 outputs), this many along the tree
#: of outputs otherwise (``output_tree.py``, cubic in n), and this many outputs.
MAX_SHARED_QUERIES = 1000
MAX_WALKED_QUERIES = 400
MAX_SHARED_OUTPUTS = 2**16


def _certified_loss(p1: CertifiedProbability, p2: CertifiedProbability) -> CertifiedPrivacyLoss:
    if p1.is_zero or p2.is_zero:
        infinity = mpf("-inf") if p1.is_zero else mpf("inf")
        return CertifiedPrivacyLoss(p1, p2, infinity, mpf(0), infinity, infinity)
    lower = mpmath.fsub(p1.log_lower, p2.log_upper, exact=True)
    upper = mpmath.fsub(p1.log_upper, p2.log_lower, exact=True)
    with mpmath.workprec(working_bits(max(p1.dps, p2.dps), guard=COMBINE_GUARD_DIGITS)):
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
    with mpmath.workprec(working_bits(max(p1.dps, p2.dps), guard=COMBINE_GUARD_DIGITS)):
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
    """The largest privacy loss over every output, in either direction: the supremum of
    ``|ln(p1/p2)|``.

    Attributes
    ----------
    output : Runs or None
        The maximising output; ``None`` when no output attains the supremum (a Gaussian
        location shift: ``+∞``), and ``approached`` says where it is approached.
    loss : PrivacyLoss
        Its loss (``log_ratio`` keeps its sign: negative when ``d2`` is the likelier side); from
        ``exact/losses/supremum.py``, the certified enclosure of the larger ``D_∞`` with ``p1``,
        ``p2`` of ``output`` (both ``None`` when no output attains it).
    outputs : int or None
        How many outputs were enumerated (``None`` for a released number).
    total1, total2 : mpf or None
        Σ over outputs of the probabilities under ``d1`` and ``d2`` (both 1 up to rounding;
        ``None`` for a released number).
    approached : str or None
        Where an unattained supremum is approached, e.g. ``out0 → +inf``.
    supremum_method : str
        How an unattained supremum was computed: ``"certified closed"`` (a closed form), or
        ``"certified branch-and-bound"`` (noisy max's largest value, ``losses/value_supremum.py``).
    """

    output: Runs | None
    loss: PrivacyLoss
    outputs: int | None
    total1: mpf | None
    total2: mpf | None
    approached: str | None = None
    supremum_method: str = "certified closed"

    @property
    def method(self) -> str:
        """How the maximiser's probabilities were computed; :attr:`supremum_method` when no
        output attains the supremum."""
        return self.supremum_method if self.loss.p1 is None else self.loss.p1.method


def possible_outputs(mech: ThresholdMechanism, n: int):
    """Every output ``mech`` can produce on ``n`` queries (⊤/⊥ mechanisms only), as lists."""
    if not isinstance(mech, ThresholdMechanism):
        raise InputError(f"{mech.name}: only Sparse Vector variants with ⊤/⊥ outputs can be "
                         f"enumerated")
    if mech.releases_numbers:
        raise InputError(f"{mech.name} releases numbers: its outputs cannot be enumerated")

    # depth first, ⊥ before ⊤, on an explicit stack (n may exceed Python's recursion limit)
    stack = [([], 0)]
    while stack:
        prefix, tops = stack.pop()
        if len(prefix) == n or (mech.cutoff is not None and tops == mech.cutoff):
            yield prefix
            continue
        stack.append((prefix + [True], tops + 1))
        stack.append((prefix + [False], tops))


def enumerated_outputs(mech, n: int, what: str) -> tuple[list, bool]:
    """Every output of the ⊤/⊥ mechanism ``mech`` on ``n`` queries (lists of booleans) and
    whether they can all be evaluated at once (``output_tree.py``); ``what`` names the caller
    in the :class:`~exactdp.errors.InputError` raised beyond the limits of
    :func:`~exactdp.exact.losses.supremum.max_privacy_loss`."""
    shared, limit = enumeration_limit(mech)
    if shared and n <= limit:
        outputs = _checked_outputs(mech, n, MAX_SHARED_OUTPUTS)
        if outputs is None:
            raise InputError(f"{what} enumerates every output: at most "
                             f"{MAX_SHARED_OUTPUTS} outputs, {mech.name} has more on {n} queries")
    elif n > MAX_ENUMERATED_QUERIES:
        raise InputError(f"{what} enumerates every output: at most "
                         f"{MAX_ENUMERATED_QUERIES} queries, got {n}"
                         + (f" ({limit} for {mech.name})" if shared else ""))
    else:
        outputs = _checked_outputs(mech, n, None)
    return [list(output) for output in outputs], shared


def enumeration_limit(mech) -> tuple[bool, int]:
    """Whether the outputs of ``mech`` are evaluated all at once (shared nodes for a cutoff of
    1, else the tree of outputs) and the most queries :func:`enumerated_outputs` takes so:
    :data:`MAX_SHARED_QUERIES`, :data:`MAX_WALKED_QUERIES`, or else
    :data:`MAX_ENUMERATED_QUERIES` one output at a time."""
    nodes = isinstance(mech, ThresholdMechanism) and shared_nodes_of(mech) is not None
    if nodes:
        return True, MAX_SHARED_QUERIES
    if isinstance(mech, ThresholdMechanism) and output_tree.applies(mech):
        return True, MAX_WALKED_QUERIES
    return False, MAX_ENUMERATED_QUERIES


@functools.lru_cache(maxsize=16)
def _checked_outputs(mech: ThresholdMechanism, n: int, most: int | None) -> tuple | None:
    """:func:`possible_outputs` as tuples, each checked against the mechanism's output shape,
    or ``None`` when there are more than ``most``; kept for the last few mechanisms and lengths
    (both inputs of a pair, and every input of ``exactdp verify``, enumerate the same)."""
    outputs = tuple(tuple(output) for output in itertools.islice(
        possible_outputs(mech, n), None if most is None else most + 1))
    if most is not None and len(outputs) > most:
        return None
    for output in outputs:  # (run lengths by groupby: outputs may be 1000 long)
        check_output_shape(mech, n, Runs.from_runs((token, sum(1 for _ in run))
                                                   for token, run in itertools.groupby(output)))
    return outputs


def conclude_max_loss(mech, d1: Runs, d2: Runs, best, totals, count: int,
                      dps: int) -> MaxPrivacyLoss:
    """Check that the probabilities of all ``count`` outputs sum to 1 on both sides (to
    ``dps − 5`` digits, else :class:`~exactdp.errors.PrecisionError`) and recompute the
    maximiser ``best`` with ``method="auto"``."""
    with mpmath.workprec(working_bits(dps, guard=COMBINE_GUARD_DIGITS)):
        for side, total in enumerate(totals, start=1):
            if abs(total - 1) > mpf(10) ** (5 - dps):
                raise PrecisionError(f"probabilities of all outputs of {mech.name} under "
                                     f"d{side} sum to {mpmath.nstr(total, dps)}, not 1")
    best = Runs.from_items(best)
    return MaxPrivacyLoss(best, privacy_loss(mech, d1, d2, best, dps, allow_any_pair=True),
                          count, totals[0], totals[1])


def best_by_loss(evaluated, dps: int):
    """``(output of largest |loss|, [total on d1, total on d2])`` from ``(output, p1, p2)``
    items (an output impossible on both sides is skipped; ties keep the first)."""
    best, best_key = None, None
    totals = [mpf(0), mpf(0)]
    with mpmath.workprec(working_bits(dps, guard=COMBINE_GUARD_DIGITS)):
        for output, p1, p2 in evaluated:
            totals[0] += p1.value
            totals[1] += p2.value
            if p1.is_zero and p2.is_zero:
                continue
            key = abs(loss_from_probabilities(p1, p2).log_ratio)
            if best is None or key > best_key:
                best, best_key = output, key
    return best, totals


def separate_best(mech, d1: Runs, d2: Runs, outputs, dps: int):
    """The output of largest |loss| and both totals, each output evaluated on its own (the
    default method: certified, or the estimate for a law without a certified rule)."""
    return best_by_loss(((output, probability(mech, d1, Runs.from_items(output), dps),
                          probability(mech, d2, Runs.from_items(output), dps))
                         for output in outputs), dps)


def worst_of_all_outputs(mech, d1: Runs, d2: Runs, outputs, dps: int):
    """The output of largest |loss| and both totals, as :func:`separate_best`, but every
    output's probabilities at once per input, as balls (shared nodes for a cutoff of 1,
    :func:`shared_nodes_of`, else one walk of the tree of outputs, ``output_tree.py``): each
    must be within
    ``10^{−dps}`` relative (else :class:`~exactdp.errors.PrecisionError`)."""
    keys = [tuple(output) for output in outputs]
    sides = [all_output_balls(mech, d.expand(), keys, dps) for d in (d1, d2)]
    with flint_context(working_bits(dps, guard=COMBINE_GUARD_DIGITS)):
        tolerance = arb(10) ** (-dps)
        tie = arb(10) ** (5 - dps)
        best, best_key = None, None
        totals = [arb(0), arb(0)]
        for key in keys:
            balls = [side[key] for side in sides]
            for index, ball in enumerate(balls):
                if not ball.rad() <= tolerance * abs(ball.mid()):
                    raise PrecisionError(f"{mech.name}: the probability of an output could not "
                                         f"reach {dps} significant digits")
                totals[index] += ball
            if balls[0] == 0 and balls[1] == 0:
                continue
            if balls[0] == 0 or balls[1] == 0:
                loss = arb("inf")
            else:
                loss = abs(balls[0].log() - balls[1].log()).mid()
            # equal losses (mirror outputs) within the rounding: keep the first, as above
            if best is None or loss > best_key + tie * (1 + best_key):
                best, best_key = key, loss
        with mpmath.workprec(working_bits(dps, guard=COMBINE_GUARD_DIGITS)):
            return list(best), [mpmath.mpf(total.mid()._mpf_) for total in totals]


def at_once_or_alone(shared: bool, n: int, at_once, alone):
    """``at_once()`` where the outputs are evaluated together, else ``alone()`` (each output on
    its own); also ``alone()`` where ``at_once`` raises :class:`PrecisionError` on at most
    :data:`MAX_ENUMERATED_QUERIES` queries (a Gaussian scale far below the queries' spread,
    whose shared nodes' bounds in double precision are too coarse)."""
    if not shared:
        return alone()
    try:
        return at_once()
    except PrecisionError:
        if n > MAX_ENUMERATED_QUERIES:
            raise
    return alone()


def shared_nodes_of(mech):
    """The module that evaluates every output of the ⊤/⊥ mechanism ``mech`` on shared
    Gauss–Legendre nodes (``backends/shared_nodes.py`` for piecewise exponential laws,
    ``backends/smooth_shared_nodes.py`` for smooth ones), or None (no cutoff of 1, or laws
    neither serves)."""
    for module in (shared_nodes, smooth_shared_nodes):
        if module.applies(mech):
            return module
    return None


def all_output_balls(mech, queries: list, keys: list, dps: int) -> dict:
    """``{output: arb}`` for every output of ``keys`` (tuples of booleans, the outputs of
    :func:`enumerated_outputs` when it says they are shared): on shared Gauss–Legendre nodes
    for a cutoff of 1 (:func:`shared_nodes_of`), else along the tree of outputs
    (``output_tree.py``)."""
    module = shared_nodes_of(mech)
    if module is None:
        return output_tree.all_output_probabilities(mech, queries, keys, dps)
    n = len(queries)
    balls = module.first_top_probabilities(mech, queries, dps)
    return {(False,) * k + (True,) * (k < n): ball for k, ball in enumerate(balls)}

